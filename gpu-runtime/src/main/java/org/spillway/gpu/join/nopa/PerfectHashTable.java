package org.spillway.gpu.join.nopa;

import org.spillway.gpu.join.BuildTable;
import org.spillway.gpu.join.JoinSink;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * NOPA's array table for dense, unique build keys: the value of key {@code k} sits at {@code k - min}, and an
 * occupancy bitmap tells present keys from holes; no key is stored and no probe ever collides.
 */
final class PerfectHashTable implements BuildTable {
  /** Dense means the key range is at most this many times the build rows (50% fill, as linear probing). */
  static final int MAX_RANGE_PER_ROW = 2;
  private static final VarHandle WORD = MethodHandles.arrayElementVarHandle(long[].class);

  private final long min;
  private final long range;
  private final long[] values;
  private final long[] occupied;

  /** An empty table for keys {@code min .. min + range - 1}. */
  PerfectHashTable(long min, int range) {
    this.min = min;
    this.range = range;
    this.values = new long[range];
    this.occupied = new long[(range + 63) / 64];
  }

  /**
   * Whether keys in {@code [min, max]} over {@code rows} non-NULL build rows are dense enough for an array
   * table (uniqueness is checked while building).
   */
  static boolean fits(long min, long max, long rows) {
    if (rows == 0 || max < min) {
      return false;
    }
    long range = max - min + 1;
    // A range that overflows went negative: far too sparse.
    return range > 0 && range <= MAX_RANGE_PER_ROW * rows && range <= Integer.MAX_VALUE - 8;
  }

  /** Inserts from any thread; returns false if the key was present already (the keys are not unique). */
  boolean insertConcurrent(long key, long value) {
    int offset = (int) (key - min);
    long bit = 1L << offset;
    long old = (long) WORD.getAndBitwiseOr(occupied, offset >>> 6, bit);
    if ((old & bit) != 0) {
      return false;
    }
    values[offset] = value;
    return true;
  }

  @Override
  public long touch(long key) {
    long offset = key - min;
    return Long.compareUnsigned(offset, range) >= 0 ? 0 : values[(int) offset];
  }

  @Override
  public int probe(long key, long probeValue, JoinSink sink, boolean existenceOnly) {
    long offset = key - min;
    // Unsigned compare: keys below min wrap to huge offsets, so one test covers both ends of the range.
    if (Long.compareUnsigned(offset, range) >= 0 || (occupied[(int) (offset >>> 6)] & (1L << offset)) == 0) {
      return 0;
    }
    if (!existenceOnly) {
      sink.pair(values[(int) offset], probeValue);
    }
    return 1;
  }
}
