package org.spillway.gpu.bench;

import java.util.SplittableRandom;
import java.util.stream.IntStream;
import org.apache.arrow.memory.util.MemoryUtil;

/**
 * The indexed relation of the index join's benchmark and calibration: sorted unique 8-byte keys with gaps, row r
 * holding {@code r * STRIDE}, written on all cores (no sort: generating R of tens of GiB must take seconds); and
 * probe keys drawn uniformly among them, a share of them replaced by keys in the gaps, which miss. The row a key
 * was found at follows from the key, so a join's result is checked without a second join.
 */
public final class SortedKeys {
  /** Key of row r: r * STRIDE; keys between two rows are gaps. */
  public static final long STRIDE = 4;
  private static final long SEGMENT_ROWS = 1L << 20;

  private SortedKeys() {}

  /** The key of row {@code row}. */
  public static long key(long row) {
    return row * STRIDE;
  }

  /** The row that holds {@code key}, or -1 for a key in a gap or beyond the {@code rows} rows. */
  public static long rowOf(long key, long rows) {
    return key >= 0 && key % STRIDE == 0 && key / STRIDE < rows ? key / STRIDE : -1;
  }

  /** Writes the keys of rows 0 .. {@code rows}-1 at {@code address} on all cores. */
  public static void fill(long address, long rows) {
    segments(rows).parallel().forEach(s -> {
      long end = Math.min(rows, (s + 1) * SEGMENT_ROWS);
      for (long r = s * SEGMENT_ROWS; r < end; r++) {
        MemoryUtil.putLong(address + r * Long.BYTES, key(r));
      }
    });
  }

  /**
   * {@code count} probe keys drawn uniformly among the keys of {@code rows} rows, each one with probability
   * {@code missShare} moved into the gap after it (a key no row holds), drawn on all cores; the same seed gives the
   * same keys whatever the parallelism.
   */
  public static long[] probes(long rows, int count, double missShare, long seed) {
    if (rows < 1 || missShare < 0 || missShare > 1) {
      throw new IllegalArgumentException("probes need at least one row and a miss share in [0, 1], got " + rows
          + " rows and " + missShare);
    }
    long[] keys = new long[count];
    segments(count).parallel().forEach(s -> {
      SplittableRandom random = new SplittableRandom(seed * 0x9E3779B97F4A7C15L + s);
      int end = (int) Math.min(count, (s + 1) * SEGMENT_ROWS);
      for (int i = (int) (s * SEGMENT_ROWS); i < end; i++) {
        long key = key(random.nextLong(rows));
        keys[i] = random.nextDouble() < missShare ? key + 1 + random.nextLong(STRIDE - 1) : key;
      }
    });
    return keys;
  }

  private static IntStream segments(long rows) {
    return IntStream.range(0, (int) ((rows + SEGMENT_ROWS - 1) / SEGMENT_ROWS));
  }
}
