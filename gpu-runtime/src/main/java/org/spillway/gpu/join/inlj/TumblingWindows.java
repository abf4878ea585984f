package org.spillway.gpu.join.inlj;

/**
 * A probe of {@code rows} keys cut into tumbling windows of {@code tuples} keys (the last one shorter), the
 * paper's windows (§5.1): disjoint, fixed-size, closed when full or when the probe ends.
 */
record TumblingWindows(long rows, int tuples) {
  /** Caps a window so that its buffers stay Java arrays and its positions fit 32 bits. */
  static final int MAX_TUPLES = 1 << 28;

  TumblingWindows {
    if (rows < 0 || tuples < 1) {
      throw new IllegalArgumentException("windows of " + tuples + " keys over " + rows + " rows");
    }
  }

  /**
   * Keys per window for a budget of {@code windowBytes} of {@code keyBytes}-byte keys: at least one key, at most
   * {@link #MAX_TUPLES}, rounded up to a multiple of {@code multiple} (the GPU's windows are whole warps).
   */
  static int tuplesFor(long windowBytes, int keyBytes, int multiple) {
    if (windowBytes < 1) {
      throw new IllegalArgumentException("a window holds at least one key, got a budget of " + windowBytes
          + " bytes");
    }
    long tuples = Math.min(MAX_TUPLES, Math.max(1, windowBytes / keyBytes));
    return (int) ((tuples + multiple - 1) / multiple * multiple);
  }

  /**
   * Windows of at most {@code maxTuples} keys over {@code rows} rows for {@code workers} workers that take windows in
   * turn: as few as the budget allows, rounded up to a multiple of the workers (but no more than there are rows), all
   * of one size but the last. Cut by the budget alone, a probe of fewer windows than workers left the others idle (a
   * probe within one window ran on one core), and one of a few more windows than workers left most of them idle in
   * its last round.
   */
  static TumblingWindows balanced(long rows, int maxTuples, int workers) {
    if (rows < 0 || maxTuples < 1 || workers < 1) {
      throw new IllegalArgumentException("windows of " + maxTuples + " keys over " + rows + " rows for " + workers
          + " workers");
    }
    if (rows == 0) {
      return new TumblingWindows(0, maxTuples);
    }
    long count = (rows + maxTuples - 1) / maxTuples;
    count = Math.min(rows, (count + workers - 1) / workers * workers);
    return new TumblingWindows(rows, (int) ((rows + count - 1) / count));
  }

  int count() {
    return (int) ((rows + tuples - 1) / tuples);
  }

  /** The first probe row of window {@code w}. */
  long first(int w) {
    return (long) w * tuples;
  }

  /** The keys of window {@code w}. */
  int size(int w) {
    return (int) Math.min(tuples, rows - first(w));
  }
}
