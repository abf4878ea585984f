package org.spillway.adapter;

import org.spillway.gpu.device.CudaDevice;
import org.spillway.gpu.join.GpuEquiJoin;
import org.spillway.gpu.plan.GpuJoins;

import java.util.Optional;

/**
 * The GPU joins of this build ({@link GpuJoins}): NopaHashJoin with the table placement the cost model chose, and
 * TritonJoin with its radix bits and cache share. Tests may install a factory of their own.
 */
public final class SpillwayGpuJoins implements SpillwayGpuJoinFactory {
  private static volatile SpillwayGpuJoinFactory factory = new SpillwayGpuJoins();

  /** The factory in use. */
  public static SpillwayGpuJoinFactory factory() {
    return factory;
  }

  /**
   * Replaces the factory (tests that check the GPU path's plumbing with a join of their own); returns the one
   * it replaced, to be put back.
   */
  public static SpillwayGpuJoinFactory install(SpillwayGpuJoinFactory replacement) {
    SpillwayGpuJoinFactory old = factory;
    factory = replacement;
    return old;
  }

  @Override public Optional<String> unavailableReason(SpillwayJoinAlgorithm algorithm) {
    return algorithm.gpu() ? Optional.empty() : Optional.of(algorithm + " is not a GPU join");
  }

  @Override public GpuEquiJoin create(SpillwayJoinAlgorithm algorithm, CudaDevice device, Options options) {
    return switch (algorithm) {
      case NOPA -> GpuJoins.nopa(device, options.placement(), options.transfer());
      case TRITON -> GpuJoins.triton(device, options.radixBits1(), options.radixBits2(), options.cacheShare());
      default -> throw new UnsupportedOperationException(unavailableReason(algorithm).orElseThrow());
    };
  }
}
