package org.spillway.storage;

import java.util.Arrays;
import java.util.BitSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

/**
 * Which columns of a stored table are keys: no NULLs and no value twice. The planner rewrites plans on this
 * (an aggregate below a join on a key), so the answer must be exact; the catalog's distinct counts are
 * HyperLogLog estimates capped at the rows (a column of 10,000 prices with a few repeats reads as 10,000
 * distinct), so they only pick the candidates, and the values of each candidate are checked once, on first
 * ask. Only integral columns (INTEGER, BIGINT, DATE, DECIMAL) are checked; text columns are never keys here.
 * Two columns are a key together where either is one alone, or where their pairs of values are distinct (a
 * composite primary key such as partsupp's), checked the same way over one long per row packing both.
 */
final class KeyColumns {
  /**
   * A candidate's estimated distinct values are at least this share of its rows; far below any HyperLogLog
   * error of a truly unique column, so no key is missed.
   */
  static final double CANDIDATE_SHARE = 0.9;

  /** A value range up to this many times the rows is checked with one bit per value, else by sorting. */
  private static final long BITMAP_RANGE_PER_ROW = 16;

  private final StoredTable table;
  private final ConcurrentMap<Integer, Boolean> known = new ConcurrentHashMap<>();
  private final ConcurrentMap<Long, Boolean> knownPairs = new ConcurrentHashMap<>();

  KeyColumns(StoredTable table) {
    this.table = table;
  }

  /** Whether column {@code column} holds no NULL and no value twice. */
  boolean isKey(int column) {
    return known.computeIfAbsent(column, this::check);
  }

  /** Whether columns {@code first} and {@code second} together hold no NULL and no pair of values twice. */
  boolean isKey(int first, int second) {
    if (isKey(first) || isKey(second)) {
      return true;
    }
    int low = Math.min(first, second);
    int high = Math.max(first, second);
    return knownPairs.computeIfAbsent((long) low << 32 | high, k -> checkPair(low, high));
  }

  private boolean check(int column) {
    return integralWithoutNulls(column)
        && table.statistics().column(column).distinctCount() >= CANDIDATE_SHARE * table.rowCount()
        && distinct(table, b -> table.reader(b, column)::getLong);
  }

  private boolean integralWithoutNulls(int column) {
    ColumnKind kind = table.schema().column(column).type().kind();
    return !kind.isText() && kind != ColumnKind.DOUBLE && table.statistics().column(column).nullCount() == 0;
  }

  /**
   * Whether two integral columns without NULLs hold distinct pairs: a candidate where the product of their distinct
   * counts reaches the rows; each pair is packed into one long (the first's offset from its minimum times the
   * second's span, plus the second's offset), where the spans allow.
   */
  private boolean checkPair(int first, int second) {
    if (!integralWithoutNulls(first) || !integralWithoutNulls(second)
        || (double) table.statistics().column(first).distinctCount() * table.statistics().column(second)
            .distinctCount() < CANDIDATE_SHARE * table.rowCount()) {
      return false;
    }
    long[] a = minMax(first);
    long[] b = minMax(second);
    long spanA = a[1] - a[0] + 1;
    long spanB = b[1] - b[0] + 1;
    if (spanA <= 0 || spanB <= 0 || Math.multiplyHigh(spanA, spanB) != 0 || spanA * spanB < 0) {
      return false;  // the pairs do not pack into a long: not taken as a key
    }
    return distinct(table, batch -> {
      ColumnReader x = table.reader(batch, first);
      ColumnReader y = table.reader(batch, second);
      return row -> (x.getLong(row) - a[0]) * spanB + (y.getLong(row) - b[0]);
    });
  }

  private long[] minMax(int column) {
    long min = Long.MAX_VALUE;
    long max = Long.MIN_VALUE;
    for (int b = 0; b < table.batches().size(); b++) {
      ColumnReader reader = table.reader(b, column);
      for (int row = 0; row < reader.size(); row++) {
        long v = reader.getLong(row);
        min = Math.min(min, v);
        max = Math.max(max, v);
      }
    }
    return new long[] {min, max};
  }

  /** The values checked for one batch, by row. */
  private interface BatchValues {
    long get(int row);
  }

  /** The values of each batch of a table, by batch. */
  private interface TableValues {
    BatchValues batch(int batch);
  }

  /**
   * Whether values without NULLs are distinct: one pass when they ascend in batch order (keys are usually written in
   * order), else a bitmap over their range or a sorted copy.
   */
  private static boolean distinct(StoredTable table, TableValues values) {
    int batches = table.batches().size();
    long rows = 0;
    long min = Long.MAX_VALUE;
    long max = Long.MIN_VALUE;
    boolean ascending = true;
    long previous = Long.MIN_VALUE;
    boolean first = true;
    for (int b = 0; b < batches; b++) {
      BatchValues reader = values.batch(b);
      int size = table.batches().get(b).getRowCount();
      for (int row = 0; row < size; row++) {
        long v = reader.get(row);
        ascending &= first || v > previous;
        first = false;
        previous = v;
        min = Math.min(min, v);
        max = Math.max(max, v);
      }
      rows += size;
    }
    if (ascending || rows <= 1) {
      return true;
    }
    long range = max - min + 1;
    if (range > 0 && range <= BITMAP_RANGE_PER_ROW * rows && range <= Integer.MAX_VALUE) {
      return distinctInRange(table, values, min, (int) range);
    }
    if (rows > Integer.MAX_VALUE - 8) {
      return false;  // too many to copy; not taken as a key
    }
    long[] sorted = new long[(int) rows];
    int next = 0;
    for (int b = 0; b < batches; b++) {
      BatchValues reader = values.batch(b);
      int size = table.batches().get(b).getRowCount();
      for (int row = 0; row < size; row++) {
        sorted[next++] = reader.get(row);
      }
    }
    Arrays.parallelSort(sorted);
    for (int i = 1; i < sorted.length; i++) {
      if (sorted[i] == sorted[i - 1]) {
        return false;
      }
    }
    return true;
  }

  private static boolean distinctInRange(StoredTable table, TableValues values, long min, int range) {
    BitSet seen = new BitSet(range);
    for (int b = 0; b < table.batches().size(); b++) {
      BatchValues reader = values.batch(b);
      int size = table.batches().get(b).getRowCount();
      for (int row = 0; row < size; row++) {
        int offset = (int) (reader.get(row) - min);
        if (seen.get(offset)) {
          return false;
        }
        seen.set(offset);
      }
    }
    return true;
  }
}
