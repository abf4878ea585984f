package org.spillway.gpu.expr;

import org.spillway.gpu.vector.ColumnVector;
import org.spillway.gpu.vector.ExprType;
import java.util.function.IntFunction;

/**
 * Evaluates an {@link Expr} over whole vectors on the CPU: one primitive loop per operator, nulls as flag
 * arrays that are only touched where an operand has nulls.
 */
public final class VectorEvaluator {
  private VectorEvaluator() {}

  /** The value of the expression for the {@code n} rows whose columns {@code input} returns. */
  public static ColumnVector evaluate(Expr expr, IntFunction<ColumnVector> input, int n) {
    if (expr instanceof Expr.Column c) {
      return input.apply(c.index());
    } else if (expr instanceof Expr.Literal l) {
      return ColumnVector.constant(l.type(), l.value(), n);
    } else if (expr instanceof Expr.Compare c) {
      return compare(c, evaluate(c.left(), input, n), evaluate(c.right(), input, n), n);
    } else if (expr instanceof Expr.InRanges r) {
      return inRanges(r, evaluate(r.operand(), input, n), n);
    } else if (expr instanceof Expr.Logical l) {
      return logical(l, input, n);
    } else if (expr instanceof Expr.Not x) {
      return not(evaluate(x.operand(), input, n), n);
    } else if (expr instanceof Expr.IsNull x) {
      return isNull(evaluate(x.operand(), input, n), x.negated(), n);
    } else if (expr instanceof Expr.Arith a) {
      ColumnVector withConstant = n > 0 && a.type().isLong() ? arithWithConstant(a, input, n) : null;
      if (withConstant != null) {
        return withConstant;
      }
      ColumnVector l = evaluate(a.left(), input, n);
      ColumnVector r = evaluate(a.right(), input, n);
      return VectorArithmetic.arith(a, l, r, n, a.type().isLong() ? reusable(a.left(), l, reusable(a.right(), r, null))
          : null);
    } else if (expr instanceof Expr.BigDecimalArith a) {
      return VectorDecimals.arith(a, evaluate(a.left(), input, n), evaluate(a.right(), input, n), n);
    } else if (expr instanceof Expr.Cast c) {
      return VectorArithmetic.cast(c, evaluate(c.operand(), input, n), n);
    } else if (expr instanceof Expr.Case c) {
      return caseWhen(c, input, n);
    } else if (expr instanceof Expr.Like l) {
      return like(l, evaluate(l.operand(), input, n), n);
    } else if (expr instanceof Expr.Substring sub) {
      ColumnVector text = evaluate(sub.operand(), input, n);
      Object[] out = new Object[n];
      for (int i = 0; i < n; i++) {
        out[i] = text.isNull(i) ? null : sub.of((String) text.objects[i]);
      }
      return ColumnVector.ofObjects(ExprType.TEXT, out, text.nulls, n);
    } else if (expr instanceof Expr.Decode d) {
      ColumnVector codes = evaluate(d.operand(), input, n);
      Object[] out = new Object[n];
      for (int i = 0; i < n; i++) {
        out[i] = codes.isNull(i) ? null : d.dictionary().get((int) codes.longs[i]);
      }
      return ColumnVector.ofObjects(ExprType.TEXT, out, codes.nulls, n);
    } else if (expr instanceof Expr.ExtractYear y) {
      return VectorArithmetic.extractYear(evaluate(y.operand(), input, n), n);
    }
    throw new IllegalArgumentException("no vector implementation for " + expr);
  }

  /** What {@link #constantValue} returns for an expression that reads a column. */
  private static final Object NOT_CONSTANT = new Object();

