package org.spillway.gpu.join.triton;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

import java.util.SplittableRandom;
import java.util.stream.Stream;
import jcuda.driver.CUdevice_attribute;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.spillway.gpu.GpuTest;
import org.spillway.gpu.device.CudaDevice;
import org.spillway.gpu.device.CudaStream;
import org.spillway.gpu.device.DeviceBuffer;
import org.spillway.gpu.device.GpuRuntime;
import org.spillway.gpu.join.JoinWorkers;
import org.spillway.gpu.join.ZipfDistribution;
import org.spillway.gpu.join.radix.RadixPartitioner;
import org.spillway.gpu.transfer.ColumnType;

/**
 * The Hierarchical first pass (prefix-sum histogram and partitioning kernel) against the CPU reference on
 * fresh random relations: histograms equal per block, every tuple in its region, padding where the layout
 * puts it and nothing written anywhere else (the array is poisoned first), for fanouts 1 to 1024, cached,
 * spilled and interleaved pages, the smallest and largest buffers, and heavy contention on one partition.
 */
@GpuTest
class HierarchicalPartitionerGpuTest {
  static Stream<Arguments> cases() {
    // bits, blocks, cache share, L1 tuples, L2 tuples, key type, NULL share, rows, key skew
    return Stream.of(
        Arguments.of(0, 1, 1.0, 32, 32, ColumnType.INT64, 0.0, 10_000, 0.0),
        Arguments.of(1, 3, 0.0, 8, 8, ColumnType.INT32, 0.1, 50_000, 0.0),
        Arguments.of(3, 7, 0.5, 16, 64, ColumnType.INT64, 0.05, 100_000, 0.0),
        Arguments.of(7, 16, 0.3, 32, 512, ColumnType.INT64, 0.0, 300_000, 0.0),
        Arguments.of(10, 5, 0.7, 8, 16, ColumnType.INT32, 0.2, 200_000, 0.0),
        Arguments.of(10, 2, 0.0, 8, 512, ColumnType.INT64, 0.0, 1000, 0.0),
        Arguments.of(4, 8, 0.5, 32, 128, ColumnType.INT64, 0.0, 200_000, 1.5),
        Arguments.of(0, 4, 0.25, 8, 8, ColumnType.INT32, 0.0, 100_000, 1.75),
        Arguments.of(2, 16, 0.5, 32, 64, ColumnType.INT64, 0.0, 10, 0.0),
        Arguments.of(5, 3, 0.5, 32, 64, ColumnType.INT64, 1.0, 1000, 0.0));
  }

  /** Small enough for compute-sanitizer: heavy contention on few locks, and the largest fanout. */
  @Test
  void smallCasesForTheSanitizer() {
    matchesTheCpuReference(3, 4, 0.5, 8, 16, ColumnType.INT64, 0.1, 20_000, 1.5);
    matchesTheCpuReference(10, 2, 0.5, 8, 8, ColumnType.INT32, 0.0, 5_000, 0.0);
  }

