package org.spillway.gpu.expr;

import org.spillway.gpu.vector.ColumnVector;
import org.spillway.gpu.vector.ExprType;
import java.math.BigDecimal;

/** Arithmetic, casts and date functions of {@link VectorEvaluator}: exact kinds fail on overflow. */
public final class VectorArithmetic {
  private static final long[] POWERS_OF_TEN = new long[19];

  static {
    POWERS_OF_TEN[0] = 1;
    for (int i = 1; i < POWERS_OF_TEN.length; i++) {
      POWERS_OF_TEN[i] = POWERS_OF_TEN[i - 1] * 10;
    }
  }

  private VectorArithmetic() {}

  /**
   * {@code l op r}. A long-lane result is written into {@code reuse} when given: an operand's values that nobody
   * else holds (each value is read before its row is written, so an operand may be overwritten in place).
   */
  static ColumnVector arith(Expr.Arith a, ColumnVector l, ColumnVector r, int n, long[] reuse) {
    boolean[] nulls = VectorEvaluator.orNulls(l.nulls, r.nulls, n);
    if (a.type().kind() == ExprType.Kind.FLOAT64) {
      double[] x = l.doubles;
      double[] y = r.doubles;
      double[] out = new double[n];
      switch (a.op()) {
        case PLUS -> { for (int i = 0; i < n; i++) out[i] = x[i] + y[i]; }
        case MINUS -> { for (int i = 0; i < n; i++) out[i] = x[i] - y[i]; }
        case TIMES -> { for (int i = 0; i < n; i++) out[i] = x[i] * y[i]; }
        case DIVIDE -> { for (int i = 0; i < n; i++) out[i] = x[i] / y[i]; }
      }
      return ColumnVector.ofDoubles(out, nulls, n);
    }
    long[] x = l.longs;
    long[] y = r.longs;
    long[] out = reuse != null ? reuse : new long[n];
    try {
      if (nulls == null) {
        switch (a.op()) {
          case PLUS -> { for (int i = 0; i < n; i++) out[i] = Math.addExact(x[i], y[i]); }
          case MINUS -> { for (int i = 0; i < n; i++) out[i] = Math.subtractExact(x[i], y[i]); }
          case TIMES -> { for (int i = 0; i < n; i++) out[i] = Math.multiplyExact(x[i], y[i]); }
          case DIVIDE -> { for (int i = 0; i < n; i++) out[i] = divide(x[i], y[i], a); }
        }
      } else {
        // NULL rows are skipped: they hold 0, and cannot fail on whatever the other operand holds.
        for (int i = 0; i < n; i++) {
          out[i] = nulls[i] ? 0 : switch (a.op()) {
            case PLUS -> Math.addExact(x[i], y[i]);
            case MINUS -> Math.subtractExact(x[i], y[i]);
            case TIMES -> Math.multiplyExact(x[i], y[i]);
            case DIVIDE -> divide(x[i], y[i], a);
          };
        }
      }
    } catch (ArithmeticException e) {
      throw failure(a, e);
    }
    if (a.type().kind() == ExprType.Kind.INT32) {
      checkIntRange(out, a);
    }
    return ColumnVector.ofLongs(a.type(), out, nulls, n);
  }

  /**
   * Long-lane arithmetic of a vector and a constant ({@code c op x} when {@code constantLeft}, else
   * {@code x op c}): what {@link #arith} computes against a constant vector, without building one; into
   * {@code reuse} as there.
   */
  static ColumnVector arithConstant(Expr.Arith a, ColumnVector x, long c, boolean constantLeft, int n,
      long[] reuse) {
    long[] v = x.longs;
    long[] out = reuse != null ? reuse : new long[n];
    boolean[] nulls = x.nulls;
    try {
      if (nulls == null) {
        switch (a.op()) {
          case PLUS -> { for (int i = 0; i < n; i++) out[i] = Math.addExact(v[i], c); }
          case MINUS -> {
            if (constantLeft) {
              for (int i = 0; i < n; i++) out[i] = Math.subtractExact(c, v[i]);
            } else {
              for (int i = 0; i < n; i++) out[i] = Math.subtractExact(v[i], c);
            }
          }
          case TIMES -> { for (int i = 0; i < n; i++) out[i] = Math.multiplyExact(v[i], c); }
          case DIVIDE -> {
            for (int i = 0; i < n; i++) out[i] = constantLeft ? divide(c, v[i], a) : divide(v[i], c, a);
          }
        }
      } else {
        // NULL rows are skipped: they hold 0, and cannot fail on whatever the constant is.
        for (int i = 0; i < n; i++) {
          long l = constantLeft ? c : v[i];
          long r = constantLeft ? v[i] : c;
          out[i] = nulls[i] ? 0 : switch (a.op()) {
            case PLUS -> Math.addExact(l, r);
            case MINUS -> Math.subtractExact(l, r);
            case TIMES -> Math.multiplyExact(l, r);
            case DIVIDE -> divide(l, r, a);
          };
        }
      }
    } catch (ArithmeticException e) {
      throw failure(a, e);
    }
    if (a.type().kind() == ExprType.Kind.INT32) {
      checkIntRange(out, a);
    }
    return ColumnVector.ofLongs(a.type(), out, nulls == null ? null : nulls.clone(), n);
  }

