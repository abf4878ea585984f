package org.spillway.gpu.join.inlj;

import org.spillway.gpu.index.SortedKeyColumn;

/**
 * How a window's probe keys are radix-partitioned, the paper's "windowed partitioning" (§4.2, §5.1): on the high
 * bits of their offset from the column's smallest key. The bits above those all keys share say nothing and the
 * low bits fall into one page, so the top {@link #RADIX_BITS} bits of the column's key range cluster lookups that
 * walk the same part of the index. A key that cannot match (outside the column's range, or any key of an empty
 * column) needs no lookup. The CPU partitioner and the GPU kernels ({@code window_histogram}, {@code
 * window_scatter}) partition by the same plan.
 *
 * @param empty  the column has no rows
 * @param min    the column's smallest key
 * @param max    its greatest key
 * @param shift  bits of the offset below the partition bits
 * @param fanout partitions, at most {@code 2^RADIX_BITS}
 */
record WindowRadix(boolean empty, long min, long max, int shift, int fanout) {
  /** Fanout 2048, the paper's. */
  static final int RADIX_BITS = 11;

  static WindowRadix of(SortedKeyColumn column) {
    if (column.rows() == 0) {
      return new WindowRadix(true, 0, -1, 0, 1);
    }
    long min = column.key(0);
    long max = column.key(column.rows() - 1);
    long range = max - min;  // unsigned: max - min may exceed Long.MAX_VALUE
    int bits = 64 - Long.numberOfLeadingZeros(range);
    int shift = Math.max(0, bits - RADIX_BITS);
    return new WindowRadix(false, min, max, shift, (int) (range >>> shift) + 1);
  }

  /** Whether a lookup of {@code key} (not NULL) can find it. */
  boolean matchable(long key) {
    return !empty && key >= min && key <= max;
  }

  /** The partition of a matchable key. */
  int partitionOf(long key) {
    return (int) ((key - min) >>> shift);
  }

  /**
   * The key the GPU looks up in place of a key that cannot match, so that a window's lookups run over all its
   * slots without the host knowing how many keys matched: outside the column's range where the type leaves
   * room (every index answers it without a search), else the smallest key (its row is ignored).
   */
  long rejectKey() {
    if (empty || min > Long.MIN_VALUE) {
      return empty ? 0 : min - 1;
    }
    return max < Long.MAX_VALUE ? max + 1 : min;
  }
}
