package org.spillway.gpu.expr;

import org.spillway.gpu.vector.ExprType;

/**
 * One aggregate function of a {@link org.spillway.gpu.pipeline.PipelineStage.Aggregate}: its kind, the input column
 * it reads (-1 for COUNT(*)) and the type of its result. A SUM whose result type is {@link ExprType#BIG_DECIMAL} is a
 * wide sum: accumulated exactly in 128 bits and returned as a BigDecimal at its argument's scale, for sums the
 * planner cannot bound below 2^63.
 */
public record AggCall(Kind kind, int argument, ExprType resultType) {
  /** Supported aggregate functions; SUM0 is SUM that gives 0 instead of NULL over no rows. */
  public enum Kind { SUM, SUM0, COUNT, MIN, MAX }

  public AggCall {
    if (argument < 0 && kind != Kind.COUNT) {
      throw new IllegalArgumentException(kind + " needs an argument column");
    }
    if (kind == Kind.COUNT && resultType.kind() != ExprType.Kind.INT64) {
      throw new IllegalArgumentException("COUNT returns INT64, not " + resultType);
    }
  }

  /** The wide sum of an exact column (its scale is the argument's). */
  public static AggCall wideSum(Kind kind, int argument) {
    if (kind != Kind.SUM && kind != Kind.SUM0) {
      throw new IllegalArgumentException(kind + " is not a sum");
    }
    return new AggCall(kind, argument, ExprType.BIG_DECIMAL);
  }

  /** Whether this is a SUM whose value may need more than 64 bits (its result is a BIG_DECIMAL). */
  public boolean isWideSum() {
    return (kind == Kind.SUM || kind == Kind.SUM0) && resultType.kind() == ExprType.Kind.BIG_DECIMAL;
  }

  /** Checks that the argument's type can produce this call's result type exactly. */
  public void checkArgument(ExprType argumentType) {
    boolean ok = switch (kind) {
      case COUNT -> true;
      case MIN, MAX -> argumentType.equals(resultType) && !argumentType.isObject();
      // Floating sums depend on the order of addition, which parallel morsels change.
      case SUM, SUM0 -> argumentType.isExactNumeric() && (isWideSum()
          || resultType.isExactNumeric() && argumentType.scale() == resultType.scale());
    };
    if (!ok) {
      throw new IllegalArgumentException(kind + " of " + argumentType + " as " + resultType + " is not supported");
    }
  }
}
