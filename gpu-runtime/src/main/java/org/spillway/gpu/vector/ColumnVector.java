package org.spillway.gpu.vector;

import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.IntStream;

/**
 * A column of a morsel in the CPU backend: one primitive array for the values (long lane, double lane or, for
 * TEXT and BIG_DECIMAL, objects) and an optional null flag per row. Null rows of the long and double lanes hold 0, so
 * that arithmetic over them can never overflow or divide by zero.
 */
public final class ColumnVector {
  /**
   * Rows from which {@link #concat} and {@link #gatherOrNull} copy on all cores: a join's key column (32 M rows in
   * TPC-H Q3 at SF 10) took 100-150 ms on one thread, more than the GPU join itself.
   */
  public static final int PARALLEL_ROWS = 1 << 20;
  /** Rows per task of a gather. */
  private static final int GATHER_CHUNK = 1 << 16;

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

  /** A TEXT column of strings or a BIG_DECIMAL column (its arrays are taken over, not copied). */
  public static ColumnVector ofObjects(ExprType type, Object[] values, boolean[] nulls, int size) {
    check(type.isObject(), type);
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
    if (type.isObject()) {
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

  /**
   * The smallest and largest long-lane values among rows {@code 0 .. n-1} that are not NULL, or null when every one
   * is NULL.
   */
  public long[] nonNullRange(int n) {
    long min = Long.MAX_VALUE;
    long max = Long.MIN_VALUE;
    for (int i = 0; i < n; i++) {
      if (!isNull(i)) {
        min = Math.min(min, longs[i]);
        max = Math.max(max, longs[i]);
      }
    }
    return min > max ? null : new long[] {min, max};
  }

  /** Whether a row is NULL. */
  public boolean isNull(int row) {
    return nulls != null && nulls[row];
  }

  /** The rows at the given positions, in that order. */
  public ColumnVector gather(int[] rows, int count) {
    return gatherOrNull(rows, count);
  }

  /** The rows at the given positions, in that order; position -1 gives NULL (an outer join's missing side). */
  public ColumnVector gatherOrNull(int[] rows, int count) {
    long[] l = longs != null ? new long[count] : null;
    double[] d = doubles != null ? new double[count] : null;
    Object[] o = objects != null ? new Object[count] : null;
    if (count < PARALLEL_ROWS) {
      // a morsel's gather: one pass on this thread, null flags allocated only once a NULL turns up
      boolean[] n = gatherRange(rows, 0, count, l, d, o, null);
      return new ColumnVector(type, count, l, d, o, n);
    }
    boolean[] n = new boolean[count];
    AtomicBoolean anyNull = new AtomicBoolean();
    IntStream.range(0, (count + GATHER_CHUNK - 1) / GATHER_CHUNK).parallel().forEach(chunk -> {
      int from = chunk * GATHER_CHUNK;
      if (gatherRange(rows, from, Math.min(count, from + GATHER_CHUNK), l, d, o, n) != null) {
        anyNull.set(true);
      }
    });
    return new ColumnVector(type, count, l, d, o, anyNull.get() ? n : null);
  }

  /**
   * Copies the values at {@code rows[from .. end-1]} into the lanes; a NULL row (or position -1) keeps 0 (or null)
   * and is flagged in {@code n}, which is allocated on the first one when null. Returns {@code n}, or null if no
   * row of the range was NULL and none was given.
   */
  private boolean[] gatherRange(int[] rows, int from, int end, long[] l, double[] d, Object[] o, boolean[] n) {
    boolean seen = false;
    if (l != null && nulls == null) {
      for (int i = from; i < end; i++) {
        int r = rows[i];
        if (r >= 0) {
          l[i] = longs[r];
        } else {
          n = n == null ? new boolean[end] : n;
          n[i] = true;
          seen = true;
        }
      }
      return seen ? n : null;
    }
    for (int i = from; i < end; i++) {
      int r = rows[i];
      if (r < 0 || nulls != null && nulls[r]) {
        n = n == null ? new boolean[end] : n;
        n[i] = true;  // the value stays 0 (or null)
        seen = true;
      } else if (l != null) {
        l[i] = longs[r];
      } else if (d != null) {
        d[i] = doubles[r];
      } else {
        o[i] = objects[r];
      }
    }
    return seen ? n : null;
  }

  /** Rows {@code offset .. offset + count - 1}: this column itself when that is all of it, else a copy. */
  public ColumnVector slice(int offset, int count) {
    if (offset == 0 && count == size) {
      return this;
    }
    if (offset < 0 || count < 0 || offset + count > size) {
      throw new IndexOutOfBoundsException("rows " + offset + ".." + (offset + count - 1) + " outside a column of "
          + size + " rows");
    }
    boolean[] n = nulls == null ? null : Arrays.copyOfRange(nulls, offset, offset + count);
    return new ColumnVector(type, count, longs == null ? null : Arrays.copyOfRange(longs, offset, offset + count),
        doubles == null ? null : Arrays.copyOfRange(doubles, offset, offset + count),
        objects == null ? null : Arrays.copyOfRange(objects, offset, offset + count), n);
  }

  /** The columns, all of {@code type}, one after the other (the single column itself when there is one). */
  public static ColumnVector concat(ExprType type, List<ColumnVector> parts) {
    if (parts.size() == 1 && parts.get(0).type.equals(type)) {
      return parts.get(0);
    }
    long total = 0;
    boolean anyNull = false;
    for (ColumnVector p : parts) {
      if (!p.type.equals(type)) {
        throw new IllegalArgumentException("cannot concatenate a " + p.type + " column into " + type);
      }
      total += p.size;
      anyNull |= p.nulls != null;
    }
    if (total > Integer.MAX_VALUE - 8) {
      throw new IllegalArgumentException(total + " rows do not fit one column vector");
    }
    int n = (int) total;
    long[] l = type.isLong() ? new long[n] : null;
    double[] d = type.kind() == ExprType.Kind.FLOAT64 ? new double[n] : null;
    Object[] o = type.isObject() ? new Object[n] : null;
    boolean[] nulls = anyNull ? new boolean[n] : null;
    int[] at = new int[parts.size()];
    for (int i = 1; i < at.length; i++) {
      at[i] = at[i - 1] + parts.get(i - 1).size;
    }
    IntStream copies = IntStream.range(0, parts.size());
    (n >= PARALLEL_ROWS ? copies.parallel() : copies).forEach(i -> {
      ColumnVector p = parts.get(i);
      if (l != null) {
        System.arraycopy(p.longs, 0, l, at[i], p.size);
      } else if (d != null) {
        System.arraycopy(p.doubles, 0, d, at[i], p.size);
      } else {
        System.arraycopy(p.objects, 0, o, at[i], p.size);
      }
      if (p.nulls != null) {
        System.arraycopy(p.nulls, 0, nulls, at[i], p.size);
      }
    });
    return new ColumnVector(type, n, l, d, o, nulls);
  }

  /** This column relabelled with another type of the same lane (no copy). */
  public ColumnVector withType(ExprType newType) {
    return new ColumnVector(newType, size, longs, doubles, objects, nulls);
  }

  private static void check(boolean ok, ExprType type) {
    if (!ok) {
      throw new IllegalArgumentException("type " + type + " does not live in this lane");
    }
  }
}
