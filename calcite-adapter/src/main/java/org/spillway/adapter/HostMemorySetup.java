package org.spillway.adapter;

import org.apache.arrow.memory.AllocationManager;
import org.spillway.gpu.device.GpuRuntime;
import org.spillway.gpu.device.PinnedAllocationManager;
import org.spillway.storage.HostMemoryProvider;

import java.util.Locale;
import java.util.Optional;

/**
 * Chooses where Arrow tables live: in pinned, mapped host memory when a GPU is present (so transfers are DMA
 * or zero-copy), else in ordinary pageable memory. The system property
 * {@code spillway.host.memory=pinned|pageable|auto} overrides the choice. Registered as a
 * {@link HostMemoryProvider} service, so arrow-storage asks it before its first allocation.
 */
public final class HostMemorySetup implements HostMemoryProvider {
  public static final String PROPERTY = "spillway.host.memory";

  /** Public for {@link java.util.ServiceLoader}. */
  public HostMemorySetup() {}

  @Override public Optional<AllocationManager.Factory> allocationManager() {
    String mode = System.getProperty(PROPERTY, "auto").toLowerCase(Locale.ROOT);
    boolean pinned = switch (mode) {
      case "pinned" -> true;
      case "pageable" -> false;
      case "auto" -> GpuRuntime.device().isPresent();
      default -> throw new IllegalArgumentException(
          PROPERTY + " must be pinned, pageable or auto, not '" + mode + "'");
    };
    return pinned ? Optional.of(PinnedAllocationManager.FACTORY) : Optional.empty();
  }
}
