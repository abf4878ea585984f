package org.spillway.adapter;

import java.util.List;
import java.util.Map;
import org.spillway.gpu.calibrate.MachineProfile;
import org.spillway.gpu.device.HostMemoryKind;
import org.spillway.gpu.transfer.TransferMethod;

/**
 * A GPU site for plan tests on machines without a GPU: tables in pinned memory, the transfer rates measured on
 * the H100 PCIe Gen5 machine (docs/bench/transfer, run 11), 16 cores, a CPU backend pipeline rate of 16 GB/s
 * (1 GB/s per core, as measured on the CPU machines), and a profile either calibrated or marked as assumed. Plans
 * only: nothing may run on it.
 */
record AssumedGpuSite(MachineProfile profile, long budgetBytes) implements SpillwayGpuSite {
  static final String CALIBRATED_HOST = "h100-test";

  /** The H100 numbers, as calibrated ({@code calibrated}) or as the uncalibrated fallback would label them. */
  static AssumedGpuSite h100(boolean calibrated) {
    return h100(calibrated, 16.0);
  }

  /** The H100 numbers with the given CPU pipeline rate (null: unmeasured, the model falls back to the raw scan). */
  static AssumedGpuSite h100(boolean calibrated, Double cpuPipelineGbPerSecond) {
    Map<String, Double> methods = Map.of("pinned copy", 53.85, "zero-copy", 49.30, "staged copy", 50.93,
        "UM prefetch", 48.43, "dynamic pinning", 11.35, "UM migration", 8.25, "pageable copy", 7.86);
    MachineProfile profile = new MachineProfile(MachineProfile.FORMAT_VERSION, "2026-11-23T00:00:00Z",
        calibrated ? CALIBRATED_HOST : org.spillway.gpu.calibrate.MachineProfiles.ASSUMED_HOST, 16, 91.41,
        new MachineProfile.GpuInfo("H100 (test)", 80L << 30, 76L << 30, 132, false), null, methods,
        Map.of("coherence", "PCIe is not coherent"), 55.05, List.of(), 52.31, 2713.0, 1.0, cpuPipelineGbPerSecond);
    return new AssumedGpuSite(profile, 76L << 30);
  }

  @Override public HostMemoryKind memoryKind(long address) {
    return HostMemoryKind.PINNED;
  }

  @Override public boolean supports(TransferMethod method) {
    return method != TransferMethod.COHERENCE;
  }

  @Override public long cacheCapacity(long requestedBytes) {
    return Math.min(requestedBytes, budgetBytes);
  }
}
