package org.spillway.gpu.plan;

import java.util.Locale;
import java.util.Optional;
import org.spillway.gpu.device.CudaDevice;
import org.spillway.gpu.join.GpuEquiJoin;
import org.spillway.gpu.join.nopa.HashTablePlacement;
import org.spillway.gpu.join.nopa.NopaHashJoin;
import org.spillway.gpu.join.nopa.NopaOptions;
import org.spillway.gpu.join.triton.TritonJoin;
import org.spillway.gpu.join.triton.TritonOptions;
import org.spillway.gpu.transfer.TransferMethod;

/**
 * The GPU joins of this build, configured from the planner's {@link GpuJoinSpec}: {@link NopaHashJoin} with its
 * table placement and transfer method, {@link TritonJoin} with its radix bits and cache share. The factory in use
 * is this one unless a test {@linkplain #install installed} another.
 */
public final class GpuJoins implements GpuJoinFactory {
  private static volatile GpuJoinFactory factory = new GpuJoins();

  private GpuJoins() {}

  /** The factory in use. */
  public static GpuJoinFactory factory() {
    return factory;
  }

  /**
   * Replaces the factory (tests that check the GPU path's plumbing with a join of their own); returns the one it
   * replaced, to be put back.
   */
  public static GpuJoinFactory install(GpuJoinFactory replacement) {
    GpuJoinFactory old = factory;
    factory = replacement;
    return old;
  }

  @Override public Optional<String> unavailableReason(GpuJoinSpec.Algorithm algorithm) {
    return Optional.empty();
  }

  @Override public GpuEquiJoin create(CudaDevice device, GpuJoinSpec spec) {
    return switch (spec.algorithm()) {
      case NOPA -> nopa(device, spec.placement(), spec.transfer());
      case TRITON -> triton(device, spec.radixBits1(), spec.radixBits2(), spec.cacheShare());
    };
  }

  /**
   * A NOPA join on {@code device}; {@code placement} ("gpu", "hybrid" or "host") and {@code transfer} (a transfer
   * method label) where the planner chose them, else null for the defaults.
   */
  private static GpuEquiJoin nopa(CudaDevice device, String placement, String transfer) {
    NopaOptions nopa = NopaOptions.DEFAULT;
    if (transfer != null) {
      nopa = nopa.withMethod(TransferMethod.parse(transfer));
    }
    if (placement != null) {
      nopa = nopa.withPlacement(HashTablePlacement.valueOf(placement.toUpperCase(Locale.ROOT)));
    }
    return new NopaHashJoin(device, nopa);
  }

  /**
   * A Triton join on {@code device} with the planner's radix bits of the first and second pass and share of
   * partitions cached in GPU memory (0..1) where TritonJoin accepts them; what it cannot take, it sizes itself.
   */
  private static GpuEquiJoin triton(CudaDevice device, int radixBits1, int radixBits2, double cacheShare) {
    TritonOptions triton = TritonOptions.DEFAULT;
    boolean bitsFit = radixBits1 > 0 && radixBits1 <= TritonOptions.MAX_BITS1
        && radixBits2 >= 0 && radixBits2 <= TritonOptions.MAX_BITS2;
    if (bitsFit) {
      triton = triton.withBits(radixBits1, radixBits2);
    }
    if (cacheShare > 0 && cacheShare <= 1) {
      triton = triton.withCacheShare(cacheShare);
    }
    return new TritonJoin(device, triton);
  }
}
