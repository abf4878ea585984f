package org.spillway.gpu.plan;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.Optional;
import org.spillway.gpu.expr.Expr;
import org.spillway.gpu.expr.ExprColumns;
import org.spillway.gpu.expr.VectorEvaluator;
import org.spillway.gpu.vector.ColumnVector;

/**
 * What the single row of a nested-loop join's small side makes of the join's condition for the big side (Q11: the
 * groups above a share of the total; Q22: the customers above the average balance). A conjunct that compares an
 * expression of the big side's columns with one of the small side's becomes a comparison with the small side's value
 * as a literal; a conjunct of the big side's columns alone stays as it is; any other conjunct is left to the join.
 * The big side then drops rows early (a GPU aggregate before its groups come back over the link). The join still
 * checks its whole condition, so this filter only has to keep every row the join keeps, which it does: each of its
 * conjuncts is one of the condition's, evaluated on the only row the big rows can pair with.
 */
final class ScalarSideFilter {
  private ScalarSideFilter() {}

  /**
   * The filter over the big side's columns (numbered {@code 0 .. bigColumns - 1} in {@code condition}, the small
   * side's following them) given the small side's one row, or empty where no conjunct gives one.
   */
  static Optional<Expr> of(Expr condition, int bigColumns, NodeOutput smallRow) {
    if (smallRow.rows() != 1) {
      throw new IllegalArgumentException("the small side has " + smallRow.rows() + " rows, not one");
    }
    List<Expr> kept = new ArrayList<>();
    for (Expr conjunct : conjuncts(condition)) {
      if (readsOnly(conjunct, 0, bigColumns)) {
        kept.add(conjunct);
      } else if (conjunct instanceof Expr.Compare c) {
        if (readsOnly(c.left(), 0, bigColumns) && readsOnly(c.right(), bigColumns, Integer.MAX_VALUE)) {
          valueOf(c.right(), bigColumns, smallRow).ifPresent(v -> kept.add(new Expr.Compare(c.op(), c.left(), v)));
        } else if (readsOnly(c.right(), 0, bigColumns) && readsOnly(c.left(), bigColumns, Integer.MAX_VALUE)) {
          valueOf(c.left(), bigColumns, smallRow).ifPresent(v -> kept.add(new Expr.Compare(c.op(), v, c.right())));
        }
      }
    }
    return kept.isEmpty() ? Optional.empty()
        : Optional.of(kept.size() == 1 ? kept.get(0) : new Expr.Logical(true, kept));
  }

  private static List<Expr> conjuncts(Expr condition) {
    return condition instanceof Expr.Logical l && l.and() ? l.operands() : List.of(condition);
  }

  /** Whether {@code e} reads some column and only columns in {@code [from, to)}. */
  private static boolean readsOnly(Expr e, int from, int to) {
    BitSet read = new BitSet();
    ExprColumns.collect(e, read);
    return !read.isEmpty() && read.nextSetBit(0) >= from && read.length() <= to;
  }

  /**
   * {@code e} over the small side's row as a literal; empty where evaluating it fails (the join then evaluates it,
   * and reports the failure only where it reaches a big row, as before).
   */
  private static Optional<Expr> valueOf(Expr e, int bigColumns, NodeOutput smallRow) {
    ColumnVector one;
    try {
      one = VectorEvaluator.evaluate(e, c -> smallRow.column(c - bigColumns), 1);
    } catch (RuntimeException failed) {
      return Optional.empty();
    }
    Object value = one.isNull(0) ? null : one.longs != null ? (Object) one.longs[0]
        : one.doubles != null ? (Object) one.doubles[0] : one.objects[0];
    return Optional.of(new Expr.Literal(value, e.type()));
  }
}
