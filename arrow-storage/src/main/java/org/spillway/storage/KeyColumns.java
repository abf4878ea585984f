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

  KeyColumns(StoredTable table) {
    this.table = table;
  }

  /** Whether column {@code column} holds no NULL and no value twice. */
  boolean isKey(int column) {
    return known.computeIfAbsent(column, this::check);
  }

  private boolean check(int column) {
    ColumnKind kind = table.schema().column(column).type().kind();
    ColumnStatistics stats = table.statistics().column(column);
    long rows = table.rowCount();
    if (kind.isText() || kind == ColumnKind.DOUBLE || stats.nullCount() > 0
        || stats.distinctCount() < CANDIDATE_SHARE * rows) {
      return false;
    }
    return distinct(table, column);
  }

  /**
   * Whether the values of an integral column without NULLs are distinct: one pass when they ascend in
   * batch order (keys are usually written in order), else a bitmap over their range or a sorted copy.
   */
  static boolean distinct(StoredTable table, int column) {
    int batches = table.batches().size();
    long rows = 0;
    long min = Long.MAX_VALUE;
    long max = Long.MIN_VALUE;
    boolean ascending = true;
    long previous = Long.MIN_VALUE;
    boolean first = true;
    for (int b = 0; b < batches; b++) {
      ColumnReader reader = table.reader(b, column);
      for (int row = 0; row < reader.size(); row++) {
        long v = reader.getLong(row);
        ascending &= first || v > previous;
        first = false;
        previous = v;
        min = Math.min(min, v);
        max = Math.max(max, v);
      }
      rows += reader.size();
    }
    if (ascending || rows <= 1) {
      return true;
    }
    long range = max - min + 1;
    if (range > 0 && range <= BITMAP_RANGE_PER_ROW * rows && range <= Integer.MAX_VALUE) {
      return distinctInRange(table, column, min, (int) range);
    }
    if (rows > Integer.MAX_VALUE - 8) {
      return false;  // too many to copy; not taken as a key
    }
    long[] values = new long[(int) rows];
    int next = 0;
    for (int b = 0; b < batches; b++) {
      ColumnReader reader = table.reader(b, column);
      for (int row = 0; row < reader.size(); row++) {
        values[next++] = reader.getLong(row);
      }
    }
    Arrays.parallelSort(values);
    for (int i = 1; i < values.length; i++) {
      if (values[i] == values[i - 1]) {
        return false;
      }
    }
    return true;
  }

  private static boolean distinctInRange(StoredTable table, int column, long min, int range) {
    BitSet seen = new BitSet(range);
    for (int b = 0; b < table.batches().size(); b++) {
      ColumnReader reader = table.reader(b, column);
      for (int row = 0; row < reader.size(); row++) {
        int offset = (int) (reader.getLong(row) - min);
        if (seen.get(offset)) {
          return false;
        }
        seen.set(offset);
      }
    }
    return true;
  }
}
