package org.spillway.gpu.plan;

import org.spillway.gpu.pipeline.ColumnBatch;
import org.spillway.gpu.pipeline.PipelineStage;
import org.spillway.gpu.pipeline.cpu.ColumnarPipeline;
import org.spillway.gpu.vector.ExprType;

import java.util.BitSet;
import java.util.List;
import java.util.Optional;
import org.spillway.gpu.expr.Expr;

/**
 * A fused pipeline over another node's output (a filter, project or aggregate above a join), run by the CPU
 * backend over the materialized input columns: the GPU pipeline streams Arrow columns of a table, and a join's
 * output lives in Java arrays.
 */
public final class PipelineNode implements PlanNode {
  private final PlanNode input;
  private final ColumnarPipeline pipeline;
  private final DeviceRuns usage;
  /** The node this one reports as: itself, or the node it narrows ({@link #filteredBy}). */
  private final PlanNode reportedAs;

  /** A pipeline of {@code stages} over the output of {@code input}; its runs are counted in {@code usage}. */
  public PipelineNode(PlanNode input, List<PipelineStage> stages, DeviceRuns usage) {
    this(input, stages, usage, null);
  }

  private PipelineNode(PlanNode input, List<PipelineStage> stages, DeviceRuns usage, PlanNode reportedAs) {
    this.reportedAs = reportedAs == null ? this : reportedAs;
    this.input = input;
    this.pipeline = new ColumnarPipeline(input.types(), stages);
    this.usage = usage;
  }

  @Override public List<ExprType> types() {
    return pipeline.outputTypes();
  }

  @Override public boolean cpuOnly() {
    return input.cpuOnly();
  }

  @Override public boolean atMostOneRow() {
    return PipelineStage.givesAtMostOneRow(pipeline.stages());
  }

  @Override public Optional<PlanNode> filteredBy(Expr condition) {
    return Optional.of(new PipelineNode(input, PipelineStage.filteredAfter(pipeline.stages(), condition), usage,
        reportedAs));
  }

  @Override public NodeOutput run(RunContext context) {
    BitSet read = pipeline.inputColumnsRead();
    List<ColumnBatch> in = input.run(context, read).batches(read);
    context.checkCancelled("before a pipeline over a join");
    long start = System.nanoTime();
    List<ColumnBatch> out = pipeline.runColumns(in, context.threads(), context.cancelled());
    usage.record(false);
    RunContext.trace("cpu pipeline over a join's output (%d threads): %.1f ms", context.threads(),
        (System.nanoTime() - start) / 1e6);
    NodeOutput output = new BatchOutput(out, pipeline.outputTypes());
    context.report(reportedAs, OperatorReport.Execution.CPU, output.rows(), start);
    return output;
  }
}
