package org.spillway.gpu.index;

import org.spillway.gpu.pipeline.scheduler.MorselScheduler;

/**
 * Cuts {@code 0 .. count-1} into ranges of a fixed size and runs them on the engine's workers: how every index
 * build and check spreads over the cores. Ranges are large enough (a million rows) that the scheduling costs
 * nothing next to the work, small enough that all cores get some on a column of a few million rows.
 */
final class ParallelRanges {
  /** Rows per range. */
  static final long RANGE = 1L << 20;

  /** One range {@code from .. to-1}, the {@code range}-th. */
  interface RangeTask {
    void run(int range, long from, long to);
  }

  private ParallelRanges() {
  }

  /** The number of ranges {@code count} items make. */
  static int ranges(long count, long size) {
    return Math.toIntExact((count + size - 1) / size);
  }

  /** Runs {@code task} on every range of {@code size} items of {@code 0 .. count-1}, with {@code threads} threads. */
  static void run(long count, long size, int threads, RangeTask task) {
    int ranges = ranges(count, size);
    MorselScheduler.forEach(ranges, threads, () -> false,
        (worker, range) -> task.run(range, range * size, Math.min(count, (range + 1) * size)));
  }
}
