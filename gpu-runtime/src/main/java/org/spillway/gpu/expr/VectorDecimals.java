package org.spillway.gpu.expr;

import org.spillway.gpu.vector.ColumnVector;
import org.spillway.gpu.vector.ExprType;
import java.math.BigDecimal;
import java.math.MathContext;
import java.math.RoundingMode;

/**
 * Decimal casts and {@link Expr.BigDecimalArith} of {@link VectorEvaluator}, computed as Calcite's generated
 * code computes them, so that both backends of a plan give the same values and fail on the same rows:
 * quotients are {@code BigDecimal.divide(y, MathContext.DECIMAL64)} (SqlFunctions.divide), a CAST to
 * DECIMAL(p, s) rounds toward zero and then fails above p digits (Primitive.checkOverflow).
 */
final class VectorDecimals {
  private VectorDecimals() {}

  static ColumnVector arith(Expr.BigDecimalArith a, ColumnVector l, ColumnVector r, int n) {
    boolean[] nulls = VectorEvaluator.orNulls(l.nulls, r.nulls, n);
    Object[] out = new Object[n];
    for (int i = 0; i < n; i++) {
      if (nulls != null && nulls[i]) {
        continue;
      }
      BigDecimal x = value(l, i);
      BigDecimal y = value(r, i);
      out[i] = switch (a.op()) {
        case PLUS -> x.add(y);
        case MINUS -> x.subtract(y);
        case TIMES -> x.multiply(y);
        case DIVIDE -> divide(x, y, a);
      };
    }
    return ColumnVector.ofObjects(ExprType.BIG_DECIMAL, out, nulls, n);
  }

  private static BigDecimal divide(BigDecimal x, BigDecimal y, Expr where) {
    try {
      return x.divide(y, MathContext.DECIMAL64);
    } catch (ArithmeticException e) {  // "Division by zero", or "Division undefined" for 0 / 0
      throw new ArithmeticException("decimal division by zero in " + where + ": " + e.getMessage());
    }
  }

  /** Row {@code i} of an exact column as a BigDecimal (NULL rows give 0 or null, callers skip them). */
  private static BigDecimal value(ColumnVector v, int i) {
    return v.longs != null ? BigDecimal.valueOf(v.longs[i], v.type.scale()) : (BigDecimal) v.objects[i];
  }

  /** A cast whose target is DECIMAL or BIG_DECIMAL. */
  static ColumnVector cast(Expr.Cast c, ColumnVector x, int n) {
    ExprType from = c.operand().type();
    ExprType to = c.type();
    if (c.preservesValue()) {
      return x.withType(to);
    }
    if (to.kind() == ExprType.Kind.BIG_DECIMAL) {
      Object[] out = new Object[n];
      for (int i = 0; i < n; i++) {
        out[i] = x.isNull(i) ? null : value(x, i);
      }
      return ColumnVector.ofObjects(to, out, x.nulls, n);
    }
    long[] out = new long[n];
    if (from.kind() == ExprType.Kind.BIG_DECIMAL) {
      for (int i = 0; i < n; i++) {
        if (!x.isNull(i)) {
          out[i] = fromBigDecimal((BigDecimal) x.objects[i], c);
        }
      }
      return ColumnVector.ofLongs(to, out, x.nulls, n);
    }
    long[] v = x.longs;
    int shift = to.scale() - from.scale();
    if (shift >= 0) {
      long factor = VectorArithmetic.powerOfTen(shift);
      try {
        for (int i = 0; i < n; i++) {
          out[i] = Math.multiplyExact(v[i], factor);
        }
      } catch (ArithmeticException e) {
        throw new ArithmeticException("overflow casting " + from + " to " + to + " in " + c);
      }
    } else {
      long divisor = VectorArithmetic.powerOfTen(-shift);
      for (int i = 0; i < n; i++) {
        out[i] = v[i] / divisor;  // Java's division truncates toward zero: RoundingMode.DOWN
      }
    }
    if (c.precision() > 0) {
      for (int i = 0; i < n; i++) {
        if (!fitsPrecision(out[i], c.precision())) {
          throw notRepresentable(BigDecimal.valueOf(v[i], from.scale()), c);
        }
      }
    }
    return ColumnVector.ofLongs(to, out, x.nulls, n);
  }

  /** The unscaled value at the cast's scale, rounded toward zero; fails above its precision or 64 bits. */
  private static long fromBigDecimal(BigDecimal value, Expr.Cast c) {
    BigDecimal rounded = value.setScale(c.type().scale(), RoundingMode.DOWN);
    if (c.precision() > 0 && rounded.precision() > c.precision()) {
      throw notRepresentable(value, c);
    }
    try {
      return rounded.unscaledValue().longValueExact();
    } catch (ArithmeticException e) {
      throw new ArithmeticException("overflow casting " + value + " to " + c.type() + " in " + c
          + ": more than 64 bits");
    }
  }

  /** Whether an unscaled value has at most {@code precision} digits. */
  static boolean fitsPrecision(long unscaled, int precision) {
    if (precision >= 19) {
      return true;
    }
    long limit = VectorArithmetic.powerOfTen(precision);
    return unscaled < limit && unscaled > -limit;
  }

  private static ArithmeticException notRepresentable(BigDecimal value, Expr.Cast c) {
    return new ArithmeticException("Value " + value + " cannot be represented as a DECIMAL(" + c.precision() + ", "
        + c.type().scale() + ") in " + c);
  }
}
