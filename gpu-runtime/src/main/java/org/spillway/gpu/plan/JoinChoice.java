package org.spillway.gpu.plan;

import org.spillway.gpu.join.radix.CpuRadixJoin;

/**
 * What the planner chose for a {@link MaterializedJoinNode}: its algorithm and the side it builds on. A GPU join is
 * configured as {@code gpuJoin} says (null for a CPU join).
 */
public record JoinChoice(Algorithm algorithm, boolean buildLeft, GpuJoinSpec gpuJoin) {
  /** The algorithms that run as a join node of their own (the CPU NOPA probe is a pipeline stage otherwise). */
  public enum Algorithm {
    /** {@code CpuNopaHashJoin}: one shared table over the build side. */
    CPU_NOPA,
    /** {@code CpuRadixJoin}: both sides radix-partitioned so that each build partition fits the cache. */
    CPU_RADIX,
    /** A GPU join ({@code NopaHashJoin}, {@code TritonJoin}) as {@link JoinChoice#gpuJoin} configures it. */
    GPU
  }

  public JoinChoice {
    if ((algorithm == Algorithm.GPU) != (gpuJoin != null)) {
      throw new IllegalArgumentException(algorithm + " join " + (gpuJoin == null ? "without" : "with")
          + " a GPU join's configuration");
    }
  }

  /** The choice of a GPU join configured as {@code spec} says. */
  public static JoinChoice gpu(boolean buildLeft, GpuJoinSpec spec) {
    return new JoinChoice(Algorithm.GPU, buildLeft, spec);
  }

  /** The choice of a CPU join, {@link Algorithm#CPU_NOPA} or {@link Algorithm#CPU_RADIX}. */
  public static JoinChoice cpu(Algorithm algorithm, boolean buildLeft) {
    return new JoinChoice(algorithm, buildLeft, null);
  }

  /**
   * The radix bits the CPU radix join partitions a build side of {@code buildRows} rows with, so that a partition's
   * table fits {@code cacheBytes} (what the cost model charges its passes by).
   */
  public static int cpuRadixBits(long buildRows, long cacheBytes) {
    return CpuRadixJoin.radixBits(buildRows, cacheBytes);
  }

  /** Whether the join runs on the GPU. */
  public boolean gpu() {
    return algorithm == Algorithm.GPU;
  }

  /** "gpu" or "cpu", for traces. */
  public String device() {
    return gpu() ? "gpu" : "cpu";
  }
}
