package org.spillway.gpu.pipeline.gpu;

import org.spillway.gpu.expr.AggCall;
import org.spillway.gpu.expr.Expr;
import org.spillway.gpu.pipeline.PipelineStage;
import org.spillway.gpu.vector.ExprType;

/**
 * A HAVING conjunct that the GPU applies while it compacts the groups of an aggregate (the HavingArg of
 * columnar_pipeline_compact): {@code call op constant} over one aggregate call of a long-lane result. Only the groups
 * it keeps come back over the link (TPC-H Q18 keeps 624 of 15 M). The CPU backend still applies the whole filter
 * after the aggregate, so any one conjunct of it is a valid pre-filter; a group whose sum overflowed is kept, for the
 * host to report as the CPU backend does. Not for a scan shared with the CPU workers, whose partial groups are merged
 * with the GPU's before any HAVING may drop one.
 */
final class GpuHaving {
  /** The words of no filter. */
  static final long[] NONE = {-1, 0, 0, 0, 0, 0};

  private GpuHaving() {}

  /**
   * The HavingArg words of the first conjunct of {@code after} (the stage right after the aggregate) that compares
   * an aggregate call of a long-lane result with a non-NULL literal, or {@link #NONE}; bit c of {@code trackedCalls}
   * says that call c counted its non-NULL arguments.
   */
  static long[] words(PipelineStage.Aggregate aggregate, PipelineStage after, long trackedCalls) {
    if (!(after instanceof PipelineStage.Filter filter)) {
      return NONE;
    }
    for (Expr conjunct : conjuncts(filter.condition())) {
      long[] words = words(aggregate, conjunct, trackedCalls);
      if (words != NONE) {
        return words;
      }
    }
    return NONE;
  }

  private static Iterable<Expr> conjuncts(Expr condition) {
    return condition instanceof Expr.Logical l && l.and() ? l.operands() : java.util.List.of(condition);
  }

  private static long[] words(PipelineStage.Aggregate aggregate, Expr conjunct, long trackedCalls) {
    if (!(conjunct instanceof Expr.Compare c)) {
      return NONE;
    }
    Expr.CompareOp op = c.op();
    Expr column = c.left();
    Expr literal = c.right();
    if (column instanceof Expr.Literal && literal instanceof Expr.Column) {
      column = c.right();
      literal = c.left();
      op = op.swapped();
    }
    int keys = aggregate.groupKeys().length;
    if (!(column instanceof Expr.Column col) || !(literal instanceof Expr.Literal lit) || lit.value() == null
        || col.index() < keys || !col.type().isLong()) {
      return NONE;
    }
    int call = col.index() - keys;
    AggCall agg = aggregate.calls().get(call);
    long kind = switch (agg.kind()) {
      case COUNT -> 0;
      case SUM, MIN, MAX -> 1;
      case SUM0 -> 2;
      default -> -1;
    };
    if (kind < 0 || agg.isWideSum() || agg.resultType().kind() == ExprType.Kind.BOOLEAN) {
      return NONE;
    }
    boolean sum = agg.kind() == AggCall.Kind.SUM || agg.kind() == AggCall.Kind.SUM0;
    return new long[] {call, (trackedCalls >>> call & 1), kind, sum ? 1 : 0, op.ordinal(),
        ((Number) lit.value()).longValue()};
  }
}