  /**
   * Arithmetic with an operand that reads no column ({@code 1 - l_discount}: a literal, often under a cast) as a
   * loop over the other operand, without a vector of the repeated constant; null when neither operand is one.
   */
  private static ColumnVector arithWithConstant(Expr.Arith a, IntFunction<ColumnVector> input, int n) {
    Object right = constantValue(a.right());
    if (right != NOT_CONSTANT && right != null) {
      ColumnVector x = evaluate(a.left(), input, n);
      return VectorArithmetic.arithConstant(a, x, ((Number) right).longValue(), false, n, reusable(a.left(), x, null));
    }
    Object left = constantValue(a.left());
    if (left != NOT_CONSTANT && left != null) {
      ColumnVector x = evaluate(a.right(), input, n);
      return VectorArithmetic.arithConstant(a, x, ((Number) left).longValue(), true, n, reusable(a.right(), x, null));
    }
    return null;
  }

  /**
   * The values of an operand that its parent may overwrite, else {@code otherwise}. Ownership rule: the long
   * values of a long-lane {@link Expr.Arith} are a fresh array that only the expression above it holds, so that
   * parent may write its own result there; anything else (a column, a cast that relabels its operand, a constant)
   * may be shared and is never written.
   */
  private static long[] reusable(Expr operand, ColumnVector value, long[] otherwise) {
    return operand instanceof Expr.Arith a && a.type().isLong() && value.longs != null ? value.longs : otherwise;
  }

  /**
   * The value of a literal, or of a cast or arithmetic that reads no column (computed on one row, so it fails
   * as the vector would); {@link #NOT_CONSTANT} for anything else.
   */
  private static Object constantValue(Expr e) {
    if (e instanceof Expr.Literal l) {
      return l.value();
    }
    if (!(e instanceof Expr.Cast || e instanceof Expr.Arith)) {
      return NOT_CONSTANT;
    }
    java.util.BitSet read = new java.util.BitSet();
    ExprColumns.collect(e, read);
    if (!read.isEmpty()) {
      return NOT_CONSTANT;
    }
    ColumnVector one = evaluate(e, i -> {
      throw new IllegalStateException("a constant expression read column " + i);
    }, 1);
    return one.isNull(0) ? null : one.longs != null ? (Object) one.longs[0]
        : one.doubles != null ? (Object) one.doubles[0] : one.objects[0];
  }

  /** Positions of the rows where a boolean vector is TRUE (neither FALSE nor NULL); returns the count. */
  public static int selectTrue(ColumnVector predicate, int[] positions) {
    long[] v = predicate.longs;
    boolean[] nulls = predicate.nulls;
    int count = 0;
    // Branch-free append (predication): the position is written always and kept only if the row qualifies.
    if (nulls == null) {
      for (int i = 0; i < predicate.size; i++) {
        positions[count] = i;
        count += (int) v[i];
      }
    } else {
      for (int i = 0; i < predicate.size; i++) {
        positions[count] = i;
        count += nulls[i] ? 0 : (int) v[i];
      }
    }
    return count;
  }

  static boolean[] orNulls(boolean[] a, boolean[] b, int n) {
    if (a == null) {
      return b == null ? null : b.clone();
    }
    boolean[] r = a.clone();
    if (b != null) {
      for (int i = 0; i < n; i++) {
        r[i] |= b[i];
      }
    }
    return r;
  }

