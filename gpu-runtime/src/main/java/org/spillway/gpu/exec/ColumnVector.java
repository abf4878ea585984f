package org.spillway.gpu.exec;

import java.util.Arrays;

/**
 * A column of a morsel in the CPU backend: one primitive array for the values (long lane, double lane or,
 * for TEXT, objects) and an optional null flag per row. Null rows of the long and double lanes hold 0, so
 * that arithmetic over them can never overflow or divide by zero.
 */
public final class ColumnVector {
  public final ExprType type;
  public final int size;
  public final long[] longs;
  public final double[] doubles;
  public final Object[] objects;
  /** Null flags, or null when no row is null. */
  public final boolean[] nulls;

  private ColumnVector(ExprType type, int size, long[] longs, double[] doubles, Object[] objects,
      boolean[] nulls) {
    this.type = type;
    this.size = size;
    this.longs = longs;
    this.doubles = doubles;
    this.objects = objects;
    this.nulls = nulls;
  }

  /** A long-lane column (its arrays are taken over, not copied). */
  public static ColumnVector ofLongs(ExprType type, long[] values, boolean[] nulls, int size) {
    check(type.isLong(), type);
    return new ColumnVector(type, size, values, null, null, nulls);
  }

  /** A FLOAT64 column (its arrays are taken over, not copied). */
  public static ColumnVector ofDoubles(double[] values, boolean[] nulls, int size) {
    return new ColumnVector(ExprType.FLOAT64, size, null, values, null, nulls);
  }

  /** A TEXT column of strings (its arrays are taken over, not copied). */
  public static ColumnVector ofObjects(ExprType type, Object[] values, boolean[] nulls, int size) {
    check(type.kind() == ExprType.Kind.TEXT, type);
    return new ColumnVector(type, size, null, null, values, nulls);
  }

  /** A column of one value repeated; a null value gives an all-NULL column. */
  public static ColumnVector constant(ExprType type, Object value, int size) {
    boolean[] nulls = null;
    if (value == null) {
      nulls = new boolean[size];
      Arrays.fill(nulls, true);
    }
    if (type.kind() == ExprType.Kind.FLOAT64) {
      double[] d = new double[size];
      if (value != null) {
        Arrays.fill(d, ((Number) value).doubleValue());
      }
      return ofDoubles(d, nulls, size);
    }
    if (type.kind() == ExprType.Kind.TEXT) {
      Object[] o = new Object[size];
      Arrays.fill(o, value);
      return ofObjects(type, o, nulls, size);
    }
    long[] l = new long[size];
    if (value != null) {
      Arrays.fill(l, ((Number) value).longValue());
    }
    return ofLongs(type, l, nulls, size);
  }

  /** Whether a row is NULL. */
  public boolean isNull(int row) {
    return nulls != null && nulls[row];
  }

  /** The rows at the given positions, in that order. */
  public ColumnVector gather(int[] rows, int count) {
    boolean[] n = null;
    if (nulls != null) {
      n = new boolean[count];
      for (int i = 0; i < count; i++) {
        n[i] = nulls[rows[i]];
      }
    }
    if (longs != null) {
      long[] v = new long[count];
      for (int i = 0; i < count; i++) {
        v[i] = longs[rows[i]];
      }
      return new ColumnVector(type, count, v, null, null, n);
    }
    if (doubles != null) {
      double[] v = new double[count];
      for (int i = 0; i < count; i++) {
        v[i] = doubles[rows[i]];
      }
      return new ColumnVector(type, count, null, v, null, n);
    }
    Object[] v = new Object[count];
    for (int i = 0; i < count; i++) {
      v[i] = objects[rows[i]];
    }
    return new ColumnVector(type, count, null, null, v, n);
  }

  /** This column relabelled with another type of the same lane (no copy). */
  ColumnVector withType(ExprType newType) {
    return new ColumnVector(newType, size, longs, doubles, objects, nulls);
  }

  private static void check(boolean ok, ExprType type) {
    if (!ok) {
      throw new IllegalArgumentException("type " + type + " does not live in this lane");
    }
  }
}
