package org.spillway.gpu.plan;

import java.util.Locale;
import org.spillway.gpu.device.CudaDevice;
import org.spillway.gpu.join.GpuEquiJoin;
import org.spillway.gpu.join.nopa.HashTablePlacement;
import org.spillway.gpu.join.nopa.NopaHashJoin;
import org.spillway.gpu.join.nopa.NopaOptions;
import org.spillway.gpu.join.triton.TritonJoin;
import org.spillway.gpu.join.triton.TritonOptions;
import org.spillway.gpu.transfer.TransferMethod;

/**
 * The GPU joins a {@link MaterializedJoinNode} runs, configured from the planner's choice: {@link NopaHashJoin} with
 * its table placement and transfer method, {@link TritonJoin} with its radix bits and cache share.
 */
public final class GpuJoins {
  private GpuJoins() {}

  /**
   * A NOPA join on {@code device}; {@code placement} ("gpu", "hybrid" or "host") and {@code transfer} (a transfer
   * method label) where the planner chose them, else null for the defaults.
   */
  public static GpuEquiJoin nopa(CudaDevice device, String placement, String transfer) {
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
  public static GpuEquiJoin triton(CudaDevice device, int radixBits1, int radixBits2, double cacheShare) {
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
