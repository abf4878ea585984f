package org.spillway.gpu.exec;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.function.BooleanSupplier;

/**
 * The hash table of the morsel-driven pipelined hash join (Leis et al., "Morsel-driven parallelism", as HyPer and
 * DuckDB build it): made once from the build side's keys on all cores, then probed by every morsel of the probe
 * side's pipeline, read-only and without locks. Build rows are row ids into the build side's columns.
 *
 * <p>Unique keys over a dense range (primary keys: most TPC-H build sides) go into a direct array indexed by
 * {@code key - min}, one load per probe; anything else goes into a chained table (bucket heads plus a next-row link per
 * build row, pushed with compare-and-set), whose chains a probe walks comparing keys.
 */
public final class JoinHashTable {
  private static final VarHandle INTS = MethodHandles.arrayElementVarHandle(int[].class);
  /** Build rows per build task. */
  private static final int BUILD_TASK_ROWS = 1 << 16;
  /** A range at most this many times the key count is dense enough for the direct array. */
  private static final int DENSE_FACTOR = 4;

  private final long[] keys;
  /** Direct array: entry {@code key - min} is 1 + the row of that key, 0 for none; null for the chained table. */
  private final int[] direct;
  private final long min;
  /** Chained table: 1 + the first row of each bucket, 0 for none. */
  private final int[] heads;
  /** Chained table: 1 + the next row of the same bucket, 0 at the chain's end. */
  private final int[] next;
  private final int shift;
  private final int rows;

  private JoinHashTable(long[] keys, int rows, int[] direct, long min, int[] heads, int[] next, int shift) {
    this.keys = keys;
    this.rows = rows;
    this.direct = direct;
    this.min = min;
    this.heads = heads;
    this.next = next;
    this.shift = shift;
  }

  /**
   * The table over the first {@code rows} keys; rows whose bit in the Arrow-layout {@code validity} bitmap is clear
   * are left out (a NULL key matches nothing; null validity: no NULL).
   */
  public static JoinHashTable build(long[] keys, long[] validity, int rows, int threads, BooleanSupplier cancelled) {
    int tasks = (rows + BUILD_TASK_ROWS - 1) / BUILD_TASK_ROWS;
    long[] mins = new long[Math.max(1, tasks)];
    long[] maxs = new long[mins.length];
    int[] counts = new int[mins.length];
    MorselScheduler.forEach(tasks, threads, cancelled, (w, t) -> {
      long lo = Long.MAX_VALUE;
      long hi = Long.MIN_VALUE;
      int n = 0;
      for (int r = t * BUILD_TASK_ROWS, end = Math.min(rows, r + BUILD_TASK_ROWS); r < end; r++) {
        if (valid(validity, r)) {
          lo = Math.min(lo, keys[r]);
          hi = Math.max(hi, keys[r]);
          n++;
        }
      }
      mins[t] = lo;
      maxs[t] = hi;
      counts[t] = n;
    });
    long lo = Long.MAX_VALUE;
    long hi = Long.MIN_VALUE;
    long count = 0;
    for (int t = 0; t < tasks; t++) {
      lo = Math.min(lo, mins[t]);
      hi = Math.max(hi, maxs[t]);
      count += counts[t];
    }
    if (count > 0 && hi - lo >= 0 && hi - lo < Math.max(1024, DENSE_FACTOR * count) && hi - lo < Integer.MAX_VALUE - 8) {
      int[] direct = buildDirect(keys, validity, rows, lo, (int) (hi - lo + 1), tasks, threads, cancelled);
      if (direct != null) {
        return new JoinHashTable(keys, rows, direct, lo, null, null, 0);
      }
    }
    return buildChained(keys, validity, rows, count, tasks, threads, cancelled);
  }

