package org.spillway.gpu.pipeline.sort;

import org.spillway.gpu.vector.ColumnVector;
import org.spillway.gpu.vector.ExprType;

import java.math.BigDecimal;
import java.util.List;

/**
 * Compares rows of whole columns by sort keys, then by row id: the row id makes every order total, so a sort is
 * stable and its result does not depend on how the rows were split among workers.
 */
final class RowComparator {
  private static final BigDecimal LONG_MIN = BigDecimal.valueOf(Long.MIN_VALUE);
  private static final BigDecimal LONG_MAX = BigDecimal.valueOf(Long.MAX_VALUE);
  private final ColumnVector[] columns;
  private final SortKey[] keys;

  RowComparator(ColumnVector[] columns, List<SortKey> keys) {
    this.columns = new ColumnVector[keys.size()];
    this.keys = keys.toArray(new SortKey[0]);
    for (int k = 0; k < this.keys.length; k++) {
      ColumnVector column = columns[this.keys[k].column()];
      this.columns[k] = column.type.kind() == ExprType.Kind.BIG_DECIMAL ? unscaledLongs(column) : column;
    }
  }

  /**
   * A BIG_DECIMAL key as its values unscaled at their largest scale, where every one fits 64 bits (the sums of
   * Q11's or Q18's decimals): comparing longs orders them as comparing the BigDecimals does, at a fraction of the
   * cost. The column itself where a value does not fit.
   */
  static ColumnVector unscaledLongs(ColumnVector column) {
    int scale = Integer.MIN_VALUE;
    for (int r = 0; r < column.size; r++) {
      if (!column.isNull(r)) {
        scale = Math.max(scale, ((BigDecimal) column.objects[r]).scale());
      }
    }
    long[] values = new long[column.size];
    for (int r = 0; r < column.size; r++) {
      if (column.isNull(r)) {
        continue;
      }
      // exact: no scale is larger; moving the point keeps a value that fits 64 bits compact (no BigInteger made)
      BigDecimal unscaled = ((BigDecimal) column.objects[r]).setScale(scale).movePointRight(scale);
      if (unscaled.compareTo(LONG_MIN) < 0 || unscaled.compareTo(LONG_MAX) > 0) {
        return column;
      }
      values[r] = unscaled.longValue();
    }
    return ColumnVector.ofLongs(ExprType.INT64, values, column.nulls, column.size);
  }

  /** Key {@code k}'s column as compared: a BIG_DECIMAL key's values unscaled to longs where they fit. */
  ColumnVector keyColumn(int k) {
    return columns[k];
  }

  /** Negative, zero or positive as row {@code a} sorts before, with or after row {@code b}. */
  int compare(int a, int b) {
    for (int k = 0; k < keys.length; k++) {
      int c = compareKey(columns[k], keys[k], a, b);
      if (c != 0) {
        return c;
      }
    }
    return Integer.compare(a, b);
  }

  private static int compareKey(ColumnVector column, SortKey key, int a, int b) {
    boolean aNull = column.isNull(a);
    boolean bNull = column.isNull(b);
    if (aNull || bNull) {
      if (aNull && bNull) {
        return 0;
      }
      // NULLs go first or last whatever the direction
      return aNull == key.nullsFirst() ? -1 : 1;
    }
    int c = compareValues(column, a, b);
    return key.descending() ? -c : c;
  }

  /**
   * Values in SQL's order. STRING codes index a sorted dictionary ({@link ExprType#STRING}), so comparing codes
   * compares the strings; FLOAT64 orders -0.0 before 0.0 and NaN after every number, as Java's boxed doubles
   * (and so Calcite's enumerable sort) do; BIG_DECIMAL compares numerically, whatever the scales.
   */
  private static int compareValues(ColumnVector column, int a, int b) {
    ExprType.Kind kind = column.type.kind();
    return switch (kind) {
      case FLOAT64 -> Double.compare(column.doubles[a], column.doubles[b]);
      case TEXT -> ((String) column.objects[a]).compareTo((String) column.objects[b]);
      case BIG_DECIMAL -> ((BigDecimal) column.objects[a]).compareTo((BigDecimal) column.objects[b]);
      default -> Long.compare(column.longs[a], column.longs[b]);
    };
  }
}