  private static ColumnVector compare(Expr.Compare c, ColumnVector l, ColumnVector r, int n) {
    long[] out = new long[n];
    if (l.longs != null) {
      long[] a = l.longs;
      long[] b = r.longs;
      switch (c.op()) {
        case EQ -> { for (int i = 0; i < n; i++) out[i] = a[i] == b[i] ? 1 : 0; }
        case NE -> { for (int i = 0; i < n; i++) out[i] = a[i] != b[i] ? 1 : 0; }
        case LT -> { for (int i = 0; i < n; i++) out[i] = a[i] < b[i] ? 1 : 0; }
        case LE -> { for (int i = 0; i < n; i++) out[i] = a[i] <= b[i] ? 1 : 0; }
        case GT -> { for (int i = 0; i < n; i++) out[i] = a[i] > b[i] ? 1 : 0; }
        case GE -> { for (int i = 0; i < n; i++) out[i] = a[i] >= b[i] ? 1 : 0; }
      }
    } else if (l.objects != null) {
      // Plain text: String.compareTo, as Calcite's generated code compares strings (BigDecimal.compareTo for
      // BIG_DECIMAL, as SqlFunctions does); NULL rows are masked below.
      for (int i = 0; i < n; i++) {
        if (l.objects[i] != null && r.objects[i] != null) {
          int cmp = compareObjects(l.objects[i], r.objects[i]);
          boolean t = switch (c.op()) {
            case EQ -> cmp == 0;
            case NE -> cmp != 0;
            case LT -> cmp < 0;
            case LE -> cmp <= 0;
            case GT -> cmp > 0;
            case GE -> cmp >= 0;
          };
          out[i] = t ? 1 : 0;
        }
      }
    } else {
      double[] a = l.doubles;
      double[] b = r.doubles;
      // Double.compare orders NaN last and -0.0 before 0.0, as Calcite's Java comparisons do not; the primitive
      // operators match Calcite's generated code. A loop per operator, as for longs: one the JIT vectorizes.
      switch (c.op()) {
        case EQ -> { for (int i = 0; i < n; i++) out[i] = a[i] == b[i] ? 1 : 0; }
        case NE -> { for (int i = 0; i < n; i++) out[i] = a[i] != b[i] ? 1 : 0; }
        case LT -> { for (int i = 0; i < n; i++) out[i] = a[i] < b[i] ? 1 : 0; }
        case LE -> { for (int i = 0; i < n; i++) out[i] = a[i] <= b[i] ? 1 : 0; }
        case GT -> { for (int i = 0; i < n; i++) out[i] = a[i] > b[i] ? 1 : 0; }
        case GE -> { for (int i = 0; i < n; i++) out[i] = a[i] >= b[i] ? 1 : 0; }
      }
    }
    boolean[] nulls = orNulls(l.nulls, r.nulls, n);
    clearNullRows(out, nulls, n);
    return ColumnVector.ofLongs(ExprType.BOOLEAN, out, nulls, n);
  }

  @SuppressWarnings("unchecked")
  private static int compareObjects(Object a, Object b) {
    return ((Comparable<Object>) a).compareTo(b);
  }

  private static ColumnVector inRanges(Expr.InRanges r, ColumnVector operand, int n) {
    long[] v = operand.longs;
    long[] out = new long[n];
    long[] lows = r.lows();
    long[] highs = r.highs();
    if (lows.length == 1) {
      long lo = lows[0];
      long hi = highs[0];
      for (int i = 0; i < n; i++) {
        out[i] = (v[i] >= lo) & (v[i] <= hi) ? 1 : 0;
      }
    } else {
      for (int i = 0; i < n; i++) {
        long x = v[i];
        long hit = 0;
        for (int k = 0; k < lows.length; k++) {
          hit |= (x >= lows[k]) & (x <= highs[k]) ? 1 : 0;
        }
        out[i] = hit;
      }
    }
    boolean[] nulls = null;
    if (operand.nulls != null) {
      if (r.nullAs() == null) {
        nulls = operand.nulls.clone();
        clearNullRows(out, nulls, n);
      } else {
        long asValue = r.nullAs() ? 1 : 0;
        for (int i = 0; i < n; i++) {
          if (operand.nulls[i]) {
            out[i] = asValue;
          }
        }
      }
    }
    return ColumnVector.ofLongs(ExprType.BOOLEAN, out, nulls, n);
  }

