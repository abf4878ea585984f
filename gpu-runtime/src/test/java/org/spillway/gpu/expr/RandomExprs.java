package org.spillway.gpu.expr;

import org.spillway.gpu.vector.ColumnVector;
import org.spillway.gpu.vector.ExprType;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * Random typed expressions and random columns with NULLs over a fixed input schema, for differential
 * tests of the vector evaluator against {@link RowReference}.
 */
public final class RandomExprs {
  /** Input schema: INT32, INT64, DECIMAL(2), FLOAT64, DATE, BOOLEAN, STRING codes. */
  public static final List<ExprType> SCHEMA = List.of(ExprType.INT32, ExprType.INT64, ExprType.decimal(2),
      ExprType.FLOAT64, ExprType.DATE, ExprType.BOOLEAN, ExprType.STRING);
  static final int DICTIONARY_SIZE = 10;
  private static final ExprType DEC2 = ExprType.decimal(2);

  private final Random random;

  public RandomExprs(Random random) {
    this.random = random;
  }

  /** A random value of a schema column (boxed as the reference holds it), NULL with probability 0.15. */
  public Object value(ExprType type) {
    if (random.nextInt(100) < 15) {
      return null;
    }
    return switch (type.kind()) {
      case INT32, INT64 -> (long) random.nextInt(101) - 50;
      case DECIMAL -> (long) random.nextInt(20001) - 10000;
      case FLOAT64 -> (random.nextInt(2001) - 1000) / 8.0;
      case DATE -> 8000L + random.nextInt(3000);  // 1991 .. 1999
      case BOOLEAN -> (long) random.nextInt(2);
      case STRING -> (long) random.nextInt(DICTIONARY_SIZE);
      case TEXT, BIG_DECIMAL -> throw new IllegalArgumentException("no random " + type);
    };
  }

  /** Random columns of the schema; NULL rows hold 0 as {@link ColumnVector} requires. */
  public List<ColumnVector> columns(int rows) {
    List<ColumnVector> out = new ArrayList<>();
    for (ExprType type : SCHEMA) {
      boolean[] nulls = new boolean[rows];
      long[] longs = new long[rows];
      double[] doubles = new double[rows];
      for (int r = 0; r < rows; r++) {
        Object v = value(type);
        nulls[r] = v == null;
        if (v instanceof Long l) {
          longs[r] = l;
        } else if (v instanceof Double d) {
          doubles[r] = d;
        }
      }
      out.add(type.isLong() ? ColumnVector.ofLongs(type, longs, nulls, rows) : ColumnVector.ofDoubles(doubles, nulls, rows));
    }
    return out;
  }

  public Expr bool(int depth) {
    int pick = depth <= 0 ? random.nextInt(3) : random.nextInt(9);
    return switch (pick) {
      case 0 -> new Expr.Column(5, ExprType.BOOLEAN);
      case 1 -> inRanges();
      case 2 -> compare(0);
      case 3 -> compare(depth - 1);
      case 4, 5 -> new Expr.Logical(random.nextBoolean(), List.of(bool(depth - 1), bool(depth - 1), bool(depth - 1)));
      case 6 -> new Expr.Not(bool(depth - 1));
      case 7 -> new Expr.IsNull(any(depth - 1), random.nextBoolean());
      default -> random.nextInt(4) == 0 ? new Expr.Literal(null, ExprType.BOOLEAN)
          : new Expr.Case(List.of(bool(depth - 1)), List.of(bool(depth - 1)), bool(depth - 1));
    };
  }

  private Expr inRanges() {
    int column = new int[] {0, 1, 2, 4, 6}[random.nextInt(5)];
    ExprType type = SCHEMA.get(column);
    int ranges = random.nextInt(4);
    long[] lows = new long[ranges];
    long[] highs = new long[ranges];
    for (int k = 0; k < ranges; k++) {
      Object x = null;
      while (x == null) {
        x = value(type);
      }
      long a = (Long) x;
      lows[k] = a;
      highs[k] = a + random.nextInt(type.kind() == ExprType.Kind.DECIMAL ? 5000 : 20);
    }
    Boolean nullAs = switch (random.nextInt(3)) {
      case 0 -> null;
      case 1 -> Boolean.TRUE;
      default -> Boolean.FALSE;
    };
    return new Expr.InRanges(new Expr.Column(column, type), lows, highs, nullAs);
  }

