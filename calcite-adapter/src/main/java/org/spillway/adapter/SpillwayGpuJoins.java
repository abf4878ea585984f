package org.spillway.adapter;

import org.spillway.gpu.device.CudaDevice;
import org.spillway.gpu.join.GpuEquiJoin;
import org.spillway.gpu.join.nopa.HashTablePlacement;
import org.spillway.gpu.join.nopa.NopaHashJoin;
import org.spillway.gpu.join.nopa.NopaOptions;
import org.spillway.gpu.join.triton.TritonJoin;
import org.spillway.gpu.join.triton.TritonOptions;
import org.spillway.gpu.transfer.TransferMethod;

import java.util.Locale;
import java.util.Optional;

/**
 * The GPU joins of this build: {@link NopaHashJoin} with the table placement the cost model chose, and
 * {@link TritonJoin} with its radix bits and cache share. Tests may install a factory of their own.
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
      case NOPA -> new NopaHashJoin(device, nopaOptions(options));
      case TRITON -> new TritonJoin(device, tritonOptions(options));
      default -> throw new UnsupportedOperationException(unavailableReason(algorithm).orElseThrow());
    };
  }

  private static NopaOptions nopaOptions(Options options) {
    NopaOptions nopa = NopaOptions.DEFAULT;
    if (options.transfer() != null) {
      nopa = nopa.withMethod(TransferMethod.parse(options.transfer()));
    }
    if (options.placement() != null) {
      nopa = nopa.withPlacement(HashTablePlacement.valueOf(options.placement().toUpperCase(Locale.ROOT)));
    }
    return nopa;
  }

  /** The cost model's bits and cache share where TritonJoin accepts them; what it cannot take, it sizes itself. */
  private static TritonOptions tritonOptions(Options options) {
    TritonOptions triton = TritonOptions.DEFAULT;
    boolean bitsFit = options.radixBits1() > 0 && options.radixBits1() <= TritonOptions.MAX_BITS1
        && options.radixBits2() >= 0 && options.radixBits2() <= TritonOptions.MAX_BITS2;
    if (bitsFit) {
      triton = triton.withBits(options.radixBits1(), options.radixBits2());
    }
    if (options.cacheShare() > 0 && options.cacheShare() <= 1) {
      triton = triton.withCacheShare(options.cacheShare());
    }
    return triton;
  }
}
