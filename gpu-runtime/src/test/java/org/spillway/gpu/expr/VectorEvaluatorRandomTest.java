package org.spillway.gpu.expr;

import org.spillway.gpu.vector.ColumnVector;
import org.spillway.gpu.vector.ExprType;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** Compares the vector evaluator with the row-at-a-time reference on fresh random expressions and data. */
class VectorEvaluatorRandomTest {
  private static final int TRIALS = 600;

  @Test void randomExpressionsMatchTheReference() {
    long seed = System.nanoTime();
    Random random = new Random(seed);
    RandomExprs gen = new RandomExprs(random);
    int compared = 0;
    for (int trial = 0; trial < TRIALS; trial++) {
      Expr expr = trial % 2 == 0 ? gen.bool(3) : gen.any(3);
      int rows = 1 + random.nextInt(700);
      List<ColumnVector> columns = gen.columns(rows);
      String where = "seed " + seed + ", trial " + trial + ": " + expr;
      ColumnVector actual = evaluatedAsTheReference(expr, columns, rows, where);
      if (actual == null) {
        continue;
      }
      assertEquals(expr.type(), actual.type, where);
      for (int r = 0; r < rows; r++) {
        int row = r;
        if (actual.isNull(r) && actual.longs != null) {
          assertEquals(0, actual.longs[r], () -> where + ": NULL row " + row + " must hold 0");
        }
      }
      compared++;
    }
    assertTrue(compared > TRIALS / 2, "too few comparable trials (" + compared + "), seed " + seed);
  }

  /**
   * Arithmetic with an operand that reads no column runs as a loop against the constant: on either side, a
   * literal or a cast of one, every operator, over columns with NULLs; NULL rows never fail (a constant divided by
   * a NULL row's 0, or anything divided by a zero constant when every row is NULL).
   */
  @Test void arithmeticWithAConstantMatchesTheReference() {
    long seed = System.nanoTime();
    Random random = new Random(seed);
    RandomExprs gen = new RandomExprs(random);
    ExprType dec2 = ExprType.decimal(2);
    for (int trial = 0; trial < 300; trial++) {
      int rows = 1 + random.nextInt(300);
      List<ColumnVector> columns = gen.columns(rows);
      if (random.nextBoolean()) {  // columns without null flags take loops of their own
        columns = columns.stream().map(v -> v.longs != null ? ColumnVector.ofLongs(v.type, v.longs, null, v.size)
            : ColumnVector.ofDoubles(v.doubles, null, v.size)).toList();
      }
      Expr.ArithOp op = Expr.ArithOp.values()[random.nextInt(4)];
      long c = random.nextInt(5) - 2;
      boolean decimal = op != Expr.ArithOp.DIVIDE && random.nextBoolean();
      Expr column = decimal ? new Expr.Column(2, dec2) : new Expr.Column(1, ExprType.INT64);
      Expr constant = decimal ? new Expr.Cast(new Expr.Literal(c, ExprType.INT32), dec2)
          : random.nextBoolean() ? new Expr.Literal(c, ExprType.INT64)
          : new Expr.Arith(Expr.ArithOp.PLUS, new Expr.Literal(c, ExprType.INT64), new Expr.Literal(0L, ExprType.INT64),
              ExprType.INT64);
      ExprType type = decimal && op == Expr.ArithOp.TIMES ? ExprType.decimal(4) : column.type();
      boolean constantLeft = random.nextBoolean();
      Expr expr = constantLeft ? new Expr.Arith(op, constant, column, type) : new Expr.Arith(op, column, constant, type);
      evaluatedAsTheReference(expr, columns, rows, "seed " + seed + ", trial " + trial + ": " + expr);
    }
    ColumnVector allNull = ColumnVector.constant(ExprType.INT64, null, 5);
    Expr byZero = new Expr.Arith(Expr.ArithOp.DIVIDE, new Expr.Column(0, ExprType.INT64),
        new Expr.Literal(0L, ExprType.INT64), ExprType.INT64);
    assertTrue(VectorEvaluator.evaluate(byZero, i -> allNull, 5).isNull(4));
  }

  /**
   * The vector evaluator's value of {@code expr}, checked row by row against the row-at-a-time reference; null where
   * both fail with an ArithmeticException (an overflow or a division by zero), which must then fail in both.
   */
  private static ColumnVector evaluatedAsTheReference(Expr expr, List<ColumnVector> columns, int rows, String where) {
    Object[] expected = new Object[rows];
    boolean referenceFailed = false;
    try {
      for (int r = 0; r < rows; r++) {
        expected[r] = RowReference.eval(expr, RowReference.row(columns, r));
      }
    } catch (ArithmeticException e) {
      referenceFailed = true;
    }
    ColumnVector actual;
    try {
      actual = VectorEvaluator.evaluate(expr, columns::get, rows);
    } catch (ArithmeticException e) {
      assertTrue(referenceFailed, () -> where + " failed only in the vector evaluator: " + e.getMessage());
      return null;
    }
    if (referenceFailed) {
      fail(where + " failed in the reference but not in the vector evaluator");
    }
    assertEquals(rows, actual.size, where);
    for (int r = 0; r < rows; r++) {
      int row = r;
      assertEquals(expected[r], RowReference.valueOf(actual, r), () -> where + ", row " + row);
    }
    return actual;
  }

