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
  /** The aggregate's input: the key, the decimal argument. */
  private static final List<ExprType> INPUT = List.of(ExprType.INT64, DEC2);

  @Test void q18SumAboveALiteral() {
    Expr having = new Expr.Compare(Expr.CompareOp.GT, new Expr.Column(1, DEC2), new Expr.Literal(30000L, DEC2));
    assertArrayEquals(new long[] {0, 1, 1, 1, Expr.CompareOp.GT.ordinal(), 30000, 0, 0},
        GpuHaving.words(AGGREGATE, new PipelineStage.Filter(having), 0b1, INPUT));
  }

  @Test void aLiteralOnTheLeftMirrorsTheComparison() {
    Expr having = new Expr.Compare(Expr.CompareOp.LT, new Expr.Literal(5L, ExprType.INT64),
        new Expr.Column(2, ExprType.INT64));
    assertArrayEquals(new long[] {1, 0, 0, 0, Expr.CompareOp.GT.ordinal(), 5, 0, 0},
        GpuHaving.words(AGGREGATE, new PipelineStage.Filter(having), 0, INPUT));
  }

  /** The first conjunct the GPU can apply: the CPU applies the whole filter afterwards anyway. */
  @Test void anyConjunctOfAnAndWillDo() {
    Expr onKey = new Expr.Compare(Expr.CompareOp.EQ, new Expr.Column(0, ExprType.INT64),
        new Expr.Literal(1L, ExprType.INT64));
    Expr onMin = new Expr.Compare(Expr.CompareOp.GE, new Expr.Column(4, DEC2), new Expr.Literal(0L, DEC2));
    assertArrayEquals(new long[] {3, 0, 1, 0, Expr.CompareOp.GE.ordinal(), 0, 0, 0},
        GpuHaving.words(AGGREGATE, new PipelineStage.Filter(new Expr.Logical(true, List.of(onKey, onMin))), 0, INPUT));
  }

  /** A negative constant's high word is its sign. */
  @Test void aNegativeConstantExtendsItsSign() {
    Expr having = new Expr.Compare(Expr.CompareOp.LE, new Expr.Column(1, DEC2), new Expr.Literal(-7L, DEC2));
    assertArrayEquals(new long[] {0, 0, 1, 1, Expr.CompareOp.LE.ordinal(), -7, 0, -1},
        GpuHaving.words(AGGREGATE, new PipelineStage.Filter(having), 0, INPUT));
  }

  /**
   * A wide sum compares its 128 bits with the literal unscaled at the argument's scale (Q11's groups above a share
   * of the total): 1.5 at scale 2 is 150; a literal beyond 64 bits keeps its high word.
   */
  @Test void aWideSumComparesWithTheLiteralAtItsArgumentsScale() {
    Expr above = new Expr.Compare(Expr.CompareOp.GT, new Expr.Column(3, ExprType.BIG_DECIMAL),
        new Expr.Literal(new java.math.BigDecimal("1.5"), ExprType.BIG_DECIMAL));
    assertArrayEquals(new long[] {2, 1, 1, 1, Expr.CompareOp.GT.ordinal(), 150, 1, 0},
        GpuHaving.words(AGGREGATE, new PipelineStage.Filter(above), 0b100, INPUT));
    java.math.BigDecimal huge = new java.math.BigDecimal(java.math.BigInteger.ONE.shiftLeft(70).negate(), 2);
    Expr below = new Expr.Compare(Expr.CompareOp.GT, new Expr.Literal(huge, ExprType.BIG_DECIMAL),
        new Expr.Column(3, ExprType.BIG_DECIMAL));
    assertArrayEquals(new long[] {2, 0, 1, 1, Expr.CompareOp.LT.ordinal(), 0, 1, -(1L << 6)},
        GpuHaving.words(AGGREGATE, new PipelineStage.Filter(below), 0, INPUT));
  }

  /** A literal with more decimals than the sum becomes the bound at the sum's scale that keeps the same sums. */
  @Test void aWideSumsLiteralWithMoreDecimalsRoundsTowardsTheSumsItKeeps() {
    java.math.BigDecimal between = new java.math.BigDecimal("-1.005");  // between -1.01 and -1.00
    long[] expected = {-101, -100, -100, -101};
    List<Expr.CompareOp> ops = List.of(Expr.CompareOp.GT, Expr.CompareOp.GE, Expr.CompareOp.LT, Expr.CompareOp.LE);
    for (int i = 0; i < ops.size(); i++) {
      Expr having = new Expr.Compare(ops.get(i), new Expr.Column(3, ExprType.BIG_DECIMAL),
          new Expr.Literal(between, ExprType.BIG_DECIMAL));
      assertArrayEquals(new long[] {2, 0, 1, 1, ops.get(i).ordinal(), expected[i], 1, -1},
          GpuHaving.words(AGGREGATE, new PipelineStage.Filter(having), 0, INPUT), ops.get(i).name());
    }
  }

  @Test void refusesWhatItCannotCompareExactly() {
    Expr onKey = new Expr.Compare(Expr.CompareOp.EQ, new Expr.Column(0, ExprType.INT64),
        new Expr.Literal(1L, ExprType.INT64));
    Expr onMin = new Expr.Compare(Expr.CompareOp.GE, new Expr.Column(4, DEC2), new Expr.Literal(0L, DEC2));
    // 1.505 is not a value at the wide sum's scale 2: no sum equals it
    Expr wide = new Expr.Compare(Expr.CompareOp.EQ, new Expr.Column(3, ExprType.BIG_DECIMAL),
        new Expr.Literal(new java.math.BigDecimal("1.505"), ExprType.BIG_DECIMAL));
    Expr nullLiteral = new Expr.Compare(Expr.CompareOp.GT, new Expr.Column(1, DEC2), new Expr.Literal(null, DEC2));
    for (Expr e : List.of(onKey, wide, nullLiteral, new Expr.Logical(false, List.of(onKey, onMin)))) {
      assertSame(GpuHaving.NONE, GpuHaving.words(AGGREGATE, new PipelineStage.Filter(e), 0, INPUT), e.toString());
    }
    assertSame(GpuHaving.NONE, GpuHaving.words(AGGREGATE, new PipelineStage.Project(List.of(onMin)), 0, INPUT));
  }
}
