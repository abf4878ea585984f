package org.spillway.gpu.join.inlj;

import java.util.Arrays;
import org.spillway.gpu.index.SortedKeyColumn;

/**
 * Radix-partitions a window of probe keys on the CPU by its {@link WindowRadix}. Partitioning is stable (a
 * partition keeps its keys in window order) and drops the keys that cannot match: NULL (never matches) and keys
 * outside the column's range (no lookup needed to miss).
 */
final class WindowPartitioner {
  static final int RADIX_BITS = WindowRadix.RADIX_BITS;

  private final WindowRadix radix;

  WindowPartitioner(SortedKeyColumn column) {
    radix = WindowRadix.of(column);
  }

  int fanout() {
    return radix.fanout();
  }

  /**
   * Scatters the matchable keys of {@code keys[from .. from+count-1]} into {@code window}, partition by partition,
   * each with its position in the window; returns how many it scattered.
   */
  int partition(long[] keys, boolean[] nulls, int from, int count, PartitionedWindow window) {
    int fanout = radix.fanout();
    int[] offsets = window.offsets;
    Arrays.fill(offsets, 0, fanout + 1, 0);
    for (int i = 0; i < count; i++) {
      if (matchable(keys, nulls, from + i)) {
        offsets[radix.partitionOf(keys[from + i]) + 1]++;
      }
    }
    for (int p = 0; p < fanout; p++) {
      offsets[p + 1] += offsets[p];
    }
    for (int i = 0; i < count; i++) {
      if (matchable(keys, nulls, from + i)) {
        long key = keys[from + i];
        int at = offsets[radix.partitionOf(key)]++;
        window.keys[at] = key;
        window.positions[at] = i;
      }
    }
    return offsets[fanout - 1];
  }

  private boolean matchable(long[] keys, boolean[] nulls, int row) {
    return (nulls == null || !nulls[row]) && radix.matchable(keys[row]);
  }
}