  /**
   * AND/OR with Kleene logic and Calcite's short-circuit order: an operand is evaluated only for the rows
   * that the operands before it left undecided, so {@code x <> 0 AND y / x > 1} never divides by zero.
   */
  private static ColumnVector logical(Expr.Logical l, IntFunction<ColumnVector> input, int n) {
    long decisive = l.and() ? 0 : 1;
    long[] out = new long[n];
    java.util.Arrays.fill(out, 1 - decisive);
    boolean[] nulls = null;
    int[] undecided = identity(n);
    int count = n;
    for (Expr operand : l.operands()) {
      if (count == 0) {
        break;
      }
      ColumnVector x = evaluateOn(operand, input, undecided, count, n);
      int kept = 0;
      for (int k = 0; k < count; k++) {
        int row = undecided[k];
        if (x.isNull(k)) {
          nulls = nulls == null ? new boolean[n] : nulls;
          nulls[row] = true;
          undecided[kept++] = row;
        } else if (x.longs[k] == decisive) {
          out[row] = decisive;
          if (nulls != null) {
            nulls[row] = false;
          }
        } else {
          undecided[kept++] = row;
        }
      }
      count = kept;
    }
    if (nulls != null) {
      clearNullRows(out, nulls, n);
    }
    return ColumnVector.ofLongs(ExprType.BOOLEAN, out, nulls, n);
  }

  /** The expression over a subset of the rows (all {@code n} rows when count == n). */
  private static ColumnVector evaluateOn(Expr e, IntFunction<ColumnVector> input, int[] rows, int count, int n) {
    if (count == n) {
      return evaluate(e, input, n);
    }
    ColumnVector[] gathered = new ColumnVector[1];
    int[] gatheredIndex = {-1};
    return evaluate(e, i -> {
      if (gatheredIndex[0] != i) {  // expressions mostly read one column repeatedly; cache the last one
        gathered[0] = input.apply(i).gather(rows, count);
        gatheredIndex[0] = i;
      }
      return gathered[0];
    }, count);
  }

  private static int[] identity(int n) {
    int[] rows = new int[n];
    for (int i = 0; i < n; i++) {
      rows[i] = i;
    }
    return rows;
  }

  private static ColumnVector like(Expr.Like l, ColumnVector text, int n) {
    long[] out = new long[n];
    String[] pieces = SqlLikePatterns.pieces(l.pattern(), l.escape());
    java.util.regex.Matcher matcher = pieces != null ? null : l.regex().matcher("");
    for (int i = 0; i < n; i++) {
      if (!text.isNull(i)) {
        String s = (String) text.objects[i];
        out[i] = (pieces != null ? SqlLikePatterns.matchesPieces(pieces, s) : matcher.reset(s).matches()) ? 1 : 0;
      }
    }
    return ColumnVector.ofLongs(ExprType.BOOLEAN, out, text.nulls == null ? null : text.nulls.clone(), n);
  }

  private static ColumnVector not(ColumnVector x, int n) {
    long[] out = new long[n];
    for (int i = 0; i < n; i++) {
      out[i] = 1 - x.longs[i];
    }
    boolean[] nulls = x.nulls == null ? null : x.nulls.clone();
    clearNullRows(out, nulls, n);
    return ColumnVector.ofLongs(ExprType.BOOLEAN, out, nulls, n);
  }

  private static ColumnVector isNull(ColumnVector x, boolean negated, int n) {
    long[] out = new long[n];
    for (int i = 0; i < n; i++) {
      out[i] = x.isNull(i) != negated ? 1 : 0;
    }
    return ColumnVector.ofLongs(ExprType.BOOLEAN, out, null, n);
  }

