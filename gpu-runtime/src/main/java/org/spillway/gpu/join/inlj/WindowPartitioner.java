package org.spillway.gpu.join.inlj;

import java.util.Arrays;
import org.spillway.gpu.index.SortedKeyColumn;

/**
 * Radix-partitions a window of probe keys on the high bits of their offset from the column's smallest key, the
 * paper's "windowed partitioning" (§4.2, §5.1): the bits above those all keys share say nothing, the low bits fall
 * into one page, so the top {@link #RADIX_BITS} bits of the column's key range cluster lookups that walk the same
 * part of the index. Partitioning is stable (a partition keeps its keys in window order) and drops the keys that
 * cannot match: NULL (never matches) and keys outside the column's range (no lookup needed to miss).
 */
final class WindowPartitioner {
  /** Fanout 2048, the paper's. */
  static final int RADIX_BITS = 11;

  private final boolean empty;
  private final long min;
  private final long max;
  private final int shift;
  private final int fanout;

  WindowPartitioner(SortedKeyColumn column) {
    empty = column.rows() == 0;
    min = empty ? 0 : column.key(0);
    max = empty ? -1 : column.key(column.rows() - 1);
    long range = max - min;  // unsigned: max - min may exceed Long.MAX_VALUE
    int bits = empty ? 0 : 64 - Long.numberOfLeadingZeros(range);
    shift = Math.max(0, bits - RADIX_BITS);
    fanout = empty ? 1 : (int) (range >>> shift) + 1;
  }

  int fanout() {
    return fanout;
  }

  /**
   * Scatters the matchable keys of {@code keys[from .. from+count-1]} into {@code window}, partition by partition,
   * each with its position in the window; returns how many it scattered.
   */
  int partition(long[] keys, boolean[] nulls, int from, int count, PartitionedWindow window) {
    int[] offsets = window.offsets;
    Arrays.fill(offsets, 0, fanout + 1, 0);
    for (int i = 0; i < count; i++) {
      if (matchable(keys, nulls, from + i)) {
        offsets[partitionOf(keys[from + i]) + 1]++;
      }
    }
    for (int p = 0; p < fanout; p++) {
      offsets[p + 1] += offsets[p];
    }
    for (int i = 0; i < count; i++) {
      if (matchable(keys, nulls, from + i)) {
        long key = keys[from + i];
        int at = offsets[partitionOf(key)]++;
        window.keys[at] = key;
        window.positions[at] = i;
      }
    }
    return offsets[fanout - 1];
  }

  private boolean matchable(long[] keys, boolean[] nulls, int row) {
    return !empty && (nulls == null || !nulls[row]) && keys[row] >= min && keys[row] <= max;
  }

  private int partitionOf(long key) {
    return (int) ((key - min) >>> shift);
  }
}
