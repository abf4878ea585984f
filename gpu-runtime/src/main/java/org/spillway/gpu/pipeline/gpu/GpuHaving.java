package org.spillway.gpu.pipeline.gpu;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.RoundingMode;
import java.util.List;
import org.spillway.gpu.expr.AggCall;
import org.spillway.gpu.expr.Expr;
import org.spillway.gpu.pipeline.PipelineStage;
import org.spillway.gpu.vector.ExprType;

/**
 * A HAVING conjunct that the GPU applies while it compacts the groups of an aggregate (the HavingArg of
 * columnar_pipeline_compact): {@code call op constant} over one aggregate call of a long-lane result, or over a wide
 * (128-bit) sum against a decimal constant that its scale holds exactly (Q11's groups above a fraction of the total,
 * whose constant a nested-loop join's scalar side supplies at run time). Only the groups
 * it keeps come back over the link (TPC-H Q18 keeps 624 of 15 M). The CPU backend still applies the whole filter
 * after the aggregate, so any one conjunct of it is a valid pre-filter; a group whose sum overflowed is kept, for the
 * host to report as the CPU backend does. Not for a scan shared with the CPU workers, whose partial groups are merged
 * with the GPU's before any HAVING may drop one.
 */
final class GpuHaving {
  /** The words of no filter. */
  static final long[] NONE = {-1, 0, 0, 0, 0, 0, 0, 0};

  private GpuHaving() {}

  /**
   * The HavingArg words of the first conjunct of {@code after} (the stage right after the aggregate) that compares
   * an aggregate call of a long-lane result or a wide sum with a non-NULL literal, or {@link #NONE}; bit c of
   * {@code trackedCalls} says that call c counted its non-NULL arguments. A wide sum's literal must be exact at the
   * scale of the call's argument, one of {@code inputTypes} (the aggregate's input; null where unknown, for the
   * planner's estimate, which then takes any decimal literal).
   */
  static long[] words(PipelineStage.Aggregate aggregate, PipelineStage after, long trackedCalls,
      List<ExprType> inputTypes) {
    if (!(after instanceof PipelineStage.Filter filter)) {
      return NONE;
    }
    for (Expr conjunct : conjuncts(filter.condition())) {
      long[] words = words(aggregate, conjunct, trackedCalls, inputTypes);
      if (words != NONE) {
        return words;
      }
    }
    return NONE;
  }

  private static Iterable<Expr> conjuncts(Expr condition) {
    return condition instanceof Expr.Logical l && l.and() ? l.operands() : java.util.List.of(condition);
  }

  private static long[] words(PipelineStage.Aggregate aggregate, Expr conjunct, long trackedCalls,
      List<ExprType> inputTypes) {
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
        || col.index() < keys) {
      return NONE;
    }
    int call = col.index() - keys;
    AggCall agg = aggregate.calls().get(call);
    if (agg.isWideSum() && lit.value() instanceof BigDecimal value) {
      return wideSumWords(call, trackedCalls, agg, op, value, inputTypes);
    }
    if (!col.type().isLong()) {
      return NONE;
    }
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
    long constant = ((Number) lit.value()).longValue();
    return new long[] {call, (trackedCalls >>> call & 1), kind, sum ? 1 : 0, op.ordinal(), constant, 0, constant >> 63};
  }

  /**
   * The words comparing a wide sum's 128 bits with {@code value} at the sum's scale, or {@link #NONE}. A value with
   * more decimals than the sum becomes the integer bound that keeps the same sums (x > 1.005 at scale 2 is x > 1.00,
   * x >= 1.005 is x >= 1.01); = and <> need it exact.
   */
  private static long[] wideSumWords(int call, long trackedCalls, AggCall agg, Expr.CompareOp op, BigDecimal value,
      List<ExprType> inputTypes) {
    int scale = inputTypes == null ? value.scale() : inputTypes.get(agg.argument()).scale();
    RoundingMode rounding = switch (op) {
      case GT, LE -> RoundingMode.FLOOR;
      case GE, LT -> RoundingMode.CEILING;
      case EQ, NE -> RoundingMode.UNNECESSARY;
    };
    BigInteger unscaled;
    try {
      unscaled = value.setScale(scale, rounding).unscaledValue();
    } catch (ArithmeticException inexact) {
      return NONE;
    }
    if (unscaled.bitLength() > 127) {
      return NONE;
    }
    long kind = agg.kind() == AggCall.Kind.SUM0 ? 2 : 1;
    return new long[] {call, (trackedCalls >>> call & 1), kind, 1, op.ordinal(), unscaled.longValue(), 1,
        unscaled.shiftRight(64).longValue()};
  }
}