  /** The direct array, or null as soon as a duplicate key shows the keys are not unique. */
  private static int[] buildDirect(long[] keys, long[] validity, int rows, long min, int range, int tasks,
      int threads, BooleanSupplier cancelled) {
    int[] direct = new int[range];
    boolean[] duplicate = new boolean[1];
    MorselScheduler.forEach(tasks, threads, cancelled, (w, t) -> {
      for (int r = t * BUILD_TASK_ROWS, end = Math.min(rows, r + BUILD_TASK_ROWS); r < end && !duplicate[0]; r++) {
        if (valid(validity, r) && !INTS.compareAndSet(direct, (int) (keys[r] - min), 0, r + 1)) {
          duplicate[0] = true;
        }
      }
    });
    return duplicate[0] ? null : direct;
  }

  private static JoinHashTable buildChained(long[] keys, long[] validity, int rows, long count, int tasks,
      int threads, BooleanSupplier cancelled) {
    int bits = Math.max(4, 64 - Long.numberOfLeadingZeros(Math.max(1, count * 2 - 1)));
    int shift = 64 - bits;
    int[] heads = new int[1 << bits];
    int[] next = new int[rows];
    MorselScheduler.forEach(tasks, threads, cancelled, (w, t) -> {
      for (int r = t * BUILD_TASK_ROWS, end = Math.min(rows, r + BUILD_TASK_ROWS); r < end; r++) {
        if (valid(validity, r)) {
          int bucket = bucket(keys[r], shift);
          int head;
          do {
            head = (int) INTS.getVolatile(heads, bucket);
            next[r] = head;
          } while (!INTS.compareAndSet(heads, bucket, head, r + 1));
        }
      }
    });
    return new JoinHashTable(keys, rows, null, 0, heads, next, shift);
  }

  static boolean valid(long[] validity, int r) {
    return validity == null || (validity[r >>> 6] & 1L << r) != 0;
  }

  private static int bucket(long key, int shift) {
    return (int) ((key * 0x9E37_79B9_7F4A_7C15L) >>> shift);
  }

  /** The number of build rows (NULL keys included). */
  public int rows() {
    return rows;
  }

  /** Whether the keys were unique over a dense range (at most one row per key). */
  public boolean direct() {
    return direct != null;
  }

  /** The first build row with this key, or -1. */
  public int first(long key) {
    if (direct != null) {
      long slot = key - min;
      return slot >= 0 && slot < direct.length ? direct[(int) slot] - 1 : -1;
    }
    int r = heads[bucket(key, shift)] - 1;
    while (r >= 0 && keys[r] != key) {
      r = next[r] - 1;
    }
    return r;
  }

  /**
   * {@link #first} of keys {@code from .. to-1} into {@code out[0 .. to-from-1]} (-1 for a NULL key or no match).
   * The rows' loads are independent of one another (all bucket heads first, then all first keys), so the CPU keeps
   * many cache misses in flight instead of waiting for each probe's chain in turn.
   */
  public void firsts(long[] probeKeys, long[] validity, int from, int to, int[] out) {
    if (direct != null) {
      for (int r = from; r < to; r++) {
        long slot = probeKeys[r] - min;
        out[r - from] = valid(validity, r) && slot >= 0 && slot < direct.length ? direct[(int) slot] - 1 : -1;
      }
      return;
    }
    for (int r = from; r < to; r++) {
      out[r - from] = valid(validity, r) ? heads[bucket(probeKeys[r], shift)] - 1 : -1;
    }
    for (int r = from; r < to; r++) {
      int b = out[r - from];
      long key = probeKeys[r];
      while (b >= 0 && keys[b] != key) {
        b = next[b] - 1;
      }
      out[r - from] = b;
    }
  }

  /** The build row after {@code row} (a row {@link #first} or this gave) with the same key, or -1. */
  public int next(int row) {
    if (direct != null) {
      return -1;
    }
    long key = keys[row];
    int r = next[row] - 1;
    while (r >= 0 && keys[r] != key) {
      r = next[r] - 1;
    }
    return r;
  }
}
