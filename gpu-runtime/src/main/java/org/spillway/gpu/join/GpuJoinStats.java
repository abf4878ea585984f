package org.spillway.gpu.join;

import java.util.List;

/**
 * What one GPU join did, for benchmarks and EXPLAIN ANALYZE-style reports: the variant that ran (e.g.
 * {@code nopa/perfect-hash/gpu-table} or {@code triton/bits=8+9/cache=0.45}), its phases timed with CUDA events
 * where they run on the GPU, and the bytes it moved over the interconnect in each direction.
 */
public record GpuJoinStats(String variant, long totalNanos, long bytesToDevice, long bytesToHost,
    List<Phase> phases) {
  public GpuJoinStats {
    phases = List.copyOf(phases);
  }

  /** One phase (prefix sum, partition pass, build, probe, ...) and its duration. */
  public record Phase(String name, long nanos) {}

  /** Tuples per second over both inputs, the papers' throughput metric: (|R| + |S|) / time. */
  public double tuplesPerSecond(long buildRows, long probeRows) {
    return totalNanos == 0 ? 0 : (buildRows + probeRows) * 1e9 / totalNanos;
  }
}