  private Expr compare(int depth) {
    Expr.CompareOp op = Expr.CompareOp.values()[random.nextInt(6)];
    return switch (random.nextInt(4)) {
      case 0 -> new Expr.Compare(op, int64(depth), int64(depth));
      case 1 -> new Expr.Compare(op, decimal(depth), decimal(depth));
      case 2 -> new Expr.Compare(op, float64(depth), float64(depth));
      default -> new Expr.Compare(op, new Expr.Column(4, ExprType.DATE), new Expr.Literal(9000L + random.nextInt(1000), ExprType.DATE));
    };
  }

  Expr any(int depth) {
    return switch (random.nextInt(4)) {
      case 0 -> bool(depth);
      case 1 -> int64(depth);
      case 2 -> decimal(depth);
      default -> float64(depth);
    };
  }

  public Expr int64(int depth) {
    int pick = depth <= 0 ? random.nextInt(3) : random.nextInt(9);
    return switch (pick) {
      case 0 -> new Expr.Column(1, ExprType.INT64);
      case 1 -> new Expr.Cast(new Expr.Column(0, ExprType.INT32), ExprType.INT64);
      case 2 -> new Expr.Literal(random.nextInt(4) == 0 ? null : (long) random.nextInt(21) - 10, ExprType.INT64);
      case 3 -> new Expr.ExtractYear(new Expr.Column(4, ExprType.DATE));
      case 4 -> new Expr.Arith(Expr.ArithOp.values()[random.nextInt(3)], int64(depth - 1), int64(depth - 1), ExprType.INT64);
      case 5 -> guardedDivision(int64(depth - 1), int64(depth - 1));
      case 6 -> new Expr.Case(List.of(bool(depth - 1)), List.of(int64(depth - 1)), int64(depth - 1));
      case 7 -> coalesce(int64(depth - 1), int64(depth - 1));
      default -> new Expr.Arith(Expr.ArithOp.DIVIDE, int64(depth - 1), int64(0), ExprType.INT64);  // may fail
    };
  }

  /** CASE WHEN x IS NULL THEN y ELSE x END: Calcite's COALESCE(x, y), and its COUNT above an outer join. */
  public Expr coalesce(Expr x, Expr y) {
    return new Expr.Case(List.of(new Expr.IsNull(x, false)), List.of(y), x);
  }

  /** CASE WHEN y <> 0 THEN x / y END: must never divide by zero, as in Calcite. */
  private Expr guardedDivision(Expr x, Expr y) {
    Expr nonZero = new Expr.Compare(Expr.CompareOp.NE, y, new Expr.Literal(0L, ExprType.INT64));
    return new Expr.Case(List.of(nonZero), List.of(new Expr.Arith(Expr.ArithOp.DIVIDE, x, y, ExprType.INT64)),
        new Expr.Literal(null, ExprType.INT64));
  }

  public Expr decimal(int depth) {
    int pick = depth <= 0 ? random.nextInt(3) : random.nextInt(6);
    return switch (pick) {
      case 0 -> new Expr.Column(2, DEC2);
      case 1 -> new Expr.Cast(new Expr.Column(1, ExprType.INT64), DEC2);
      case 2 -> new Expr.Literal((long) random.nextInt(1001) - 500, DEC2);
      case 3 -> new Expr.Arith(random.nextBoolean() ? Expr.ArithOp.PLUS : Expr.ArithOp.MINUS,
          decimal(depth - 1), decimal(depth - 1), DEC2);
      case 4 -> new Expr.Arith(Expr.ArithOp.TIMES, decimal(depth - 1), int64(depth - 1), DEC2);
      default -> new Expr.Case(List.of(bool(depth - 1), bool(depth - 1)), List.of(decimal(depth - 1), decimal(depth - 1)),
          decimal(depth - 1));
    };
  }

  public Expr float64(int depth) {
    int pick = depth <= 0 ? random.nextInt(3) : random.nextInt(5);
    return switch (pick) {
      case 0 -> new Expr.Column(3, ExprType.FLOAT64);
      case 1 -> new Expr.Cast(new Expr.Column(2, DEC2), ExprType.FLOAT64);
      case 2 -> new Expr.Literal((random.nextInt(201) - 100) / 4.0, ExprType.FLOAT64);
      case 3 -> new Expr.Arith(Expr.ArithOp.values()[random.nextInt(3)], float64(depth - 1), float64(depth - 1),
          ExprType.FLOAT64);
      default -> new Expr.Cast(decimal(depth - 1), ExprType.FLOAT64);
    };
  }
}
