package org.spillway.gpu.join.inlj;

/**
 * One worker's buffers for a window: its matchable keys in partition order with their positions in the window, and
 * the rows the index returned for them. Reused window after window, never shared between workers.
 */
final class PartitionedWindow {
  final long[] keys;
  final int[] positions;
  final long[] rows;
  /** Partition offsets: one more than the fanout, for the exclusive prefix sum. */
  final int[] offsets;

  PartitionedWindow(int capacity, int fanout) {
    keys = new long[capacity];
    positions = new int[capacity];
    rows = new long[capacity];
    offsets = new int[fanout + 1];
  }
}