  /**
   * CASE as Calcite runs it: each WHEN is evaluated only for rows no earlier WHEN took, and each THEN only
   * for the rows that chose it, so a guarded division or overflow in a branch not taken cannot fail.
   */
  private static ColumnVector caseWhen(Expr.Case c, IntFunction<ColumnVector> input, int n) {
    if (isCoalesce(c)) {
      return coalesce(c.otherwise(), c.values().get(0), input, n);
    }
    int branches = c.conditions().size();
    int[] chosen = new int[n];
    java.util.Arrays.fill(chosen, branches);
    int[] undecided = identity(n);
    int count = n;
    for (int b = 0; b < branches && count > 0; b++) {
      ColumnVector cond = evaluateOn(c.conditions().get(b), input, undecided, count, n);
      int kept = 0;
      for (int k = 0; k < count; k++) {
        if (!cond.isNull(k) && cond.longs[k] == 1) {
          chosen[undecided[k]] = b;
        } else {
          undecided[kept++] = undecided[k];
        }
      }
      count = kept;
    }
    ExprType type = c.type();
    long[] longs = type.isLong() ? new long[n] : null;
    double[] doubles = type.kind() == ExprType.Kind.FLOAT64 ? new double[n] : null;
    Object[] objects = type.isObject() ? new Object[n] : null;
    boolean[] nulls = null;
    int[] rows = new int[n];
    for (int b = 0; b <= branches; b++) {
      int m = 0;
      for (int i = 0; i < n; i++) {
        if (chosen[i] == b) {
          rows[m++] = i;
        }
      }
      if (m == 0) {
        continue;
      }
      ColumnVector v = evaluateOn(b < branches ? c.values().get(b) : c.otherwise(), input, rows, m, n);
      for (int k = 0; k < m; k++) {
        int row = rows[k];
        if (v.isNull(k)) {
          nulls = nulls == null ? new boolean[n] : nulls;
          nulls[row] = true;
        } else if (longs != null) {
          longs[row] = v.longs[k];
        } else if (doubles != null) {
          doubles[row] = v.doubles[k];
        } else {
          objects[row] = v.objects[k];
        }
      }
    }
    if (longs != null) {
      return ColumnVector.ofLongs(type, longs, nulls, n);
    }
    return doubles != null ? ColumnVector.ofDoubles(doubles, nulls, n) : ColumnVector.ofObjects(type, objects, nulls, n);
  }

  /** Whether {@code c} is CASE WHEN x IS NULL THEN y ELSE x END of one integral lane: COALESCE(x, y). */
  private static boolean isCoalesce(Expr.Case c) {
    return c.conditions().size() == 1 && c.conditions().get(0) instanceof Expr.IsNull test && !test.negated()
        && test.operand().equals(c.otherwise()) && c.type().isLong() && c.otherwise().type().equals(c.type())
        && c.values().get(0).type().equals(c.type());
  }

  /**
   * COALESCE(x, y) over one integral lane (a COUNT above an outer join becomes one): x evaluated once, y only on x's
   * NULL rows, instead of a test, a split of the rows per branch and a gather of x's rows.
   */
  private static ColumnVector coalesce(Expr x, Expr y, IntFunction<ColumnVector> input, int n) {
    ColumnVector value = evaluate(x, input, n);
    if (value.nulls == null) {
      return value;
    }
    int[] missing = new int[n];
    int m = 0;
    for (int i = 0; i < n; i++) {
      missing[m] = i;
      m += value.nulls[i] ? 1 : 0;
    }
    if (m == 0) {
      return ColumnVector.ofLongs(value.type, value.longs, null, n);
    }
    long[] out = java.util.Arrays.copyOf(value.longs, n);
    ColumnVector other = evaluateOn(y, input, missing, m, n);
    boolean[] nulls = null;
    for (int k = 0; k < m; k++) {
      if (other.isNull(k)) {
        nulls = nulls == null ? new boolean[n] : nulls;
        nulls[missing[k]] = true;
        out[missing[k]] = 0;
      } else {
        out[missing[k]] = other.longs[k];
      }
    }
    return ColumnVector.ofLongs(value.type, out, nulls, n);
  }

  static void clearNullRows(long[] out, boolean[] nulls, int n) {
    if (nulls != null) {
      for (int i = 0; i < n; i++) {
        if (nulls[i]) {
          out[i] = 0;
        }
      }
    }
  }
}
