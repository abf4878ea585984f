package org.spillway.adapter;

import org.spillway.gpu.device.CudaDevice;
import org.spillway.gpu.join.GpuEquiJoin;

import java.util.Optional;

/**
 * Where the adapter gets its GPU equi-joins ({@code NopaHashJoin}, {@code TritonJoin}): the planner asks which
 * algorithms this build can run, the runtime asks for a join configured as the cost model chose.
 * {@link SpillwayGpuJoins#factory()} is the one in use.
 */
public interface SpillwayGpuJoinFactory {
  /** Why {@code algorithm} (a GPU algorithm) cannot run in this build, or empty when it can. */
  Optional<String> unavailableReason(SpillwayJoinAlgorithm algorithm);

  /**
   * A new join of {@code algorithm} on {@code device}, configured by {@code options}; the caller closes it.
   * Only called when {@link #unavailableReason} is empty.
   */
  GpuEquiJoin create(SpillwayJoinAlgorithm algorithm, CudaDevice device, Options options);

  /**
   * What the cost model chose for a GPU join: NOPA's table placement ("gpu", "hybrid" or "host"), Triton's
   * radix bits of the first and second pass and the share of partitions cached in GPU memory (0..1), and
   * the transfer method label. Unused fields are null (placement) or 0.
   */
  record Options(String placement, int radixBits1, int radixBits2, double cacheShare, String transfer) {}
}
