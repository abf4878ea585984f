package org.spillway.adapter;

import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.spillway.gpu.device.GpuRuntime;
import org.spillway.gpu.exec.ColumnBatch;
import org.spillway.gpu.exec.ExprType;
import org.spillway.gpu.exec.GpuColumnarPipeline;
import org.spillway.gpu.exec.SourceBatch;

import java.util.ArrayList;
import java.util.List;

/**
 * A fused pipeline (filter, project, aggregate) over a table scan, run on the backend chosen at planning time
 * ({@link SpillwayBackend}): the GPU streams the columns through one kernel per chunk, the CPU runs morsels.
 */
final class SpillwayScanPipelineNode implements SpillwayNode {
  private final SpillwayTable table;
  private final int[] fields;
  private final GpuColumnarPipeline pipeline;
  private final SpillwayBackend backend;

  SpillwayScanPipelineNode(SpillwayTable table, int[] fields, GpuColumnarPipeline pipeline, SpillwayBackend backend) {
    this.table = table;
    this.fields = fields.clone();
    this.pipeline = pipeline;
    this.backend = backend;
  }

  @Override public List<ExprType> types() {
    return pipeline.outputTypes();
  }

  @Override public SpillwayColumns run(SpillwayRunContext context) {
    List<SourceBatch> sources = sources(table, fields);
    long start = System.nanoTime();
    List<ColumnBatch> out;
    if (backend != null && backend.gpu()) {
      out = pipeline.run(GpuRuntime.requireDevice(), backend.method(), sources, context.threads(), context.cancelled());
      table.deviceUsage().record(pipeline.lastFallback() == null);
      traceGpu(System.nanoTime() - start);
    } else {
      out = pipeline.cpuPipeline().run(sources, context.threads(), context.cancelled());
      table.deviceUsage().record(false);
      SpillwayRunContext.trace("cpu pipeline over %s (%d threads): %.1f ms", table, context.threads(),
          (System.nanoTime() - start) / 1e6);
    }
    return new SpillwayBatchColumns(out, pipeline.outputTypes());
  }

  private void traceGpu(long nanos) {
    GpuColumnarPipeline.RunStats stats = pipeline.lastRun();
    String detail = pipeline.lastFallback() != null ? ", ran on the CPU: " + pipeline.lastFallback()
        : String.format(", %.3f GB streamed in %.1f ms (%.1f GB/s)", stats.bytes() / 1e9, stats.nanos() / 1e6,
            stats.gigabytesPerSecond());
    SpillwayRunContext.trace("gpu pipeline over %s (%s): %.1f ms%s", table, backend.transfer(), nanos / 1e6, detail);
  }

  /** The scanned columns of every batch of {@code table}, as a pipeline's source. */
  static List<SourceBatch> sources(SpillwayTable table, int[] fields) {
    List<SourceBatch> sources = new ArrayList<>();
    for (VectorSchemaRoot batch : table.stored().batches()) {
      List<FieldVector> columns = new ArrayList<>();
      for (int field : fields) {
        columns.add(batch.getVector(field));
      }
      sources.add(new SourceBatch(columns, batch.getRowCount()));
    }
    return sources;
  }
}