  /**
   * CASE WHEN x IS NULL THEN y ELSE x END (evaluated as COALESCE: x once, y on x's NULL rows) gives the reference's
   * rows, with x and y of any shape, NULL or not, and in columns with and without NULL flags.
   */
  @Test void coalesceMatchesTheReference() {
    long seed = System.nanoTime();
    Random random = new Random(seed);
    RandomExprs gen = new RandomExprs(random);
    for (int trial = 0; trial < 300; trial++) {
      int rows = 1 + random.nextInt(300);
      List<ColumnVector> columns = gen.columns(rows);
      if (trial % 3 == 0) {
        columns = columns.stream().map(v -> v.longs != null ? ColumnVector.ofLongs(v.type, v.longs, null, v.size)
            : ColumnVector.ofDoubles(v.doubles, null, v.size)).toList();
      }
      Expr x = trial % 2 == 0 ? new Expr.Column(1, ExprType.INT64) : gen.int64(2);
      Expr expr = gen.coalesce(x, gen.int64(1));
      evaluatedAsTheReference(expr, columns, rows, "seed " + seed + ", trial " + trial + ": " + expr);
    }
  }

  @Test void overflowIsAnErrorNeverAWrongValue() {
    ColumnVector big = ColumnVector.ofLongs(ExprType.INT64, new long[] {Long.MAX_VALUE / 2, 3}, null, 2);
    Expr times = new Expr.Arith(Expr.ArithOp.TIMES, new Expr.Column(0, ExprType.INT64),
        new Expr.Literal(3L, ExprType.INT64), ExprType.INT64);
    ArithmeticException e = assertThrows(ArithmeticException.class,
        () -> VectorEvaluator.evaluate(times, i -> big, 2));
    assertTrue(e.getMessage().contains("TIMES($0, 3)"), e.getMessage());
    Expr widen = new Expr.Cast(new Expr.Column(0, ExprType.INT64), ExprType.decimal(4));
    assertThrows(ArithmeticException.class, () -> VectorEvaluator.evaluate(widen, i -> big, 2));
  }

  @Test void extractYearAgreesWithJavaTime() {
    long[] days = new long[4000];
    for (int i = 0; i < days.length; i++) {
      days[i] = -800_000 + 400L * i;
    }
    ColumnVector dates = ColumnVector.ofLongs(ExprType.DATE, days, null, days.length);
    ColumnVector years = VectorEvaluator.evaluate(new Expr.ExtractYear(new Expr.Column(0, ExprType.DATE)),
        i -> dates, days.length);
    for (int i = 0; i < days.length; i++) {
      assertEquals(java.time.LocalDate.ofEpochDay(days[i]).getYear(), years.longs[i], "day " + days[i]);
    }
  }

  @Test void typeErrorsAreRejectedWhenTheProgramIsBuilt() {
    Expr date = new Expr.Column(0, ExprType.DATE);
    Expr decimal = new Expr.Column(1, ExprType.decimal(2));
    assertThrows(IllegalArgumentException.class, () -> new Expr.Compare(Expr.CompareOp.EQ, decimal,
        new Expr.Column(2, ExprType.FLOAT64)));
    assertThrows(IllegalArgumentException.class, () -> new Expr.Arith(Expr.ArithOp.PLUS, decimal,
        new Expr.Column(2, ExprType.decimal(3)), ExprType.decimal(3)));
    assertThrows(IllegalArgumentException.class, () -> new Expr.Not(date));
    assertThrows(IllegalArgumentException.class, () -> new Expr.Cast(date, ExprType.decimal(1)));
    assertThrows(IllegalArgumentException.class, () -> new Expr.Cast(decimal, ExprType.INT64, 5));
    assertThrows(IllegalArgumentException.class, () -> new Expr.Cast(
        new Expr.BigDecimalArith(Expr.ArithOp.DIVIDE, decimal, decimal), ExprType.INT64));
    assertThrows(IllegalArgumentException.class, () -> new Expr.BigDecimalArith(Expr.ArithOp.DIVIDE, decimal, date));
    assertThrows(IllegalArgumentException.class, () -> new Expr.Compare(Expr.CompareOp.EQ,
        new Expr.Column(3, ExprType.TEXT), new Expr.BigDecimalArith(Expr.ArithOp.DIVIDE, decimal, decimal)));
  }
}
