package org.spillway.gpu.expr;

import org.spillway.gpu.vector.ColumnVector;
import org.spillway.gpu.vector.ExprType;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigDecimal;
import java.math.MathContext;
import java.math.RoundingMode;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Decimal casts and BigDecimal arithmetic of the vector evaluator, against java.math on fresh random values
 * (the adapter's SpillwayDecimalDivisionTest compares them with Calcite's generated code through SQL).
 */
class VectorDecimalsTest {
  private static final ExprType DEC2 = ExprType.decimal(2);
  private static final ExprType DEC6 = ExprType.decimal(6);

  @Test void quotientsAreBigDecimalDivisionsToSixteenDigits() {
    long seed = System.nanoTime();
    Random random = new Random(seed);
    int n = 2000;
    long[] x = new long[n];
    long[] y = new long[n];
    boolean[] nulls = new boolean[n];
    for (int i = 0; i < n; i++) {
      x[i] = random.nextLong() >> random.nextInt(64);
      y[i] = random.nextLong() >> random.nextInt(63);
      y[i] = y[i] == 0 ? 7 : y[i];
      nulls[i] = random.nextInt(10) == 0;
      x[i] = nulls[i] ? 0 : x[i];
    }
    Expr quotient = new Expr.BigDecimalArith(Expr.ArithOp.DIVIDE, new Expr.Column(0, DEC2), new Expr.Column(1, DEC6));
    ColumnVector out = VectorEvaluator.evaluate(quotient, List.of(ColumnVector.ofLongs(DEC2, x, nulls, n),
        ColumnVector.ofLongs(DEC6, y, null, n))::get, n);
    assertEquals(ExprType.BIG_DECIMAL, out.type);
    for (int i = 0; i < n; i++) {
      BigDecimal expected = nulls[i] ? null
          : BigDecimal.valueOf(x[i], 2).divide(BigDecimal.valueOf(y[i], 6), MathContext.DECIMAL64);
      assertEquals(expected, out.isNull(i) ? null : out.objects[i], "seed " + seed + ", row " + i);
    }
  }

  @Test void aCastOfAQuotientRoundsTheSixteenDigitsTowardZero() {
    // 19999999999999999 / 20000000000000000 = 0.99999999999999995 exactly: 16 digits round it (half-even) to
    // 1.000000000000000, which the cast keeps as 1.00; truncating the exact quotient would give 0.99.
    Expr quotient = new Expr.BigDecimalArith(Expr.ArithOp.DIVIDE, new Expr.Column(0, ExprType.INT64),
        new Expr.Column(1, ExprType.INT64));
    ColumnVector[] columns = {longs(ExprType.INT64, 19999999999999999L, -2, 2),
        longs(ExprType.INT64, 20000000000000000L, 3, 3)};
    ColumnVector out = VectorEvaluator.evaluate(new Expr.Cast(quotient, DEC2, 15), i -> columns[i], 3);
    assertArrayEquals(new long[] {100, -66, 66}, out.longs);
    assertThrows(ArithmeticException.class, () -> VectorEvaluator.evaluate(new Expr.Cast(quotient, DEC2, 2),
        i -> columns[i], 3), "1.00 has three digits");
  }

  @Test void decimalCastsRoundTowardZeroAndCheckThePrecision() {
    ColumnVector v = longs(ExprType.decimal(3), 1239, -1239, 999, -5, 0);
    Expr column = new Expr.Column(0, ExprType.decimal(3));
    assertArrayEquals(new long[] {123, -123, 99, 0, 0}, VectorEvaluator.evaluate(
        new Expr.Cast(column, DEC2, 3), i -> v, 5).longs);
    ArithmeticException e = assertThrows(ArithmeticException.class,
        () -> VectorEvaluator.evaluate(new Expr.Cast(column, DEC2, 2), i -> v, 5));
    assertTrue(e.getMessage().startsWith("Value 1.239 cannot be represented as a DECIMAL(2, 2)"), e.getMessage());
    ColumnVector min = longs(ExprType.INT64, Long.MIN_VALUE);
    assertThrows(ArithmeticException.class, () -> VectorEvaluator.evaluate(
        new Expr.Cast(new Expr.Column(0, ExprType.INT64), ExprType.decimal(0), 18), i -> min, 1));
  }

