package org.spillway.gpu.pipeline.sort;

import java.util.Arrays;
import org.spillway.gpu.vector.ColumnVector;

/**
 * The order of rows by one key of the long lane (integers, dates, dictionary codes, decimals unscaled to 64 bits): an
 * LSD radix sort of the key words made to order as unsigned numbers (the sign bit flipped, and every bit for a
 * descending key), eight bits a pass, skipping the passes whose byte every key shares. It is stable, so equal keys
 * keep the rows' order, as the comparator's last key (the row id) keeps them; NULL rows come first or last, in row
 * order. A few tight loops, fast from a query's first run on, where a merge sort's comparator calls wait for the JIT:
 * Q11's sort of 26,959 sums took 20-40 ms in the first runs at SF 30, and 8,685 at SF 10 took 7.9 ms. Several keys
 * packed into one word per row ({@link NormalizedKeys}) sort the same way ({@link #orderWords}).
 */
final class RadixOrder {
  private RadixOrder() {}

  /** Whether {@link #order} sorts by this key column: one in the long lane (FLOAT64, TEXT and BIG_DECIMAL are not). */
  static boolean sorts(ColumnVector key) {
    return key.longs != null;
  }

  /** Row ids {@code 0 .. n-1} in the order of {@code key} (a column {@link #sorts} takes) under {@code sortKey}. */
  static int[] order(ColumnVector key, SortKey sortKey, int n) {
    int nullRows = 0;
    for (int r = 0; r < n; r++) {
      nullRows += key.isNull(r) ? 1 : 0;
    }
    int m = n - nullRows;
    long[] words = new long[m];
    int[] ids = new int[m];
    int[] nullIds = new int[nullRows];
    long flip = sortKey.descending() ? Long.MAX_VALUE : Long.MIN_VALUE;
    for (int r = 0, i = 0, j = 0; r < n; r++) {
      if (key.isNull(r)) {
        nullIds[j++] = r;
      } else {
        words[i] = key.longs[r] ^ flip;
        ids[i++] = r;
      }
    }
    ids = sortUnsigned(words, ids);
    int[] out = new int[n];
    System.arraycopy(nullIds, 0, out, sortKey.nullsFirst() ? 0 : m, nullRows);
    System.arraycopy(ids, 0, out, sortKey.nullsFirst() ? nullRows : 0, m);
    return out;
  }

  /** Row ids {@code 0 .. n-1} in the order of their words as unsigned numbers, ties in row order. */
  static int[] orderWords(long[] words, int n) {
    int[] ids = new int[n];
    for (int i = 0; i < n; i++) {
      ids[i] = i;
    }
    return sortUnsigned(words.clone(), ids);
  }

  /** Sorts {@code ids} by {@code words} (both reordered; unsigned, stable) and returns the ids in order. */
  private static int[] sortUnsigned(long[] words, int[] ids) {
    int m = ids.length;
    long differ = 0;
    for (int i = 1; i < m; i++) {
      differ |= words[i] ^ words[0];
    }
    long[] wordsTo = new long[m];
    int[] idsTo = new int[m];
    int[] starts = new int[257];
    for (int shift = 0; shift < 64; shift += 8) {
      if ((differ >>> shift & 0xFF) == 0) {
        continue;  // every key holds the same byte here
      }
      Arrays.fill(starts, 0);
      for (int i = 0; i < m; i++) {
        starts[(int) (words[i] >>> shift & 0xFF) + 1]++;
      }
      for (int b = 0; b < 256; b++) {
        starts[b + 1] += starts[b];
      }
      for (int i = 0; i < m; i++) {
        int at = starts[(int) (words[i] >>> shift & 0xFF)]++;
        wordsTo[at] = words[i];
        idsTo[at] = ids[i];
      }
      long[] w = words;
      words = wordsTo;
      wordsTo = w;
      int[] d = ids;
      ids = idsTo;
      idsTo = d;
    }
    return ids;
  }
}
