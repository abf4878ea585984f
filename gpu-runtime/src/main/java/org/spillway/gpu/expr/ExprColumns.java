package org.spillway.gpu.expr;

import java.util.BitSet;
import java.util.List;

/** The input columns an expression reads. */
public final class ExprColumns {
  private ExprColumns() {
  }

  /** Sets in {@code out} the index of every column {@code e} reads. */
  public static void collect(Expr e, BitSet out) {
    if (e == null) {
      return;  // a CASE without ELSE
    }
    if (e instanceof Expr.Column c) {
      out.set(c.index());
    } else if (e instanceof Expr.Compare c) {
      collect(c.left(), out);
      collect(c.right(), out);
    } else if (e instanceof Expr.InRanges r) {
      collect(r.operand(), out);
    } else if (e instanceof Expr.Logical l) {
      collectAll(l.operands(), out);
    } else if (e instanceof Expr.Not n) {
      collect(n.operand(), out);
    } else if (e instanceof Expr.IsNull n) {
      collect(n.operand(), out);
    } else if (e instanceof Expr.Arith a) {
      collect(a.left(), out);
      collect(a.right(), out);
    } else if (e instanceof Expr.BigDecimalArith a) {
      collect(a.left(), out);
      collect(a.right(), out);
    } else if (e instanceof Expr.Cast c) {
      collect(c.operand(), out);
    } else if (e instanceof Expr.Case c) {
      collectAll(c.conditions(), out);
      collectAll(c.values(), out);
      collect(c.otherwise(), out);
    } else if (e instanceof Expr.Like l) {
      collect(l.operand(), out);
    } else if (e instanceof Expr.Substring s) {
      collect(s.operand(), out);
    } else if (e instanceof Expr.Decode d) {
      collect(d.operand(), out);
    } else if (e instanceof Expr.ExtractYear y) {
      collect(y.operand(), out);
    } else if (!(e instanceof Expr.Literal)) {
      // A new kind of expression must say what it reads; reading all would hide the omission.
      throw new IllegalStateException("no column analysis for " + e.getClass().getSimpleName());
    }
  }

  static void collectAll(List<Expr> exprs, BitSet out) {
    for (Expr e : exprs) {
      collect(e, out);
    }
  }
}
