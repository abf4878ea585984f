package org.spillway.gpu.pipeline.sort;

import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.spillway.gpu.vector.ColumnVector;
import org.spillway.gpu.vector.ExprType;

/**
 * Sort keys packed into one word per row, as DuckDB normalizes keys, here within one machine word: each key becomes
 * its value's rank above the key's smallest (a long-lane key) or its string's rank among the key's distinct strings
 * (a text key), flipped for a descending key and moved by one to put NULLs first or last; the keys' ranks then lie
 * side by side, the first key in the highest bits. Words compared as unsigned numbers order their rows as the
 * comparator's keys do, so a radix sort of the words ({@link RadixOrder#orderWords}) orders the rows (Q16's four
 * keys, two of them text, fit 25 bits). None where a key is of another kind, a text key holds too many distinct
 * strings for ranking them to pay, or the ranks need more than 64 bits together.
 */
final class NormalizedKeys {
  private NormalizedKeys() {}

  /** The packed words of rows {@code 0 .. n-1}, or null where the keys do not pack (above). */
  static long[] words(RowComparator comparator, List<SortKey> keys, int n) {
    long[][] ranks = new long[keys.size()][];
    long[] ranges = new long[keys.size()];
    boolean[] nulls = new boolean[keys.size()];
    int bits = 0;
    for (int k = 0; k < keys.size(); k++) {
      ColumnVector column = comparator.keyColumn(k);
      ranks[k] = new long[n];
      ranges[k] = column.longs != null ? longRanks(column, n, ranks[k])
          : column.type.kind() == ExprType.Kind.TEXT ? textRanks(column, n, ranks[k]) : -1;
      if (ranges[k] < 0) {
        return null;
      }
      for (int r = 0; r < n && !nulls[k]; r++) {
        nulls[k] = column.isNull(r);
      }
      long largest = ranges[k] + (nulls[k] ? 1 : 0);
      bits += largest == 0 ? 0 : 64 - Long.numberOfLeadingZeros(largest);
      if (bits > 64) {
        return null;
      }
    }
    long[] words = new long[n];
    for (int k = 0; k < keys.size(); k++) {
      ColumnVector column = comparator.keyColumn(k);
      SortKey key = keys.get(k);
      long largest = ranges[k] + (nulls[k] ? 1 : 0);
      int width = largest == 0 ? 0 : 64 - Long.numberOfLeadingZeros(largest);
      long nullRank = key.nullsFirst() ? 0 : ranges[k] + 1;
      long shift = nulls[k] && key.nullsFirst() ? 1 : 0;
      long[] rank = ranks[k];
      for (int r = 0; r < n; r++) {
        long code = column.isNull(r) ? nullRank : (key.descending() ? ranges[k] - rank[r] : rank[r]) + shift;
        words[r] = width == 0 ? words[r] : words[r] << width | code;
      }
    }
    return words;
  }

  /**
   * A long-lane key's values less its smallest into {@code ranks} (NULL rows: 0); returns the largest such rank,
   * or -1 where the values span more than a long can count.
   */
  private static long longRanks(ColumnVector column, int n, long[] ranks) {
    long[] bounds = column.nonNullRange(n);
    if (bounds == null) {
      return 0;  // every row NULL
    }
    long min = bounds[0];
    long range = bounds[1] - min;
    if (range < 0) {
      return -1;  // wider than 2^63: the difference overflowed
    }
    for (int r = 0; r < n; r++) {
      ranks[r] = column.isNull(r) ? 0 : column.longs[r] - min;
    }
    return range;
  }

  /**
   * A text key's ranks among its distinct strings in their order ({@link String#compareTo}, the comparator's) into
   * {@code ranks}; returns the largest rank, or -1 where more than half the rows are distinct strings (ranking them
   * would cost about what sorting the rows does).
   */
  private static long textRanks(ColumnVector column, int n, long[] ranks) {
    Map<String, Integer> ids = new HashMap<>();
    int[] idOf = new int[n];
    for (int r = 0; r < n; r++) {
      if (!column.isNull(r)) {
        Integer id = ids.putIfAbsent((String) column.objects[r], ids.size());
        idOf[r] = id == null ? ids.size() - 1 : id;
        if (ids.size() > Math.max(64, n / 2)) {
          return -1;
        }
      }
    }
    String[] distinct = new String[ids.size()];
    ids.forEach((s, id) -> distinct[id] = s);
    String[] sorted = distinct.clone();
    Arrays.sort(sorted);
    Map<String, Integer> rankOf = new HashMap<>(sorted.length * 2);
    for (int i = 0; i < sorted.length; i++) {
      rankOf.put(sorted[i], i);
    }
    int[] rankOfId = new int[distinct.length];
    for (int id = 0; id < distinct.length; id++) {
      rankOfId[id] = rankOf.get(distinct[id]);
    }
    for (int r = 0; r < n; r++) {
      ranks[r] = column.isNull(r) ? 0 : rankOfId[idOf[r]];
    }
    return Math.max(0, sorted.length - 1);
  }
}
