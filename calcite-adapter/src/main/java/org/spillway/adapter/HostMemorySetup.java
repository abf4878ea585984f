package org.spillway.adapter;

import org.spillway.gpu.GpuRuntime;
import org.spillway.gpu.memory.PinnedAllocationManager;
import org.spillway.storage.StorageAllocator;

import java.util.Locale;

/**
 * Chooses, once per process and before any table is loaded, where Arrow tables live: in pinned, mapped host
 * memory when a GPU is present (so transfers are DMA or zero-copy), else in ordinary pageable memory.
 * The system property {@code spillway.host.memory=pinned|pageable|auto} overrides the choice.
 */
public final class HostMemorySetup {
  public static final String PROPERTY = "spillway.host.memory";
  private static String chosen;

  private HostMemorySetup() {}

  /** Installs the allocation manager if not done yet and returns "pinned" or "pageable". */
  public static synchronized String ensureInstalled() {
    if (chosen == null) {
      String mode = System.getProperty(PROPERTY, "auto").toLowerCase(Locale.ROOT);
      boolean pinned = switch (mode) {
        case "pinned" -> true;
        case "pageable" -> false;
        case "auto" -> GpuRuntime.device().isPresent();
        default -> throw new IllegalArgumentException(
            PROPERTY + " must be pinned, pageable or auto, not '" + mode + "'");
      };
      if (pinned) {
        StorageAllocator.useAllocationManager(PinnedAllocationManager.FACTORY);
      }
      chosen = pinned ? "pinned" : "pageable";
    }
    return chosen;
  }
}