  @ParameterizedTest
  @MethodSource("cases")
  void matchesTheCpuReference(int bits, int blocks, double cacheShare, int l1, int l2, ColumnType keyType,
      double nullShare, int rows, double skew) {
    CudaDevice device = GpuRuntime.requireDevice();
    long seed = System.nanoTime();
    SplittableRandom random = new SplittableRandom(seed);
    boolean payloads = random.nextBoolean();
    String where = String.format("bits %d, blocks %d, cache %.2f, L1 %d, L2 %d, %s keys, %d rows, skew %.2f, "
        + "payloads %b, seed %d", bits, blocks, cacheShare, l1, l2, keyType, rows, skew, payloads, seed);
    ZipfDistribution zipf = skew > 0 ? new ZipfDistribution(1000, skew) : null;
    long[] extremes = {Long.MIN_VALUE, Long.MAX_VALUE, -1, 0, Integer.MIN_VALUE, Integer.MAX_VALUE};
    try (PinnedRelation rel = PinnedRelation.random(device, rows, () -> zipf != null ? zipf.sample(random) * 7919L
            : random.nextInt(20) == 0 ? extremes[random.nextInt(extremes.length)]
            : random.nextBoolean() ? random.nextLong() : random.nextInt(rows + 1), keyType, ColumnType.INT64,
            nullShare, random);
         CudaStream stream = device.newStream()) {
      HierarchicalPartitioner partitioner = new HierarchicalPartitioner(device);
      HierarchicalPartitioner.Input in = HierarchicalPartitioner.Input.of(device, rel.host(), payloads);
      long chunk = PartitionLayout.chunkRows(rows, blocks);
      long[] values = new long[rows];
      for (int i = 0; i < rows; i++) {
        values[i] = payloads ? rel.payloads[i] : i;
      }
      PartitionReference.Expected expected = PartitionReference.partition(rel.keys, values, rel.nulls(), blocks, 0,
          bits, PartitionLayout.PAD_TUPLES);
      int[] histogram = histogram(device, partitioner, in, blocks, chunk, stream);
      int[] expectedHistogram = new int[histogram.length];
      for (int row = 0; row < rows; row++) {
        if (!rel.isNull(row)) {
          expectedHistogram[(int) (row / chunk) * (1 << HierarchicalPartitioner.HISTOGRAM_BITS)
              + RadixPartitioner.digit(rel.keys[row], 0, HierarchicalPartitioner.HISTOGRAM_BITS)]++;
        }
      }
      assertArrayEquals(expectedHistogram, histogram, where + ": prefix-sum histogram");
      try (JoinWorkers workers = new JoinWorkers(4, "prefix-sum-test")) {
        assertArrayEquals(histogram, CpuPrefixSum.histogram(rel.host(), blocks, chunk, workers),
            where + ": CPU prefix sum against the GPU's");
      }
      long[] counts = PartitionLayout.coarsen(histogram, blocks, HierarchicalPartitioner.HISTOGRAM_BITS, bits);
      PartitionLayout layout = PartitionLayout.of(counts, blocks, 1 << bits, PartitionLayout.PAD_TUPLES);
      assertArrayEquals(expected.layout().blockMajorOffsets(), layout.blockMajorOffsets(), where + ": offsets");
      int shared = device.attribute(CUdevice_attribute.CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN);
      if (HierarchicalPartitioner.sharedBytes(bits, l1) > shared) {
        throw new IllegalArgumentException(where + ": case needs more shared memory than the device has");
      }
      try (PartitionArray array = new PartitionArray(device, layout.totalTuples(), cacheShare, 5, "test partitions");
           DeviceBuffer offsets = DeviceArrays.upload(device, layout.blockMajorOffsets(), "test offsets");
           DeviceBuffer pool = device.allocator().allocate(HierarchicalPartitioner.l2PoolBytes(blocks, bits, l2),
               "test L2 buffers")) {
        array.fill(PartitionReference.POISON_BYTE);
        partitioner.partition(in, blocks, chunk, offsets, array, bits, l1, l2, pool, stream);
        stream.synchronize();
        long[] actual = array.read(0, (int) layout.totalTuples());
        PartitionReference.assertMatches(expected, actual, where);
      }
    }
  }

  private static int[] histogram(CudaDevice device, HierarchicalPartitioner partitioner,
      HierarchicalPartitioner.Input in, int blocks, long chunk, CudaStream stream) {
    int count = blocks << HierarchicalPartitioner.HISTOGRAM_BITS;
    try (DeviceBuffer hist = DeviceArrays.zeroed(device, 4L * count, "test histogram", stream)) {
      partitioner.histogram(in, blocks, chunk, hist, stream);
      stream.synchronize();
      return DeviceArrays.downloadInts(hist, count);
    }
  }
}
