package org.spillway.gpu.exec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** What the GPU backend accepts and why it refuses the rest (no GPU needed: this is the planner's view). */
class GpuProgramTest {
  private static final List<ExprType> TYPES = List.of(ExprType.INT64, ExprType.decimal(2), ExprType.FLOAT64,
      ExprType.STRING, ExprType.BOOLEAN, ExprType.TEXT, ExprType.DATE);
  private static final AggCall COUNT = new AggCall(AggCall.Kind.COUNT, -1, ExprType.INT64);

  @Test void q6LikePipelineCompilesToOneProgram() {
    Expr shipped = new Expr.InRanges(new Expr.Column(6, ExprType.DATE), new long[] {8766}, new long[] {9130}, null);
    Expr cheap = new Expr.Compare(Expr.CompareOp.LT, new Expr.Column(1, ExprType.decimal(2)),
        new Expr.Literal(24L, ExprType.decimal(2)));
    Expr revenue = new Expr.Arith(Expr.ArithOp.TIMES, new Expr.Column(1, ExprType.decimal(2)),
        new Expr.Column(1, ExprType.decimal(2)), ExprType.decimal(4));
    List<PipelineStage> stages = List.of(new PipelineStage.Filter(new Expr.Logical(true, List.of(shipped, cheap))),
        new PipelineStage.Project(List.of(revenue)),
        new PipelineStage.Aggregate(new int[0], List.of(new AggCall(AggCall.Kind.SUM, 0, ExprType.decimal(4)))));
    GpuColumnarPipeline pipeline = new GpuColumnarPipeline(TYPES, stages);
    assertEquals("supported", pipeline.unsupportedReason().orElse("supported"));
    GpuProgram program = GpuProgram.compile(TYPES, stages.subList(0, 2), (PipelineStage.Aggregate) stages.get(2));
    assertEquals(List.of(6, 1), Arrays.stream(program.columns).boxed().toList(), "columns in first-use order");
    assertEquals(List.of(false, true), List.of(program.wide[0], program.wide[1]));
    assertEquals(program.code.length, program.length() * 4);
    assertEquals(program.origins.length, program.length());
  }

  @Test void refusesWhatTheKernelCannotDoExactly() {
    assertReason("FLOAT64 values", List.of(new PipelineStage.Filter(new Expr.Compare(Expr.CompareOp.LT,
        new Expr.Column(2, ExprType.FLOAT64), new Expr.Literal(1.0, ExprType.FLOAT64))), aggregate(new int[0])));
    assertReason("NULL literal", List.of(new PipelineStage.Filter(new Expr.Literal(null, ExprType.BOOLEAN)),
        aggregate(new int[0])));
    assertReason("input column $4 of type BOOLEAN", List.of(new PipelineStage.Filter(
        new Expr.Column(4, ExprType.BOOLEAN)), aggregate(new int[0])));
    assertReason("without an aggregation", List.of(new PipelineStage.Filter(new Expr.Compare(Expr.CompareOp.EQ,
        new Expr.Column(3, ExprType.STRING), new Expr.Literal(1L, ExprType.STRING)))));
    assertReason("need 128 bits", List.of(aggregate(new int[] {0, 1})));
    assertReason("MIN of FLOAT64", List.of(new PipelineStage.Aggregate(new int[0],
        List.of(new AggCall(AggCall.Kind.MIN, 2, ExprType.FLOAT64)))));
    assertEquals("supported", new GpuColumnarPipeline(TYPES, List.of(aggregate(new int[] {3, 6})))
        .unsupportedReason().orElse("supported"), "two 32-bit keys pack into 64 bits");
  }

  /** count(*) reads no column: there is nothing to stream, so it stays on the CPU (it failed on the GPU). */
  @Test void refusesAPipelineThatReadsNoColumn() {
    for (List<ExprType> inputs : List.of(List.<ExprType>of(), TYPES)) {
      String reason = new GpuColumnarPipeline(inputs, List.of(aggregate(new int[0])))
          .unsupportedReason().orElse("supported");
      assertTrue(reason.contains("reads no column"), reason);
    }
  }

  private static PipelineStage.Aggregate aggregate(int[] keys) {
    return new PipelineStage.Aggregate(keys, List.of(COUNT));
  }

  private static void assertReason(String expected, List<PipelineStage> stages) {
    String reason = new GpuColumnarPipeline(TYPES, stages).unsupportedReason().orElse("supported");
    assertTrue(reason.contains(expected), "expected '" + expected + "' in: " + reason);
  }
}