  private static ArithmeticException failure(Expr.Arith a, ArithmeticException e) {
    // Math's *Exact methods fail only on overflow; once hot, the JIT may throw a preallocated ArithmeticException
    // without a message (OmitStackTraceInFastThrow), so the message must not depend on it
    String reason = e.getMessage() != null ? e.getMessage() : "long overflow";
    return new ArithmeticException(a.type() + " overflow or division by zero in " + a + ": " + reason);
  }

  private static long divide(long x, long y, Expr.Arith where) {
    if (y == 0) {
      throw new ArithmeticException("division by zero in " + where);
    }
    return x / y;
  }

  static ColumnVector cast(Expr.Cast c, ColumnVector x, int n) {
    ExprType from = c.operand().type();
    ExprType to = c.type();
    if (to.kind() == ExprType.Kind.DECIMAL || to.kind() == ExprType.Kind.BIG_DECIMAL) {
      return VectorDecimals.cast(c, x, n);
    }
    if (from.equals(to)) {
      return x;
    }
    if (to.kind() == ExprType.Kind.FLOAT64) {
      double[] out = new double[n];
      if (from.kind() == ExprType.Kind.BIG_DECIMAL) {  // BigDecimal.doubleValue(), as Calcite's generated code
        for (int i = 0; i < n; i++) {
          out[i] = x.isNull(i) ? 0 : ((BigDecimal) x.objects[i]).doubleValue();
        }
        return ColumnVector.ofDoubles(out, x.nulls, n);
      }
      double divisor = POWERS_OF_TEN[from.scale()];
      for (int i = 0; i < n; i++) {
        // Division by an exact power of ten rounds once, like BigDecimal.doubleValue() for |unscaled| < 2^53.
        out[i] = from.scale() == 0 ? (double) x.longs[i] : x.longs[i] / divisor;
      }
      return ColumnVector.ofDoubles(out, x.nulls, n);
    }
    if (to.kind() == ExprType.Kind.INT32) {
      checkIntRange(x.longs, c);
    }
    return x.withType(to);
  }

  static ColumnVector extractYear(ColumnVector days, int n) {
    long[] out = new long[n];
    for (int i = 0; i < n; i++) {
      out[i] = yearOfEpochDay(days.longs[i]);
    }
    VectorEvaluator.clearNullRows(out, days.nulls, n);
    return ColumnVector.ofLongs(ExprType.INT64, out, days.nulls, n);
  }

  /** The proleptic Gregorian year of a day count since 1970-01-01 (civil-from-days, no allocation). */
  static long yearOfEpochDay(long epochDay) {
    long z = epochDay + 719468;
    long era = Math.floorDiv(z, 146097);
    long dayOfEra = z - era * 146097;
    long yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146096) / 365;
    long dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100);
    long monthIndex = (5 * dayOfYear + 2) / 153;  // March = 0
    return yearOfEra + era * 400 + (monthIndex >= 10 ? 1 : 0);
  }

  /** 10^scale as a long. */
  public static long powerOfTen(int scale) {
    return POWERS_OF_TEN[scale];
  }

  private static void checkIntRange(long[] values, Expr where) {
    for (long v : values) {
      if (v != (int) v) {
        throw new ArithmeticException("INTEGER overflow (" + v + ") in " + where);
      }
    }
  }
}
