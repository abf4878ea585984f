package org.spillway.tpch.bench;

import java.util.List;
import java.util.Optional;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.spillway.gpu.bench.MethodTimer;
import org.spillway.gpu.bench.RandomFill;
import org.spillway.gpu.calibrate.MachineProfile;
import org.spillway.gpu.calibrate.MachineProfiles;
import org.spillway.gpu.device.ArrowAllocators;
import org.spillway.gpu.device.CudaDevice;
import org.spillway.gpu.device.GpuRuntime;
import org.spillway.gpu.device.HostMemoryKind;
import org.spillway.gpu.transfer.ColumnType;
import org.spillway.gpu.transfer.HostColumn;

/** The bandwidth of the link bound: raw pinned cuMemcpy measured in this run, else the machine profile's. */
record PinnedBandwidth(double gbPerSecond, String source) {
  private static final long BYTES = 1L << 30;

  /** Measures 1 GiB of random data copied host to device 5 times (median) where a GPU is present. */
  static PinnedBandwidth measure() {
    Optional<CudaDevice> device = GpuRuntime.device();
    if (device.isPresent()) {
      try (BufferAllocator allocator = ArrowAllocators.root(HostMemoryKind.PINNED);
           ArrowBuf buffer = allocator.buffer(BYTES)) {
        RandomFill.fill(buffer.memoryAddress(), ColumnType.INT64, BYTES / 8, 42);
        HostColumn column = HostColumn.of("link bound", ColumnType.INT64, buffer, BYTES / 8);
        double gbs = MethodTimer.median(MethodTimer.rawPinnedCopy(device.get(), List.of(column), 5));
        return new PinnedBandwidth(gbs, "raw pinned cuMemcpy of 1 GiB, median of 5, measured in this run");
      }
    }
    MachineProfile profile = MachineProfiles.current();
    if (profile.rawPinnedCopyGbPerSecond() != null) {
      return new PinnedBandwidth(profile.rawPinnedCopyGbPerSecond(), MachineProfiles.calibrated(profile)
          ? "raw pinned copy of the machine profile" : "assumed raw pinned copy (uncalibrated profile)");
    }
    return new PinnedBandwidth(55.0, "nominal PCIe Gen5 x16 raw pinned copy (no GPU here)");
  }
}
