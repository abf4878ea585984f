package org.spillway.gpu.join.keys;

import org.spillway.gpu.join.JoinInput;

/**
 * One side's join key as the joins take it: one long per row, and an Arrow-layout validity bitmap (bit
 * {@code r % 64} of word {@code r / 64} set when row {@code r} is valid; null when no key is NULL), the form of
 * {@link JoinInput#withValidity}. A NULL key never matches.
 */
public record JoinKeys(long[] keys, long[] validity) {
  public int rows() {
    return keys.length;
  }

  /** The keys as the CPU joins take them (the arrays are shared, not copied). */
  public JoinInput input() {
    return JoinInput.withValidity(keys, null, validity);
  }

  /**
   * The keys for a join that only counts its output rows ({@link org.spillway.gpu.join.JoinOutput#AGGREGATED},
   * whose payload sums nobody reads): the keys stand in as the payloads it requires, so nothing is copied.
   */
  public JoinInput countingInput() {
    return JoinInput.withValidity(keys, keys, validity);
  }

  /** Whether row {@code r}'s key is NULL. */
  public boolean isNull(int r) {
    return validity != null && (validity[r >>> 6] & 1L << r) == 0;
  }

  /** The validity bitmap of the NULL flags of rows {@code 0 .. rows-1}, or null when there are none. */
  public static long[] validity(boolean[] nulls, int rows) {
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
