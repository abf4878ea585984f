package org.spillway.storage;

import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * Tells whether a batch's text has more distinct values than a limit from their 64-bit hashes alone: values whose
 * hashes differ differ, so more distinct hashes than the limit means more distinct values. A text column with
 * more distinct values than a dictionary holds (lineitem's comments) made every batch that still kept the column's
 * exact distinct set copy 65,537 values into it before it overflowed; with one batch a thread in flight when an
 * import starts, that was the first batch of every thread (the statistics of 131,072 comments: 13 to 23 ms, against
 * 4 ms once the set is gone, in a micro-benchmark on the 2-core machine). Counting hashes in an array of longs costs
 * a probe a row and copies nothing (5 ms with the rest). Fewer distinct hashes than the limit say nothing (two values
 * may share a hash): then the exact set is built as before.
 */
final class DistinctHashes {
  private DistinctHashes() {}

  /** The slots a table for {@code limit} distinct hashes needs: a power of two, at least twice one more than it. */
  static int tableSlots(int limit) {
    return Integer.highestOneBit(Math.max(1, 2 * (limit + 1) - 1)) << 1;
  }

  /**
   * Whether more than {@code limit} of the hashes of the first {@code rows} rows that {@code validity} (null: none
   * NULL) says are not NULL differ; stops at the first distinct hash beyond the limit. {@code table} holds at least
   * {@link #tableSlots}({@code limit}) longs, whatever they are (cleared here).
   */
  static boolean exceed(long[] hashes, ByteBuffer validity, int rows, int limit, long[] table) {
    int slots = tableSlots(limit);
    if (table.length < slots) {
      throw new IllegalArgumentException("a table of " + table.length + " slots for " + limit + " distinct hashes");
    }
    Arrays.fill(table, 0, slots, 0L);
    int mask = slots - 1;
    int distinct = 0;
    boolean zeroSeen = false;  // 0 marks an empty slot, so a hash of 0 is counted apart
    for (int row = 0; row < rows; row++) {
      if (VectorBuffers.isNull(validity, row)) {
        continue;  // a NULL row's hash is the empty text's, which may be no value of the batch
      }
      long hash = hashes[row];
      if (hash == 0) {
        if (zeroSeen) {
          continue;
        }
        zeroSeen = true;
      } else {
        int slot = (int) hash & mask;
        long present;
        while ((present = table[slot]) != 0 && present != hash) {
          slot = (slot + 1) & mask;
        }
        if (present == hash) {
          continue;
        }
        table[slot] = hash;
      }
      if (++distinct > limit) {
        return true;
      }
    }
    return false;
  }
}
