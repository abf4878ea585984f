package org.spillway.gpu.plan;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.spillway.gpu.expr.Expr;
import org.spillway.gpu.pipeline.ColumnBatch;
import org.spillway.gpu.vector.ColumnVector;
import org.spillway.gpu.vector.ExprType;

/** Which conjuncts of a nested-loop join's condition the small side's one row turns into a filter of the big side. */
class ScalarSideFilterTest {
  private static final ExprType I64 = ExprType.INT64;
  /** Big side: $0, $1; small side's row: $2 = 7, $3 = NULL. */
  private static final Expr B0 = new Expr.Column(0, I64);
  private static final Expr B1 = new Expr.Column(1, I64);
  private static final Expr S2 = new Expr.Column(2, I64);
  private static final Expr S3 = new Expr.Column(3, I64);

  @Test void aComparisonWithTheSmallSideTakesItsValue() {
    Expr twice = new Expr.Arith(Expr.ArithOp.TIMES, S2, new Expr.Literal(2L, I64), I64);
    assertEquals("GT($0, 14)", filter(new Expr.Compare(Expr.CompareOp.GT, B0, twice)));
    assertEquals("LT(7, $1)", filter(new Expr.Compare(Expr.CompareOp.LT, S2, B1)));
  }

  @Test void bigSideConjunctsStayAndMixedOnesAreLeftToTheJoin() {
    Expr big = new Expr.Compare(Expr.CompareOp.NE, B0, B1);
    Expr mixed = new Expr.Compare(Expr.CompareOp.EQ, new Expr.Arith(Expr.ArithOp.PLUS, B0, S2, I64), B1);
    Expr small = new Expr.Compare(Expr.CompareOp.GE, S2, B0);
    assertEquals("AND[NE($0, $1), GE(7, $0)]", filter(new Expr.Logical(true, List.of(big, mixed, small))));
    assertEquals("none", filter(mixed));
    assertEquals("none", filter(new Expr.Logical(false, List.of(small, big))), "an OR is one conjunct, mixed");
  }

  @Test void aNullValueBecomesANullLiteralAndAFailureNoFilter() {
    assertEquals("EQ($0, null)", filter(new Expr.Compare(Expr.CompareOp.EQ, B0, S3)));
    Expr divided = new Expr.Arith(Expr.ArithOp.DIVIDE, S2, new Expr.Literal(0L, I64), I64);
    assertEquals("none", filter(new Expr.Compare(Expr.CompareOp.EQ, B0, divided)));
  }

  private static String filter(Expr condition) {
    ColumnVector seven = ColumnVector.ofLongs(I64, new long[] {7}, null, 1);
    ColumnVector none = ColumnVector.ofLongs(I64, new long[] {0}, new boolean[] {true}, 1);
    NodeOutput row = new BatchOutput(List.of(new ColumnBatch(new ColumnVector[] {seven, none}, 1)), List.of(I64, I64));
    Optional<Expr> filter = ScalarSideFilter.of(condition, 2, row);
    filter.ifPresent(f -> assertTrue(f.type() == ExprType.BOOLEAN));
    return filter.map(Expr::toString).orElse("none");
  }
}