  @Test void nullRowsNeverFail() {
    boolean[] nulls = {true, false};
    ColumnVector x = ColumnVector.ofLongs(DEC2, new long[] {0, 5}, nulls, 2);
    ColumnVector y = ColumnVector.ofLongs(DEC2, new long[] {0, 0}, new boolean[] {false, true}, 2);
    ColumnVector[] columns = {x, y};
    Expr quotient = new Expr.BigDecimalArith(Expr.ArithOp.DIVIDE, new Expr.Column(0, DEC2), new Expr.Column(1, DEC2));
    ColumnVector out = VectorEvaluator.evaluate(new Expr.Cast(quotient, DEC2, 4), i -> columns[i], 2);
    assertTrue(out.isNull(0) && out.isNull(1));
    ColumnVector[] zeroDivisor = {x, ColumnVector.ofLongs(DEC2, new long[] {0, 0}, null, 2)};
    ArithmeticException e = assertThrows(ArithmeticException.class,
        () -> VectorEvaluator.evaluate(quotient, i -> zeroDivisor[i], 2), "5.00 / 0.00");
    assertTrue(e.getMessage().contains("Division by zero"), e.getMessage());
  }

  @Test void bigDecimalColumnsConcatenateGatherAndCompare() {
    Object[] a = {new BigDecimal("1.5"), null};
    Object[] b = {new BigDecimal("1.50"), new BigDecimal("1E+2")};
    ColumnVector left = ColumnVector.ofObjects(ExprType.BIG_DECIMAL, a, new boolean[] {false, true}, 2);
    ColumnVector right = ColumnVector.ofObjects(ExprType.BIG_DECIMAL, b, null, 2);
    ColumnVector both = ColumnVector.concat(ExprType.BIG_DECIMAL, List.of(left, right));
    assertEquals(new BigDecimal("1E+2"), both.gather(new int[] {3}, 1).objects[0]);
    assertNull(both.objects[1]);
    ColumnVector[] columns = {left, right};
    ColumnVector eq = VectorEvaluator.evaluate(new Expr.Compare(Expr.CompareOp.EQ,
        new Expr.Column(0, ExprType.BIG_DECIMAL), new Expr.Column(1, ExprType.BIG_DECIMAL)), i -> columns[i], 2);
    assertEquals(1, eq.longs[0], "1.5 = 1.50 as BigDecimal.compareTo says");
    assertTrue(eq.isNull(1));
  }

  @Test void arithmeticOnAQuotientIsExact() {
    ColumnVector[] columns = {longs(DEC2, 100), longs(ExprType.INT64, 3)};
    Expr third = new Expr.BigDecimalArith(Expr.ArithOp.DIVIDE, new Expr.Column(0, DEC2), new Expr.Column(1,
        ExprType.INT64));
    Expr times = new Expr.BigDecimalArith(Expr.ArithOp.TIMES, third, new Expr.Column(1, ExprType.INT64));
    BigDecimal expected = new BigDecimal("1.00").divide(new BigDecimal(3), MathContext.DECIMAL64)
        .multiply(new BigDecimal(3));
    assertEquals(expected, VectorEvaluator.evaluate(times, i -> columns[i], 1).objects[0]);
    assertEquals(new BigDecimal("0.9999999999999999"), expected);
    assertEquals(expected.setScale(2, RoundingMode.DOWN).unscaledValue().longValue(),
        VectorEvaluator.evaluate(new Expr.Cast(times, DEC2, 3), i -> columns[i], 1).longs[0]);
  }

  private static ColumnVector longs(ExprType type, long... values) {
    return ColumnVector.ofLongs(type, values, null, values.length);
  }
}
