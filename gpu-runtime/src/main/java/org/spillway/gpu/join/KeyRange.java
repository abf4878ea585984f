package org.spillway.gpu.join;

import java.util.function.IntPredicate;
import java.util.function.IntToLongFunction;

/**
 * Minimum, maximum and count of a build side's non-NULL keys: what decides between a direct (array) table and a
 * hash table. Computed per task on all cores ({@link #ofRows}), then combined ({@link #combine}).
 */
public record KeyRange(long min, long max, long rows) {
  /** The range of rows {@code from .. to-1} that {@code valid} keeps (an empty range when none). */
  public static KeyRange ofRows(int from, int to, IntPredicate valid, IntToLongFunction key) {
    long lo = Long.MAX_VALUE;
    long hi = Long.MIN_VALUE;
    long n = 0;
    for (int r = from; r < to; r++) {
      if (valid.test(r)) {
        long k = key.applyAsLong(r);
        lo = Math.min(lo, k);
        hi = Math.max(hi, k);
        n++;
      }
    }
    return new KeyRange(lo, hi, n);
  }

  /** The range of all the parts together. */
  public static KeyRange combine(KeyRange[] parts) {
    long lo = Long.MAX_VALUE;
    long hi = Long.MIN_VALUE;
    long n = 0;
    for (KeyRange part : parts) {
      lo = Math.min(lo, part.min);
      hi = Math.max(hi, part.max);
      n += part.rows;
    }
    return new KeyRange(lo, hi, n);
  }
}
