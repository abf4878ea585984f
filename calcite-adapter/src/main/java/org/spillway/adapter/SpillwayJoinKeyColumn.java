package org.spillway.adapter;

import org.spillway.gpu.exec.ColumnVector;
import org.spillway.gpu.join.JoinInput;
import org.spillway.gpu.join.JoinOutput;

import java.util.Arrays;

/**
 * The join key of one side as one long per row with an Arrow-layout validity bitmap: a key column as it is
 * (its long lane), or two 32-bit key columns packed into one long; a row with a NULL key column has a NULL key.
 */
record SpillwayJoinKeyColumn(long[] keys, long[] validity) {
  /** The key of {@code side} from its columns {@code columns} (one, or two to pack). */
  static SpillwayJoinKeyColumn of(SpillwayColumns side, int[] columns, boolean packed) {
    ColumnVector first = side.column(columns[0]);
    int rows = first.size;
    long[] keys;
    boolean[] nulls = first.nulls;
    if (packed) {
      ColumnVector second = side.column(columns[1]);
      keys = new long[rows];
      for (int r = 0; r < rows; r++) {
        keys[r] = first.longs[r] << 32 | (second.longs[r] & 0xFFFF_FFFFL);
      }
      nulls = or(first.nulls, second.nulls, rows);
    } else {
      keys = first.longs.length == rows ? first.longs : Arrays.copyOf(first.longs, rows);
    }
    return new SpillwayJoinKeyColumn(keys, validity(nulls, rows));
  }

  /** The key as the CPU joins take it (the arrays are shared, not copied). */
  JoinInput input() {
    return JoinInput.withValidity(keys, null, validity);
  }

  /**
   * The key for a join that only counts its output rows ({@link JoinOutput#AGGREGATED}, whose payload sums
   * nobody reads): the keys stand in as the payloads it requires, so nothing is copied.
   */
  JoinInput countingInput() {
    return JoinInput.withValidity(keys, keys, validity);
  }

  int rows() {
    return keys.length;
  }

  private static boolean[] or(boolean[] a, boolean[] b, int rows) {
    if (a == null || b == null) {
      return a == null ? b : a;
    }
    boolean[] out = new boolean[rows];
    for (int r = 0; r < rows; r++) {
      out[r] = a[r] || b[r];
    }
    return out;
  }

  /** Arrow layout: bit {@code r % 64} of word {@code r / 64} set when row {@code r} is valid; null without NULLs. */
  private static long[] validity(boolean[] nulls, int rows) {
    if (nulls == null) {
      return null;
    }
    long[] words = new long[(rows + 63) / 64];
    for (int r = 0; r < rows; r++) {
      if (!nulls[r]) {
        words[r >>> 6] |= 1L << r;
      }
    }
    return words;
  }
}
