package org.spillway.gpu.plan;

import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.spillway.gpu.device.CudaDevice;
import org.spillway.gpu.device.DeviceAllocator;
import org.spillway.gpu.device.GpuRuntime;
import org.spillway.gpu.expr.Expr;
import org.spillway.gpu.pipeline.ColumnBatch;
import org.spillway.gpu.vector.ExprType;
import org.spillway.gpu.pipeline.gpu.GpuColumnarPipeline;
import org.spillway.gpu.pipeline.PipelineStage;
import org.spillway.gpu.pipeline.SourceBatch;
import org.spillway.gpu.pipeline.cpu.ColumnarPipeline;
import org.spillway.gpu.transfer.TransferMethod;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * A fused pipeline (filter, project, aggregate) over a table scan, run on the backend chosen at planning time
 * (the adapter's device choice): the GPU streams the columns through one kernel per chunk, the CPU runs morsels.
 */
public final class ScanPipelineNode implements PlanNode {
  private final ScanTable table;
  private final int[] fields;
  private final GpuColumnarPipeline pipeline;
  /** The transfer method of a GPU run; null where the CPU backend runs the pipeline. */
  private final TransferMethod method;
  /** The bytes the GPU run asks the column cache to hold; 0 for none. */
  private final long cacheRequestBytes;
  private final List<ExprType> inputTypes;
  private final List<PipelineStage> stages;
  private final GpuPipelineChoice gpu;
  /** The node this one reports as: itself, or the node it narrows ({@link #filteredBy}). */
  private final PlanNode reportedAs;

  /**
   * A pipeline of {@code stages} over the columns {@code fields} (of {@code inputTypes}) of {@code table}, on the
   * GPU as {@code gpu} says, or on the CPU backend where it is null.
   */
  public ScanPipelineNode(ScanTable table, int[] fields, List<ExprType> inputTypes, List<PipelineStage> stages,
      GpuPipelineChoice gpu) {
    this(table, fields, inputTypes, stages, gpu, null);
  }

  private ScanPipelineNode(ScanTable table, int[] fields, List<ExprType> inputTypes, List<PipelineStage> stages,
      GpuPipelineChoice gpu, PlanNode reportedAs) {
    this.reportedAs = reportedAs == null ? this : reportedAs;
    this.inputTypes = List.copyOf(inputTypes);
    this.stages = List.copyOf(stages);
    this.gpu = gpu;
    this.table = table;
    this.fields = fields.clone();
    this.pipeline = new GpuColumnarPipeline(inputTypes, stages);
    this.method = gpu == null ? null : gpu.method();
    this.cacheRequestBytes = gpu == null ? 0 : gpu.cacheRequestBytes();
    if (gpu != null) {
      pipeline.withFilterVariant(gpu.variant()).withExpectedGroups(gpu.expectedGroups())
          .withCoprocessing(gpu.coprocess());
    }
  }

  /** Why the GPU cannot run a pipeline of {@code stages} over columns of {@code inputTypes}, or empty. */
  public static Optional<String> gpuUnsupportedReason(List<ExprType> inputTypes, List<PipelineStage> stages) {
    return new GpuColumnarPipeline(inputTypes, stages).unsupportedReason();
  }

  /**
   * Why the CPU backend cannot share the scan of a pipeline of {@code stages} with the GPU
   * ({@link GpuColumnarPipeline#withCoprocessing}), or empty.
   */
  public static Optional<String> coprocessingUnsupportedReason(List<ExprType> inputTypes,
      List<PipelineStage> stages) {
    return Optional.ofNullable(new ColumnarPipeline(inputTypes, stages).partialsUnsupportedReason());
  }

  @Override public List<ExprType> types() {
    return pipeline.outputTypes();
  }

  @Override public boolean cpuOnly() {
    return method == null;
  }

  @Override public boolean atMostOneRow() {
    return PipelineStage.givesAtMostOneRow(stages);
  }

  /** This pipeline with a last stage filtering on {@code condition}, where the device it runs on can. */
  @Override public Optional<PlanNode> filteredBy(Expr condition) {
    return filteredStages(inputTypes, stages, condition, gpu != null)
        .map(filtered -> new ScanPipelineNode(table, fields, inputTypes, filtered, gpu, reportedAs));
  }

  /**
   * {@code stages} followed by a filter on {@code condition} over their output, unless the pipeline runs on the GPU
   * ({@code onGpu}) and the GPU cannot run that filter: empty then, as the planner chose the GPU for the stages it had.
   */
  static Optional<List<PipelineStage>> filteredStages(List<ExprType> inputTypes, List<PipelineStage> stages,
      Expr condition, boolean onGpu) {
    List<PipelineStage> filtered = PipelineStage.filteredAfter(stages, condition);
    return onGpu && gpuUnsupportedReason(inputTypes, filtered).isPresent() ? Optional.empty() : Optional.of(filtered);
  }

  @Override public NodeOutput run(RunContext context) {
    List<SourceBatch> sources = sources(table, fields);
    long start = System.nanoTime();
    List<ColumnBatch> out;
    if (method != null) {
      CudaDevice device = GpuRuntime.requireDevice();
      if (cacheRequestBytes > 0) {
        pipeline.withCache(GpuColumnCaches.of(device, cacheRequestBytes));
      }
      DeviceAllocator.Calls calls = device.allocator().calls();
      out = pipeline.run(device, method, sources, context.threads(), context.cancelled());
      table.deviceRuns().record(pipeline.lastFallback() == null);
      traceGpu(System.nanoTime() - start, device.allocator().calls().since(calls));
    } else {
      out = pipeline.cpuPipeline().run(sources, context.threads(), context.cancelled());
      table.deviceRuns().record(false);
      String aggregation = pipeline.cpuPipeline().lastAggregation();
      RunContext.trace("cpu pipeline over %s (%d threads): %.1f ms%s", table, context.threads(),
          (System.nanoTime() - start) / 1e6, aggregation == null ? "" : ", aggregated by " + aggregation);
    }
    NodeOutput output = new BatchOutput(out, pipeline.outputTypes());
    context.report(reportedAs, method == null ? OperatorReport.Execution.CPU : OperatorReport.Execution.of(pipeline),
        output.rows(), start);
    return output;
  }

  private void traceGpu(long nanos, String calls) {
    GpuColumnarPipeline.RunStats stats = pipeline.lastRun();
    String detail = pipeline.lastFallback() != null ? ", ran on the CPU: " + pipeline.lastFallback()
        : String.format(", %.3f GB streamed in %.1f ms (%.1f GB/s; %s), %.3f GB returned, %s", stats.bytes() / 1e9,
            stats.nanos() / 1e6, stats.gigabytesPerSecond(), stats.phases(), stats.returnedBytes() / 1e9,
            stats.kernel());
    RunContext.trace("gpu pipeline over %s (%s): %.1f ms%s%s, %s", table, method.label(), nanos / 1e6, detail,
        shareOf(pipeline), calls);
  }

  /** How a run shared its scan with the CPU backend, for the trace: empty where the GPU ran alone. */
  static String shareOf(GpuColumnarPipeline pipeline) {
    GpuColumnarPipeline.Share share = pipeline.lastShare();
    String stagesAfter = pipeline.lastFinishNanos() <= 0 ? "" : String.format(Locale.ROOT,
        ", %.1f ms in the CPU's stages after the aggregation", pipeline.lastFinishNanos() / 1e6);
    String setUp = pipeline.lastSetup().isEmpty() ? "" : ", " + pipeline.lastSetup();
    return setUp + stagesAfter + (share == null ? "" : String.format(Locale.ROOT,
        ", shared with the CPU: %d batches on the GPU%s (done at %.1f ms), %d on the CPU (done at %.1f ms)",
        share.gpu(), share.fallback() > 0 ? " (" + share.fallback() + " run on the CPU after all)" : "",
        share.gpuNanos() / 1e6, share.cpu(), share.cpuNanos() / 1e6));
  }

  /** The scanned columns of every batch of {@code table}, as a pipeline's source. */
  public static List<SourceBatch> sources(ScanTable table, int[] fields) {
    List<SourceBatch> sources = new ArrayList<>();
    for (VectorSchemaRoot batch : table.batches()) {
      List<FieldVector> columns = new ArrayList<>();
      for (int field : fields) {
        columns.add(batch.getVector(field));
      }
      sources.add(new SourceBatch(columns, batch.getRowCount()));
    }
    return sources;
  }
}
