package org.spillway.gpu.join.triton;

import static jcuda.driver.JCudaDriver.cuMemcpyDtoH;

import java.util.Arrays;
import java.util.SplittableRandom;
import java.util.stream.Stream;
import jcuda.Pointer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.spillway.gpu.GpuTest;
import org.spillway.gpu.device.CudaDevice;
import org.spillway.gpu.device.CudaException;
import org.spillway.gpu.device.CudaStream;
import org.spillway.gpu.device.DeviceBuffer;
import org.spillway.gpu.device.GpuRuntime;
import org.spillway.gpu.join.ZipfDistribution;

/**
 * The Shared partitioner (GPU memory to GPU memory, the Triton join's second pass) against the CPU reference
 * on fresh random tuples: unpadded (as the join runs it) and padded, fanouts 1 to 4096, several hash-bit
 * shifts, skewed keys; the output is poisoned first so that any stray write shows.
 */
@GpuTest
class SharedPartitionerGpuTest {
  static Stream<Arguments> cases() {
    // bits, shift, blocks, padded, rows, L1 tuples, key skew
    return Stream.of(
        Arguments.of(0, 0, 1, false, 5_000, 32, 0.0),
        Arguments.of(3, 5, 4, true, 50_000, 8, 0.0),
        Arguments.of(6, 3, 66, false, 200_000, 32, 0.0),
        Arguments.of(9, 7, 66, true, 300_000, 16, 0.0),
        Arguments.of(10, 10, 13, false, 100_000, 8, 0.0),
        Arguments.of(11, 2, 9, false, 100_000, 4, 0.0),
        Arguments.of(12, 0, 66, false, 400_000, 2, 0.0),
        Arguments.of(5, 8, 20, false, 200_000, 32, 1.5),
        Arguments.of(8, 0, 66, false, 77, 32, 0.0));
  }

  /** Small enough for compute-sanitizer: skewed keys on few locks, padded and not. */
  @Test
  void smallCasesForTheSanitizer() {
    matchesTheCpuReference(6, 3, 4, true, 20_000, 8, 1.5);
    matchesTheCpuReference(11, 0, 3, false, 10_000, 4, 0.0);
  }

  @ParameterizedTest
  @MethodSource("cases")
  void matchesTheCpuReference(int bits, int shift, int blocks, boolean padded, int rows, int l1, double skew) {
    CudaDevice device = GpuRuntime.requireDevice();
    long seed = System.nanoTime();
    SplittableRandom random = new SplittableRandom(seed);
    String where = String.format("bits %d, shift %d, blocks %d, padded %b, %d rows, L1 %d, skew %.2f, seed %d", bits,
        shift, blocks, padded, rows, l1, skew, seed);
    ZipfDistribution zipf = skew > 0 ? new ZipfDistribution(500, skew) : null;
    long[] keys = new long[rows];
    long[] values = new long[rows];
    long[] tuples = new long[2 * rows];
    for (int i = 0; i < rows; i++) {
      keys[i] = zipf != null ? zipf.sample(random) * 104_729L - 3 : random.nextLong();
      values[i] = random.nextLong();
      tuples[2 * i] = keys[i];
      tuples[2 * i + 1] = values[i];
    }
    PartitionReference.Expected expected = PartitionReference.partition(keys, values, null, blocks, shift, bits,
        padded ? PartitionLayout.PAD_TUPLES : 0);
    PartitionLayout layout = expected.layout();
    long[] wide = layout.partitionMajorOffsets();
    int[] offsets = new int[wide.length];
    for (int i = 0; i < wide.length; i++) {
      offsets[i] = Math.toIntExact(wide[i]);
    }
    long[] poison = new long[(int) (2 * Math.max(1, layout.totalTuples()))];
    Arrays.fill(poison, PartitionReference.POISON);
    try (CudaStream stream = device.newStream();
         DeviceBuffer in = DeviceArrays.upload(device, tuples, "test input");
         DeviceBuffer off = DeviceArrays.upload(device, offsets, "test offsets");
         DeviceBuffer out = DeviceArrays.upload(device, poison, "test output")) {
      new SharedPartitioner(device).partition(in.pointer(), rows, blocks, off.pointer(), out.pointer(), shift, bits,
          l1, padded, stream);
      stream.synchronize();
      long[] actual = new long[(int) (2 * layout.totalTuples())];
      CudaException.check(cuMemcpyDtoH(Pointer.to(actual), out.pointer(), 8L * actual.length), "cuMemcpyDtoH");
      PartitionReference.assertMatches(expected, actual, where);
    }
  }
}
