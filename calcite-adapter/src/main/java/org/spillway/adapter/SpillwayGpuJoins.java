package org.spillway.adapter;

import org.spillway.gpu.cuda.CudaDevice;
import org.spillway.gpu.join.GpuEquiJoin;

import java.util.Optional;

/**
 * The GPU joins of this build. NopaHashJoin and TritonJoin are not merged into this branch yet, so both report
 * "not in this build" and the planner runs a CPU join with that reason in EXPLAIN. Wiring them is this
 * class's {@link #unavailableReason} (return empty) and {@link #create} (e.g. {@code new NopaHashJoin(device,
 * ...)} from {@code options.placement()}; {@code new TritonJoin(device, ...)} from the radix bits and cache
 * share).
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
    return switch (algorithm) {
      case NOPA -> Optional.of("NopaHashJoin is not in this build");
      case TRITON -> Optional.of("TritonJoin is not in this build");
      default -> Optional.of(algorithm + " is not a GPU join");
    };
  }

  @Override public GpuEquiJoin create(SpillwayJoinAlgorithm algorithm, CudaDevice device, Options options) {
    throw new UnsupportedOperationException(unavailableReason(algorithm).orElseThrow());
  }
}
