package org.spillway.gpu.plan;

/**
 * What the planner chose for a {@link MaterializedJoinNode}: its algorithm and the side it builds on. A GPU join
 * comes from {@code gpuJoin}, which creates it configured as the cost model chose (null for a CPU join).
 */
public record JoinChoice(Algorithm algorithm, boolean buildLeft, GpuJoinFactory gpuJoin) {
  /** The algorithms that run as a join node of their own (the CPU NOPA probe is a pipeline stage otherwise). */
  public enum Algorithm {
    /** {@code CpuNopaHashJoin}: one shared table over the build side. */
    CPU_NOPA,
    /** {@code CpuRadixJoin}: both sides radix-partitioned so that each build partition fits the cache. */
    CPU_RADIX,
    /** A GPU join ({@code NopaHashJoin}, {@code TritonJoin}) from {@link JoinChoice#gpuJoin}. */
    GPU
  }

  public JoinChoice {
    if ((algorithm == Algorithm.GPU) != (gpuJoin != null)) {
      throw new IllegalArgumentException(algorithm + " join " + (gpuJoin == null ? "without" : "with")
          + " a GPU join factory");
    }
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
