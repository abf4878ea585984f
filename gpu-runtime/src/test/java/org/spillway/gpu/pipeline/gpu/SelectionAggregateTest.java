package org.spillway.gpu.pipeline.gpu;

import org.spillway.gpu.vector.ExprType;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.spillway.gpu.bench.PipelineWorkloads;
import org.spillway.gpu.expr.AggCall;
import org.spillway.gpu.expr.Expr;
import org.spillway.gpu.pipeline.PipelineStage;

/** Which pipelines run the specialized Q6 kernels (no GPU needed): exactly Q6's shape, nothing else. */
class SelectionAggregateTest {
  private static final List<ExprType> TYPES = PipelineWorkloads.LINEITEM_TYPES;
  private static final ExprType DEC2 = ExprType.decimal(2);
  private static final ExprType DEC4 = ExprType.decimal(4);
  private static final Expr SHIP = new Expr.Column(0, ExprType.DATE);
  private static final Expr QUANTITY = new Expr.Column(1, DEC2);
  private static final Expr PRICE = new Expr.Column(2, DEC2);
  private static final Expr DISCOUNT = new Expr.Column(3, DEC2);

  @Test void q6MatchesWithTheShipDateRangesIntersected() {
    List<PipelineStage> q6 = PipelineWorkloads.q6();
    SelectionAggregate shape = match(q6);
    assertNotNull(shape, "Q6 must run the selection kernel");
    GpuProgram program = compile(q6);
    List<Integer> columns = new ArrayList<>();
    for (int c : program.columns) {
      columns.add(c);
    }
    assertEquals(List.of(0, 3, 1, 2), columns, "slots in the order the program first reads the columns");
    assertEquals(List.of(new SelectionAggregate.Predicate(0, PipelineWorkloads.day(1994, 1, 1),
            PipelineWorkloads.day(1995, 1, 1) - 1), new SelectionAggregate.Predicate(1, 5, 7),
        new SelectionAggregate.Predicate(2, Long.MIN_VALUE, 2399)), shape.predicates);
    assertEquals(1, shape.sums.size());
    SelectionAggregate.Sum sum = shape.sums.get(0);
    assertEquals(List.of(0, 3, 1), List.of(sum.call(), sum.left(), sum.right()), "price (slot 3) times discount (slot 1)");
    long[] words = shape.argument(program.wideMask());
    assertEquals(3, words[0]);
    assertEquals(1, words[1 + 3 * SelectionAggregate.MAX_PREDICATES]);
    assertEquals(-1, words[1 + 3 * SelectionAggregate.MAX_PREDICATES + 1 + SelectionAggregate.MAX_SUMS],
        "price is not loaded by a predicate");
    assertEquals(1, words[1 + 3 * SelectionAggregate.MAX_PREDICATES + 1 + 3 * SelectionAggregate.MAX_SUMS],
        "discount is: predicate 1 loaded it");
    assertEquals(0b1110, words[words.length - 1], "slots 1..3 hold 8-byte decimals, slot 0 the 4-byte date");
  }

  @Test void literalsOnTheLeftAndCountsAndPlainSums() {
    Expr condition = new Expr.Logical(true, List.of(
        new Expr.Compare(Expr.CompareOp.GT, new Expr.Literal(500L, DEC2), QUANTITY),  // quantity < 5.00
        new Expr.Compare(Expr.CompareOp.EQ, DISCOUNT, new Expr.Literal(3L, DEC2)),
        new Expr.InRanges(SHIP, new long[0], new long[0], null)));
    List<PipelineStage> stages = List.of(new PipelineStage.Filter(condition),
        new PipelineStage.Aggregate(new int[0], List.of(new AggCall(AggCall.Kind.COUNT, -1, ExprType.INT64),
            new AggCall(AggCall.Kind.SUM0, 2, DEC2), new AggCall(AggCall.Kind.COUNT, 1, ExprType.INT64))));
    SelectionAggregate shape = match(stages);
    assertNotNull(shape);
    assertEquals(new SelectionAggregate.Predicate(0, Long.MIN_VALUE, 499), shape.predicates.get(0));
    assertEquals(new SelectionAggregate.Predicate(1, 3, 3), shape.predicates.get(1));
    assertArrayEquals(new long[] {1, 0}, new long[] {shape.predicates.get(2).low(), shape.predicates.get(2).high()},
        "an empty IN list selects nothing");
    assertEquals(1, shape.sums.size());
    assertEquals(List.of(1, -1), List.of(shape.sums.get(0).call(), shape.sums.get(0).right()));
  }

