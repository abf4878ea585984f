package org.spillway.gpu.join.triton;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

import java.util.SplittableRandom;
import org.apache.arrow.memory.util.MemoryUtil;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.spillway.gpu.join.HostJoinInput;
import org.spillway.gpu.join.JoinWorkers;
import org.spillway.gpu.join.radix.RadixPartitioner;
import org.spillway.gpu.transfer.ColumnType;
import org.spillway.gpu.transfer.HostColumn;

/**
 * The CPU prefix sum (CI): per-block histograms of the top hash bits of the non-NULL keys in host memory,
 * the layout hierarchical_histogram computes on the GPU, on fresh random columns (seed in the message).
 */
class CpuPrefixSumTest {
  @ParameterizedTest
  @CsvSource({"INT64, 200000, 7, true", "INT32, 150001, 3, false", "INT64, 10, 16, true", "INT32, 0, 1, false",
      "INT64, 300000, 1, false"})
  void equalsTheHistogramOfEveryBlock(ColumnType type, int rows, int blocks, boolean nulls) {
    long seed = System.nanoTime();
    SplittableRandom random = new SplittableRandom(seed);
    long keys = MemoryUtil.allocateMemory(Math.max(8, (long) rows * type.width()));
    long validity = nulls ? MemoryUtil.allocateMemory((rows + 7) / 8 + 8) : 0;
    try (JoinWorkers workers = new JoinWorkers(3, "prefix-sum-test")) {
      int bits = HierarchicalPartitioner.HISTOGRAM_BITS;
      long chunk = PartitionLayout.chunkRows(rows, blocks);
      int[] expected = new int[blocks << bits];
      for (int row = 0; row < rows; row++) {
        long key = type == ColumnType.INT64 ? random.nextLong() : random.nextInt();
        boolean valid = !nulls || random.nextInt(5) != 0;
        if (type == ColumnType.INT64) {
          MemoryUtil.putLong(keys + 8L * row, key);
        } else {
          MemoryUtil.putInt(keys + 4L * row, (int) key);
        }
        if (nulls) {
          byte b = row % 8 == 0 ? 0 : MemoryUtil.getByte(validity + row / 8);
          MemoryUtil.putByte(validity + row / 8, (byte) (valid ? b | (1 << (row % 8)) : b));
        }
        if (valid) {
          expected[(int) (row / chunk << bits) + RadixPartitioner.digit(key, 0, bits)]++;
        }
      }
      HostJoinInput in = new HostJoinInput(new HostColumn("k", type, keys, rows), null, validity);
      assertArrayEquals(expected, CpuPrefixSum.histogram(in, blocks, chunk, workers), "seed " + seed);
    } finally {
      MemoryUtil.freeMemory(keys);
      if (validity != 0) {
        MemoryUtil.freeMemory(validity);
      }
    }
  }
}
