package org.spillway.gpu.join.triton;

import org.apache.arrow.memory.util.MemoryUtil;
import org.spillway.gpu.join.HostJoinInput;
import org.spillway.gpu.join.JoinWorkers;
import org.spillway.gpu.join.radix.RadixPartitioner;
import org.spillway.gpu.transfer.ColumnType;

/**
 * The Triton join's prefix sum on CPU threads (Lutz et al., SIGMOD '22, Sec. 6.2.8: the CPU scans the key
 * column in its own memory faster than the GPU reads it over the link). It computes exactly what the
 * hierarchical_histogram kernel does: per first-pass block {@code b} (rows {@code [b * chunk, (b + 1) * chunk)}),
 * the non-NULL rows per top-{@link HierarchicalPartitioner#HISTOGRAM_BITS} hash bin, so the partition layout
 * is the same whichever processor counted.
 */
final class CpuPrefixSum {
  /** Rows per morsel: blocks are split so that all threads stay busy even with few, large blocks. */
  static final int MORSEL_ROWS = 1 << 16;

  private CpuPrefixSum() {}

  /** Histograms {@code [b * 2^HISTOGRAM_BITS + bin]} of {@code side} over {@code blocks} blocks. */
  static int[] histogram(HostJoinInput side, int blocks, long chunk, JoinWorkers workers) {
    int bins = 1 << HierarchicalPartitioner.HISTOGRAM_BITS;
    long rows = side.rows();
    int perBlock = (int) ((chunk + MORSEL_ROWS - 1) / MORSEL_ROWS);
    int[][] partial = new int[blocks * perBlock][];
    workers.forEachMorsel(partial.length, (w, m) -> {
      long begin = Math.min(rows, (m / perBlock) * chunk + (long) (m % perBlock) * MORSEL_ROWS);
      long end = Math.min(Math.min(rows, (m / perBlock + 1) * chunk), begin + MORSEL_ROWS);
      partial[m] = count(side, begin, end);
    });
    int[] out = new int[blocks * bins];
    for (int m = 0; m < partial.length; m++) {
      int base = (m / perBlock) * bins;
      for (int j = 0; j < bins; j++) {
        out[base + j] += partial[m][j];
      }
    }
    return out;
  }

  private static int[] count(HostJoinInput side, long begin, long end) {
    int bits = HierarchicalPartitioner.HISTOGRAM_BITS;
    int[] hist = new int[1 << bits];
    long keys = side.keys().address();
    boolean wide = side.keys().type() == ColumnType.INT64;
    long validity = side.validityAddress();
    for (long row = begin; row < end; row++) {
      if (validity != 0 && (MemoryUtil.getByte(validity + (row >>> 3)) & (1 << (row & 7))) == 0) {
        continue;
      }
      long key = wide ? MemoryUtil.getLong(keys + 8 * row) : MemoryUtil.getInt(keys + 4 * row);
      hist[RadixPartitioner.digit(key, 0, bits)]++;
    }
    return hist;
  }
}
