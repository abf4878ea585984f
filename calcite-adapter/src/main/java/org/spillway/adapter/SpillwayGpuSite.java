package org.spillway.adapter;

import java.util.Optional;
import org.spillway.gpu.calibrate.MachineProfile;
import org.spillway.gpu.calibrate.MachineProfiles;
import org.spillway.gpu.device.GpuRuntime;
import org.spillway.gpu.device.HostMemoryKind;
import org.spillway.gpu.plan.CurrentDevice;
import org.spillway.gpu.transfer.TransferMethod;

/**
 * What the planner asks of the GPU side of this process: the machine profile, what kind of memory a table
 * lives in, which transfer methods the device offers, and the capacity of the process-wide GPU column cache.
 * Absent without a usable CUDA device; plan tests substitute a site that answers without one ({@link #assume}).
 */
interface SpillwayGpuSite {
  /** The profile the cost model reads. */
  MachineProfile profile();

  /** The kind of host memory at {@code address}. */
  HostMemoryKind memoryKind(long address);

  /** Whether the device can run {@code method}. */
  boolean supports(TransferMethod method);

  /** The capacity a cache asked to hold {@code requestedBytes} has (the first request sizes it, within budget). */
  long cacheCapacity(long requestedBytes);

  /** The site of this process: the CUDA device's, or the one a test assumed; empty without a device. */
  static Optional<SpillwayGpuSite> current() {
    SpillwayGpuSite assumed = Holder.assumed;
    if (assumed != null) {
      return Optional.of(assumed);
    }
    return GpuRuntime.device().isPresent() ? Optional.of(new CudaSite()) : Optional.empty();
  }

  /** Plans as if {@code site} were this process's GPU until the returned handle is closed (tests only). */
  static AutoCloseable assume(SpillwayGpuSite site) {
    Holder.assumed = site;
    return () -> Holder.assumed = null;
  }

  /** The substituted site. */
  final class Holder {
    private static volatile SpillwayGpuSite assumed;

    private Holder() {}
  }

  /** The site of this process's CUDA device. */
  final class CudaSite implements SpillwayGpuSite {
    @Override public MachineProfile profile() {
      return MachineProfiles.current();
    }

    @Override public HostMemoryKind memoryKind(long address) {
      return CurrentDevice.memoryKind(address);
    }

    @Override public boolean supports(TransferMethod method) {
      return CurrentDevice.supports(method);
    }

    @Override public long cacheCapacity(long requestedBytes) {
      return CurrentDevice.cacheCapacity(requestedBytes);
    }
  }
}
