package org.spillway.gpu.expr;

import org.spillway.gpu.vector.ColumnVector;
import org.spillway.gpu.vector.ExprType;
import java.time.LocalDate;
import java.util.List;

/**
 * The straightforward reference for {@link VectorEvaluator}: one row at a time over boxed values (Long for
 * the long lane, Double, String; null for NULL), with SQL's rules written out case by case.
 */
public final class RowReference {
  private RowReference() {}

  public static Object eval(Expr e, Object[] row) {
    if (e instanceof Expr.Column c) {
      return row[c.index()];
    } else if (e instanceof Expr.Literal l) {
      return l.value() == null ? null : l.type().kind() == ExprType.Kind.FLOAT64
          ? (Object) ((Number) l.value()).doubleValue() : (Object) ((Number) l.value()).longValue();
    } else if (e instanceof Expr.Compare c) {
      Object a = eval(c.left(), row);
      Object b = eval(c.right(), row);
      if (a == null || b == null) {
        return null;
      }
      boolean t = a instanceof Double x ? doubleTruth(c.op(), x, (Double) b) : longTruth(c.op(), (Long) a, (Long) b);
      return t ? 1L : 0L;
    } else if (e instanceof Expr.InRanges r) {
      Object v = eval(r.operand(), row);
      if (v == null) {
        return r.nullAs() == null ? null : r.nullAs() ? 1L : 0L;
      }
      long x = (Long) v;
      for (int k = 0; k < r.lows().length; k++) {
        if (r.lows()[k] <= x && x <= r.highs()[k]) {
          return 1L;
        }
      }
      return 0L;
    } else if (e instanceof Expr.Logical l) {
      long decisive = l.and() ? 0 : 1;
      boolean sawNull = false;
      for (Expr operand : l.operands()) {
        Object v = eval(operand, row);
        if (v == null) {
          sawNull = true;
        } else if ((Long) v == decisive) {
          return decisive;
        }
      }
      return sawNull ? null : 1 - decisive;
    } else if (e instanceof Expr.Not x) {
      Object v = eval(x.operand(), row);
      return v == null ? null : 1 - (Long) v;
    } else if (e instanceof Expr.IsNull x) {
      return (eval(x.operand(), row) == null) != x.negated() ? 1L : 0L;
    } else if (e instanceof Expr.Arith a) {
      Object l = eval(a.left(), row);
      Object r = eval(a.right(), row);
      if (l == null || r == null) {
        return null;
      }
      if (l instanceof Double x) {
        double y = (Double) r;
        return switch (a.op()) {
          case PLUS -> x + y;
          case MINUS -> x - y;
          case TIMES -> x * y;
          case DIVIDE -> x / y;
        };
      }
      long x = (Long) l;
      long y = (Long) r;
      return switch (a.op()) {
        case PLUS -> Math.addExact(x, y);
        case MINUS -> Math.subtractExact(x, y);
        case TIMES -> Math.multiplyExact(x, y);
        case DIVIDE -> x / y;  // throws on zero, as SQL does
      };
    } else if (e instanceof Expr.Cast c) {
      Object v = eval(c.operand(), row);
      if (v == null) {
        return null;
      }
      ExprType from = c.operand().type();
      return switch (c.type().kind()) {
        case FLOAT64 -> new java.math.BigDecimal(java.math.BigInteger.valueOf((Long) v), from.scale()).doubleValue();
        case DECIMAL -> Math.multiplyExact((Long) v, (long) Math.pow(10, c.type().scale() - from.scale()));
        default -> v;
      };
    } else if (e instanceof Expr.Case c) {
      for (int b = 0; b < c.conditions().size(); b++) {
        Object cond = eval(c.conditions().get(b), row);
        if (cond != null && (Long) cond == 1) {
          return eval(c.values().get(b), row);
        }
      }
      return eval(c.otherwise(), row);
    } else if (e instanceof Expr.ExtractYear y) {
      Object v = eval(y.operand(), row);
      return v == null ? null : (long) LocalDate.ofEpochDay((Long) v).getYear();
    }
    throw new IllegalArgumentException("no reference for " + e);
  }

  private static boolean longTruth(Expr.CompareOp op, long a, long b) {
    return switch (op) {
      case EQ -> a == b;
      case NE -> a != b;
      case LT -> a < b;
      case LE -> a <= b;
      case GT -> a > b;
      case GE -> a >= b;
    };
  }

  private static boolean doubleTruth(Expr.CompareOp op, double a, double b) {
    return switch (op) {
      case EQ -> a == b;
      case NE -> a != b;
      case LT -> a < b;
      case LE -> a <= b;
      case GT -> a > b;
      case GE -> a >= b;
    };
  }

  /** The boxed value of one row of a vector, in the reference's representation. */
  public static Object valueOf(ColumnVector v, int row) {
    if (v.isNull(row)) {
      return null;
    }
    return v.longs != null ? (Object) v.longs[row] : v.doubles != null ? (Object) v.doubles[row] : v.objects[row];
  }

  /** Row {@code r} of the given columns. */
  public static Object[] row(List<ColumnVector> columns, int r) {
    Object[] row = new Object[columns.size()];
    for (int c = 0; c < row.length; c++) {
      row[c] = valueOf(columns.get(c), r);
    }
    return row;
  }
}
