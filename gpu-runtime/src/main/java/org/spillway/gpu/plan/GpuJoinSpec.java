package org.spillway.gpu.plan;

/**
 * The GPU join of a {@link MaterializedJoinNode} as the planner's cost model chose it: the algorithm, NOPA's table
 * placement ("gpu", "hybrid" or "host"), Triton's radix bits of the first and second pass and the share of its
 * partitions cached in GPU memory (0..1), and the transfer method's label. Unused fields are null (placement,
 * transfer) or 0; {@link GpuJoinFactory} creates the join when the node runs.
 */
public record GpuJoinSpec(Algorithm algorithm, String placement, int radixBits1, int radixBits2, double cacheShare,
    String transfer) {
  /** The GPU join algorithms. */
  public enum Algorithm {
    /** {@code NopaHashJoin} (Lutz et al.): the table in GPU, hybrid or host memory, both sides streamed. */
    NOPA,
    /** {@code TritonJoin} (Lutz et al. 2022): GPU radix partitioning over the link, partitions cached on the GPU. */
    TRITON
  }

  public GpuJoinSpec {
    if (algorithm == null) {
      throw new IllegalArgumentException("a GPU join needs an algorithm");
    }
  }
}
