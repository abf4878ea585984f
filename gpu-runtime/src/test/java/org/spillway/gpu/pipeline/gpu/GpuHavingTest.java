package org.spillway.gpu.pipeline.gpu;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.spillway.gpu.expr.AggCall;
import org.spillway.gpu.expr.Expr;
import org.spillway.gpu.pipeline.PipelineStage;
import org.spillway.gpu.vector.ExprType;

/** Which HAVING conjuncts the GPU applies while it gathers the groups, and the words it passes the kernel. */
class GpuHavingTest {
  private static final ExprType DEC2 = ExprType.decimal(2);
  /** Group key $0; calls: SUM(decimal) $1, COUNT(*) $2, wide SUM $3, MIN $4. */
  private static final PipelineStage.Aggregate AGGREGATE = new PipelineStage.Aggregate(new int[] {0}, List.of(
      new AggCall(AggCall.Kind.SUM, 1, DEC2), new AggCall(AggCall.Kind.COUNT, -1, ExprType.INT64),
      new AggCall(AggCall.Kind.SUM, 1, ExprType.BIG_DECIMAL), new AggCall(AggCall.Kind.MIN, 1, DEC2)));

  @Test void q18SumAboveALiteral() {
    Expr having = new Expr.Compare(Expr.CompareOp.GT, new Expr.Column(1, DEC2), new Expr.Literal(30000L, DEC2));
    assertArrayEquals(new long[] {0, 1, 1, 1, Expr.CompareOp.GT.ordinal(), 30000},
        GpuHaving.words(AGGREGATE, new PipelineStage.Filter(having), 0b1));
  }

  @Test void aLiteralOnTheLeftMirrorsTheComparison() {
    Expr having = new Expr.Compare(Expr.CompareOp.LT, new Expr.Literal(5L, ExprType.INT64),
        new Expr.Column(2, ExprType.INT64));
    assertArrayEquals(new long[] {1, 0, 0, 0, Expr.CompareOp.GT.ordinal(), 5},
        GpuHaving.words(AGGREGATE, new PipelineStage.Filter(having), 0));
  }

  /** The first conjunct the GPU can apply: the CPU applies the whole filter afterwards anyway. */
  @Test void anyConjunctOfAnAndWillDo() {
    Expr onKey = new Expr.Compare(Expr.CompareOp.EQ, new Expr.Column(0, ExprType.INT64),
        new Expr.Literal(1L, ExprType.INT64));
    Expr onMin = new Expr.Compare(Expr.CompareOp.GE, new Expr.Column(4, DEC2), new Expr.Literal(0L, DEC2));
    assertArrayEquals(new long[] {3, 0, 1, 0, Expr.CompareOp.GE.ordinal(), 0},
        GpuHaving.words(AGGREGATE, new PipelineStage.Filter(new Expr.Logical(true, List.of(onKey, onMin))), 0));
  }

  @Test void refusesWhatItCannotCompareExactly() {
    Expr onKey = new Expr.Compare(Expr.CompareOp.EQ, new Expr.Column(0, ExprType.INT64),
        new Expr.Literal(1L, ExprType.INT64));
    Expr onMin = new Expr.Compare(Expr.CompareOp.GE, new Expr.Column(4, DEC2), new Expr.Literal(0L, DEC2));
    Expr wide = new Expr.Compare(Expr.CompareOp.GT, new Expr.Column(3, ExprType.BIG_DECIMAL),
        new Expr.Literal(new java.math.BigDecimal("1.5"), ExprType.BIG_DECIMAL));
    Expr nullLiteral = new Expr.Compare(Expr.CompareOp.GT, new Expr.Column(1, DEC2), new Expr.Literal(null, DEC2));
    for (Expr e : List.of(onKey, wide, nullLiteral, new Expr.Logical(false, List.of(onKey, onMin)))) {
      assertSame(GpuHaving.NONE, GpuHaving.words(AGGREGATE, new PipelineStage.Filter(e), 0), e.toString());
    }
    assertSame(GpuHaving.NONE, GpuHaving.words(AGGREGATE, new PipelineStage.Project(List.of(onMin)), 0));
  }
}
