package org.spillway.gpu.plan;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.spillway.gpu.expr.AggCall;
import org.spillway.gpu.expr.Expr;
import org.spillway.gpu.pipeline.ColumnBatch;
import org.spillway.gpu.pipeline.PipelineStage;
import org.spillway.gpu.vector.ColumnVector;
import org.spillway.gpu.vector.ExprType;

/**
 * The nested-loop join against a scalar side (Q11's shape: groups whose sum exceeds a share of the total): the small
 * side's one row narrows the big side's pipeline before the join, which changes no row of the result, and the big
 * side still reports as the planner's node.
 */
class NestedLoopJoinNodeTest {
  private static final ExprType I64 = ExprType.INT64;

  @Test void aScalarSideNarrowsTheBigSidesGroupsAndTheRowsStayTheSame() {
    Random random = new Random(11);
    for (int round = 0; round < 5; round++) {
      int rows = 1 + random.nextInt(5000);
      long[] keys = new long[rows];
      long[] values = new long[rows];
      for (int r = 0; r < rows; r++) {
        keys[r] = random.nextInt(1 + random.nextInt(800));
        values[r] = random.nextInt(2000) - 300;
      }
      PlanNode source = rowsOf(keys, values);
      // big: SELECT k, SUM(v) GROUP BY k; small: SELECT SUM(v) / 500; condition: $1 > $2
      PlanNode groups = new PipelineNode(source, List.of(new PipelineStage.Aggregate(new int[] {0},
          List.of(new AggCall(AggCall.Kind.SUM, 1, I64)))), DeviceRuns.NONE);
      PlanNode share = new PipelineNode(source, List.of(new PipelineStage.Aggregate(new int[0],
          List.of(new AggCall(AggCall.Kind.SUM, 1, I64))), new PipelineStage.Project(List.of(new Expr.Arith(
              Expr.ArithOp.DIVIDE, new Expr.Column(0, I64), new Expr.Literal(500L, I64), I64)))), DeviceRuns.NONE);
      assertTrue(share.atMostOneRow() && !groups.atMostOneRow());
      Expr above = new Expr.Compare(Expr.CompareOp.GT, new Expr.Column(1, I64), new Expr.Column(2, I64));
      NestedLoopJoinNode join = new NestedLoopJoinNode(groups, share, above, new int[] {1, 2}, false, false);
      OperatorReports reports = new OperatorReports();
      RunContext context = new RunContext(2, () -> false, Map.of(groups, new PlannedOperator("groups", 1, 0)),
          reports);
      NodeOutput out = join.run(context);

      Map<Long, Long> sums = new TreeMap<>();
      long total = 0;
      for (int r = 0; r < rows; r++) {
        sums.merge(keys[r], values[r], Long::sum);
        total += values[r];
      }
      List<String> expected = new ArrayList<>();
      for (Map.Entry<Long, Long> e : sums.entrySet()) {
        if (e.getValue() > total / 500) {
          expected.add(e.getKey() + "," + e.getValue() + "," + total / 500);
        }
      }
      List<String> actual = new ArrayList<>();
      for (int r = 0; r < out.rows(); r++) {
        actual.add(out.column(0).longs[r] + "," + out.column(1).longs[r] + "," + out.column(2).longs[r]);
      }
      actual.sort(null);
      expected.sort(null);
      assertEquals(expected, actual, "round " + round);
      OperatorReport big = reports.list().stream().filter(r -> r.planned().label().equals("groups")).findFirst()
          .orElseThrow();
      assertEquals(expected.size(), big.rows(), "the big side brings only the groups the join keeps");
    }
  }

  /** A LEFT join keeps the big rows that match nothing: nothing narrows its big side. */
  @Test void aLeftJoinsBigSideIsNotNarrowed() {
    PlanNode source = rowsOf(new long[] {1, 2, 3}, new long[] {10, 20, 30});
    PlanNode rows = new PipelineNode(source, List.of(new PipelineStage.Project(List.of(new Expr.Column(0, I64),
        new Expr.Column(1, I64)))), DeviceRuns.NONE);
    PlanNode one = new PipelineNode(source, List.of(new PipelineStage.Aggregate(new int[0],
        List.of(new AggCall(AggCall.Kind.MAX, 1, I64)))), DeviceRuns.NONE);
    Expr equal = new Expr.Compare(Expr.CompareOp.EQ, new Expr.Column(1, I64), new Expr.Column(2, I64));
    NodeOutput out = new NestedLoopJoinNode(rows, one, equal, new int[] {1, 2}, true, false)
        .run(new RunContext(2, () -> false));
    assertEquals(3, out.rows());
  }

  private static PlanNode rowsOf(long[] keys, long[] values) {
    List<ExprType> types = List.of(I64, I64);
    return new PlanNode() {
      @Override public List<ExprType> types() {
        return types;
      }

      @Override public NodeOutput run(RunContext context) {
        return new BatchOutput(List.of(new ColumnBatch(new ColumnVector[] {
            ColumnVector.ofLongs(I64, keys, null, keys.length),
            ColumnVector.ofLongs(I64, values, null, values.length)}, keys.length)), types);
      }
    };
  }
}