  @Test void anythingElseKeepsTheInterpreter() {
    Expr product = new Expr.Arith(Expr.ArithOp.TIMES, PRICE, DISCOUNT, DEC4);
    Expr cheap = new Expr.Compare(Expr.CompareOp.LT, QUANTITY, new Expr.Literal(2400L, DEC2));
    PipelineStage sum = new PipelineStage.Aggregate(new int[0], List.of(new AggCall(AggCall.Kind.SUM, 0, DEC4)));
    PipelineStage project = new PipelineStage.Project(List.of(product));
    assertNotNull(match(List.of(new PipelineStage.Filter(cheap), project, sum)));
    // NE is two ranges; OR, NOT and a second IN range are not conjunctions of ranges
    assertNull(match(List.of(new PipelineStage.Filter(new Expr.Compare(Expr.CompareOp.NE, QUANTITY,
        new Expr.Literal(1L, DEC2))), project, sum)));
    assertNull(match(List.of(new PipelineStage.Filter(new Expr.Logical(false, List.of(cheap, cheap))), project, sum)));
    assertNull(match(List.of(new PipelineStage.Filter(new Expr.Not(cheap)), project, sum)));
    assertNull(match(List.of(new PipelineStage.Filter(new Expr.InRanges(DISCOUNT, new long[] {1, 5},
        new long[] {2, 6}, null)), project, sum)));
    // a column compared with a column, a filter after the product (the CPU multiplies rows the filter drops)
    assertNull(match(List.of(new PipelineStage.Filter(new Expr.Compare(Expr.CompareOp.LT, QUANTITY, PRICE)),
        project, sum)));
    assertNull(match(List.of(new PipelineStage.Project(List.of(product, QUANTITY)),
        new PipelineStage.Filter(new Expr.Compare(Expr.CompareOp.LT, new Expr.Column(1, DEC2),
            new Expr.Literal(2400L, DEC2))), sum)));
    // a product no SUM reads, MIN, GROUP BY, other arithmetic
    assertNull(match(List.of(new PipelineStage.Project(List.of(product, PRICE)),
        new PipelineStage.Aggregate(new int[0], List.of(new AggCall(AggCall.Kind.SUM, 1, DEC2))))));
    assertNull(match(List.of(project, new PipelineStage.Aggregate(new int[0],
        List.of(new AggCall(AggCall.Kind.MIN, 0, DEC4))))));
    assertNull(match(List.of(new PipelineStage.Project(List.of(product, new Expr.Column(5, ExprType.STRING))),
        new PipelineStage.Aggregate(new int[] {1}, List.of(new AggCall(AggCall.Kind.SUM, 0, DEC4))))));
    assertNull(match(List.of(new PipelineStage.Project(List.of(new Expr.Arith(Expr.ArithOp.PLUS, PRICE, DISCOUNT,
        DEC2))), new PipelineStage.Aggregate(new int[0], List.of(new AggCall(AggCall.Kind.SUM, 0, DEC2))))));
    assertNull(match(PipelineWorkloads.q1()), "Q1 groups");
  }

  @Test void theKernelNameFollowsTheShapeAndTheVariant() {
    GpuColumnarPipeline q6 = new GpuColumnarPipeline(TYPES, PipelineWorkloads.q6());
    assertEquals("selection_aggregate_branching", q6.kernelName().orElseThrow());
    assertEquals("selection_aggregate_predication",
        q6.withFilterVariant(FilterVariant.PREDICATION).kernelName().orElseThrow());
    assertEquals("columnar_pipeline_global", q6.withSelectionKernel(false).kernelName().orElseThrow());
    assertEquals("columnar_pipeline_grouped",
        new GpuColumnarPipeline(TYPES, PipelineWorkloads.q1()).kernelName().orElseThrow());
  }

  private static GpuProgram compile(List<PipelineStage> stages) {
    return GpuProgram.compile(TYPES, stages.subList(0, stages.size() - 1),
        (PipelineStage.Aggregate) stages.get(stages.size() - 1));
  }

  private static SelectionAggregate match(List<PipelineStage> stages) {
    return SelectionAggregate.match(TYPES, stages.subList(0, stages.size() - 1),
        (PipelineStage.Aggregate) stages.get(stages.size() - 1), compile(stages));
  }
}
