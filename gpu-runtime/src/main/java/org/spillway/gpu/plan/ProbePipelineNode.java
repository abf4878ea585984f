package org.spillway.gpu.plan;

import org.spillway.gpu.pipeline.ColumnBatch;
import org.spillway.gpu.pipeline.cpu.ColumnarPipeline;
import org.spillway.gpu.vector.ExprType;
import org.spillway.gpu.vector.IndexedColumns;
import org.spillway.gpu.join.hash.JoinHashTable;
import org.spillway.gpu.join.hash.JoinProbe;
import org.spillway.gpu.pipeline.PipelineStage;
import org.spillway.gpu.expr.Expr;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.Optional;
import org.spillway.gpu.device.CudaDevice;
import org.spillway.gpu.device.DeviceAllocator;
import org.spillway.gpu.device.GpuRuntime;
import org.spillway.gpu.pipeline.gpu.GpuColumnarPipeline;
import java.util.function.IntFunction;
import java.util.function.Supplier;

/**
 * A pipeline that probes hash joins on its way (morsel-driven, as HyPer and DuckDB run joins): the build sides
 * run first, each into a {@link JoinHashTable} (side by side, with a source node's run, where none uses the GPU);
 * then the source (a table scan, or another node's output) streams in morsels through filters, projections and the
 * probes into the pipeline's end (an aggregation or the output rows).
 * The probe side of a join is never materialized, and a build column is gathered only where a later stage reads it.
 * Over a scan, the planner may run it on the GPU ({@link GpuPipelineChoice}): the build sides' tables and the
 * columns read from them are built in GPU memory, and the scan's columns stream through one kernel per chunk that
 * filters, probes and aggregates (or returns the rows); where the GPU cannot after all, the CPU runs it over the
 * same build sides, and the trace says why.
 */
public final class ProbePipelineNode implements PlanNode {
  private final ScanTable table;
  /** The scanned table's fields when the source is a scan, else null. */
  private final int[] scanFields;
  /** The source node when the source is not a scan, else null. */
  private final PlanNode source;
  private final List<ExprType> inputTypes;
  private final List<PipelineStage> stages;
  /** Per stage: the build side of a probe stage, else null. */
  private final List<JoinBuild> builds;
  private final List<ExprType> outputTypes;
  /** The GPU run the planner chose (a pipeline over a scan only), or null for the CPU backend. */
  private final GpuPipelineChoice gpu;
  /** The node this one reports as: itself, or the node it narrows ({@link #filteredBy}). */
  private final PlanNode reportedAs;

  public ProbePipelineNode(ScanTable table, int[] scanFields, PlanNode source, List<ExprType> inputTypes,
      List<PipelineStage> stages, List<JoinBuild> builds) {
    this(table, scanFields, source, inputTypes, stages, builds, null);
  }

  /** As above, run on the GPU as {@code gpu} says (null: the CPU backend); only a pipeline over a scan can be. */
  public ProbePipelineNode(ScanTable table, int[] scanFields, PlanNode source, List<ExprType> inputTypes,
      List<PipelineStage> stages, List<JoinBuild> builds, GpuPipelineChoice gpu) {
    this(table, scanFields, source, inputTypes, stages, builds, gpu, null);
  }

  private ProbePipelineNode(ScanTable table, int[] scanFields, PlanNode source, List<ExprType> inputTypes,
      List<PipelineStage> stages, List<JoinBuild> builds, GpuPipelineChoice gpu, PlanNode reportedAs) {
    this.reportedAs = reportedAs == null ? this : reportedAs;
    if (gpu != null && source != null) {
      throw new IllegalArgumentException("a GPU pipeline streams a scan, not an intermediate result");
    }
    this.gpu = gpu;
    this.table = table;
    this.scanFields = scanFields == null ? null : scanFields.clone();
    this.source = source;
    this.inputTypes = List.copyOf(inputTypes);
    this.stages = List.copyOf(stages);
    this.builds = new ArrayList<>(builds);
    this.outputTypes = new ColumnarPipeline(inputTypes, stages).outputTypes();
  }

  @Override public List<ExprType> types() {
    return outputTypes;
  }

  @Override public NodeOutput run(RunContext context) {
    BitSet all = new BitSet();
    all.set(0, outputTypes.size());
    return run(context, all);
  }

  @Override public NodeOutput run(RunContext context, BitSet read) {
    return run(context, read, s -> null);
  }

  /** Why the GPU cannot run a pipeline of {@code stages} (probes included) over columns of {@code inputTypes}, or empty. */
  public static Optional<String> gpuUnsupportedReason(List<ExprType> inputTypes, List<PipelineStage> stages) {
    return new GpuColumnarPipeline(inputTypes, stages).unsupportedReason();
  }

  @Override public boolean cpuOnly() {
    return gpu == null && (source == null || source.cpuOnly())
        && builds.stream().allMatch(b -> b == null || b.node().cpuOnly());
  }

  @Override public boolean atMostOneRow() {
    return PipelineStage.givesAtMostOneRow(stages);
  }

  /** This pipeline with a last stage filtering on {@code condition}, where the device it runs on can. */
  @Override public Optional<PlanNode> filteredBy(Expr condition) {
    List<JoinBuild> filteredBuilds = new ArrayList<>(builds);
    filteredBuilds.add(null);  // the filter stage probes nothing
    return ScanPipelineNode.filteredStages(inputTypes, stages, condition, gpu != null).map(filtered ->
        new ProbePipelineNode(table, scanFields, source, inputTypes, filtered, filteredBuilds, gpu, reportedAs));
  }

  /** Whether the planner chose the GPU for this pipeline. */
  public boolean onGpu() {
    return gpu != null;
  }

  /** The stages of this pipeline. */
  public List<PipelineStage> stages() {
    return stages;
  }

  /** The types of the rows that reach the last stage (a mark join's marking probe). */
  public List<ExprType> lastStageInputTypes() {
    return new ColumnarPipeline(inputTypes, stages.subList(0, stages.size() - 1)).outputTypes();
  }

  /**
   * This pipeline over a scan with its last stage (a mark join's marking probe) replaced by a semi-join probe of
   * {@code build}'s rows on the same keys ({@link #semiJoinReduced}), run as {@code gpu} says: its output is the rows
   * that would reach the marking probe and whose keys some build row has (the semi-join reduction of a mark join's
   * probe side).
   */
  public ProbePipelineNode reducedBy(JoinBuild build, GpuPipelineChoice gpu) {
    if (source != null) {
      throw new IllegalStateException("only a pipeline over a scan is reduced on the GPU");
    }
    List<JoinBuild> reducedBuilds = new ArrayList<>(builds.subList(0, builds.size() - 1));
    reducedBuilds.add(build);
    return new ProbePipelineNode(table, scanFields, null, inputTypes, semiJoinReduced(stages), reducedBuilds, gpu);
  }

  /** {@code stages}, which end in a marking probe, ending instead in a semi-join probe on the marking probe's keys. */
  public static List<PipelineStage> semiJoinReduced(List<PipelineStage> stages) {
    if (!GpuPipelineChoice.endsInMarks(stages)) {
      throw new IllegalArgumentException("only a marking probe's pipeline is reduced: " + stages);
    }
    JoinProbe marking = ((PipelineStage.HashJoinProbe) stages.get(stages.size() - 1)).probe();
    List<PipelineStage> reduced = new ArrayList<>(stages.subList(0, stages.size() - 1));
    reduced.add(new PipelineStage.HashJoinProbe(new JoinProbe(JoinProbe.Kind.SEMI, marking.probeKeys(),
        marking.probeKeyTypes(), marking.buildKeys(), marking.buildTypes(), false, null)));
    return reduced;
  }

  /** The build sides' columns that the probe of stage {@code stage} gathers, for a consumer reading {@code read}. */
  public BitSet buildColumnsRead(int stage, BitSet read) {
    return new ColumnarPipeline(inputTypes, stages, read).buildColumnsRead(stage);
  }

  /**
   * Runs the pipeline; the probe of a stage for which {@code prebound} gives a probe is that one, bound already by
   * the caller (a mark join, which reads the marks afterwards), the others are bound to build sides run here.
   */
  public NodeOutput run(RunContext context, BitSet read, IntFunction<JoinProbe> prebound) {
    if (gpu != null) {
      return runOnGpu(context, read, prebound);
    }
    ColumnarPipeline planned = new ColumnarPipeline(inputTypes, stages, read);
    List<PipelineStage> bound = new ArrayList<>(stages);
    // the build sides and a source node depend on nothing here but their own inputs: they run side by side
    List<PlanNode> inputs = new ArrayList<>();
    if (source != null) {
      inputs.add(source);
    }
    List<Integer> built = new ArrayList<>();
    List<Supplier<Object>> parts = new ArrayList<>();
    for (int s = 0; s < stages.size(); s++) {
      if (stages.get(s) instanceof PipelineStage.HashJoinProbe probe) {
        JoinProbe given = prebound.apply(s);
        if (given != null) {
          bound.set(s, new PipelineStage.HashJoinProbe(tabled(given, context, context.cancelled())));
        } else {
          JoinBuild build = builds.get(s);
          BitSet gathered = planned.buildColumnsRead(s);
          built.add(s);
          inputs.add(build.node());
          parts.add(() -> build(probe.probe(), build, gathered, context));
        }
      }
    }
    BitSet sourceRead = planned.inputColumnsRead();
    if (source != null) {
      parts.add(() -> source.run(context, sourceRead).batches(sourceRead));
    }
    List<Object> results = IndependentRuns.run(context, IndependentRuns.sideBySide(inputs), parts);
    for (int i = 0; i < built.size(); i++) {
      bound.set(built.get(i), new PipelineStage.HashJoinProbe((JoinProbe) results.get(i)));
    }
    ColumnarPipeline pipeline = new ColumnarPipeline(inputTypes, bound, read);
    context.checkCancelled("before a pipeline over " + sourceName());
    long start = System.nanoTime();
    List<ColumnBatch> out;
    if (source == null) {
      out = pipeline.run(ScanPipelineNode.sources(table, scanFields), context.threads(), context.cancelled());
    } else {
      @SuppressWarnings("unchecked")
      List<ColumnBatch> sourceBatches = (List<ColumnBatch>) results.get(built.size());
      out = pipeline.runColumns(sourceBatches, context.threads(), context.cancelled());
    }
    table.deviceRuns().record(false);
    RunContext.trace("cpu pipeline with join probes over %s (%d threads): %.1f ms", sourceName(),
        context.threads(), (System.nanoTime() - start) / 1e6);
    NodeOutput output = new BatchOutput(out, outputTypes);
    context.report(reportedAs, OperatorReport.Execution.CPU, output.rows(), start);
    return output;
  }

  /**
   * The GPU run: every build side runs (reading its key and the columns the CPU or the GPU program reads of it),
   * then the scan streams through the GPU pipeline, whose tables are built on the device from those rows. A probe
   * bound by the caller (a mark join's) is built from its own rows, and the marks the GPU sets are added to its own.
   */
  private NodeOutput runOnGpu(RunContext context, BitSet read, IntFunction<JoinProbe> prebound) {
    GpuColumnarPipeline pipeline = new GpuColumnarPipeline(inputTypes, stages).withFilterVariant(gpu.variant())
        .withExpectedGroups(gpu.expectedGroups()).withCoprocessing(gpu.coprocess());
    CudaDevice device = GpuRuntime.requireDevice();
    if (gpu.cacheRequestBytes() > 0) {
      pipeline.withCache(GpuColumnCaches.of(device, gpu.cacheRequestBytes()));
    }
    ColumnarPipeline planned = new ColumnarPipeline(inputTypes, stages, read);
    List<Integer> probeStages = new ArrayList<>();
    List<PlanNode> buildNodes = new ArrayList<>();
    List<Supplier<NodeOutput>> runs = new ArrayList<>();  // null for a probe the caller bound
    long start = System.nanoTime();
    for (int s = 0; s < stages.size(); s++) {
      if (stages.get(s) instanceof PipelineStage.HashJoinProbe probe) {
        int stage = s;
        BitSet columns = planned.buildColumnsRead(s);
        columns.or(pipeline.buildColumnsRead(probeStages.size()));
        for (int key : probe.probe().buildKeys()) {
          columns.set(key);
        }
        probeStages.add(s);
        if (prebound.apply(s) != null) {
          runs.add(null);
          continue;
        }
        buildNodes.add(builds.get(s).node());
        runs.add(() -> {
          context.checkCancelled("before the build side of " + builds.get(stage).label());
          return builds.get(stage).node().run(context, columns);
        });
      }
    }
    // the build sides run side by side where at most one of them uses the GPU
    List<NodeOutput> ran = IndependentRuns.run(context, IndependentRuns.sideBySide(buildNodes),
        runs.stream().filter(java.util.Objects::nonNull).toList());
    List<NodeOutput> buildRows = new ArrayList<>();  // null for a probe the caller bound
    List<IndexedColumns> gpuBuilds = new ArrayList<>();
    for (int i = 0, next = 0; i < runs.size(); i++) {
      NodeOutput rows = runs.get(i) == null ? null : ran.get(next++);
      buildRows.add(rows);
      gpuBuilds.add(rows != null ? rows : prebound.apply(probeStages.get(i)).build());
    }
    pipeline.withBuildMarks((probe, marks) -> prebound.apply(probeStages.get(probe)).markBuildRows(marks));
    long built = System.nanoTime();
    DeviceAllocator.Calls calls = device.allocator().calls();
    context.checkCancelled("before a GPU pipeline over " + table.name());
    List<ColumnBatch> out = pipeline.run(device, gpu.method(), ScanPipelineNode.sources(table, scanFields), gpuBuilds,
        stop -> cpuOver(context, read, probeStages, buildRows, prebound, stop), context.threads(),
        context.cancelled());
    table.deviceRuns().record(pipeline.lastFallback() == null);
    GpuColumnarPipeline.RunStats stats = pipeline.lastRun();
    String detail = pipeline.lastFallback() != null ? ", ran on the CPU: " + pipeline.lastFallback()
        : String.format(", %.1f MB of join tables built in GPU memory in %.1f ms (%s), %.3f GB streamed in %.1f ms"
            + " (%.1f GB/s; %s), %.3f GB returned, %s", pipeline.lastJoinBytes() / 1e6, pipeline.lastJoinNanos() / 1e6,
            pipeline.lastJoinTiming(), stats.bytes() / 1e9, stats.nanos() / 1e6, stats.gigabytesPerSecond(),
            stats.phases(), stats.returnedBytes() / 1e9, stats.kernel());
    RunContext.trace("gpu pipeline with %d join probes over %s (%s): %.1f ms after build sides of %.1f ms%s%s, %s",
        probeStages.size(), table.name(), gpu.method().label(), (System.nanoTime() - built) / 1e6,
        (built - start) / 1e6, detail, ScanPipelineNode.shareOf(pipeline), device.allocator().calls().since(calls));
    NodeOutput output = new BatchOutput(out, outputTypes);
    context.report(reportedAs, OperatorReport.Execution.of(pipeline), output.rows(), built);
    return output;
  }

  /**
   * The CPU backend over build sides that ran already: the fallback of a GPU run, or its share of the scan; building
   * its tables stops once {@code stop} turns true.
   */
  private ColumnarPipeline cpuOver(RunContext context, BitSet read, List<Integer> probeStages,
      List<NodeOutput> buildRows, IntFunction<JoinProbe> prebound, java.util.function.BooleanSupplier stop) {
    List<PipelineStage> bound = new ArrayList<>(stages);
    for (int i = 0; i < probeStages.size(); i++) {
      int s = probeStages.get(i);
      JoinProbe probe = ((PipelineStage.HashJoinProbe) stages.get(s)).probe();
      JoinProbe given = prebound.apply(s);
      bound.set(s, new PipelineStage.HashJoinProbe(given != null ? tabled(given, context, stop)
          : bind(probe, builds.get(s), buildRows.get(i), context, System.nanoTime(), stop)));
    }
    return new ColumnarPipeline(inputTypes, bound, read);
  }

  /** Runs a build side, reading its keys and the columns the probe gathers, and builds its table. */
  private static JoinProbe build(JoinProbe probe, JoinBuild build, BitSet gathered, RunContext context) {
    BitSet read = (BitSet) gathered.clone();
    for (int key : probe.buildKeys()) {
      read.set(key);
    }
    long start = System.nanoTime();
    return bind(probe, build, build.node().run(context, read), context, start, context.cancelled());
  }

  /** Builds the table of a probe over a build side's rows (run since {@code start}, for the trace). */
  public static JoinProbe bind(JoinProbe probe, JoinBuild build, NodeOutput rows, RunContext context,
      long start) {
    return bind(probe, build, rows, context, start, context.cancelled());
  }

  /**
   * A marking probe bound to a build side's rows for a GPU pipeline, which builds its table from them: the CPU's
   * table waits until the CPU probes ({@link #tabled}).
   */
  public static JoinProbe bindRows(JoinProbe probe, JoinBuild build, NodeOutput rows, long start) {
    JoinProbe bound = probe.bindRows(rows, build.buildDictionaries(), build.probeDictionaries());
    RunContext.trace("join build %s: %d rows for the GPU's table in %.1f ms, the CPU's table not built",
        build.label(), rows.rows(), (System.nanoTime() - start) / 1e6);
    return bound;
  }

  /** A caller's probe with its CPU table, built now where it was bound to its rows alone ({@link #bindRows}). */
  private static JoinProbe tabled(JoinProbe given, RunContext context, java.util.function.BooleanSupplier cancelled) {
    if (given.table() != null) {
      return given;
    }
    long start = System.nanoTime();
    JoinProbe tabled = given.withTable(context.threads(), cancelled);
    RunContext.trace("cpu join build of a marking probe (%s table) for the CPU's probe: %d rows in %.1f ms",
        tabled.table().direct() ? "direct" : "unchained", tabled.build().rows(), (System.nanoTime() - start) / 1e6);
    return tabled;
  }

  /** {@link #bind(JoinProbe, JoinBuild, NodeOutput, RunContext, long)}, stopping once {@code cancelled} turns true. */
  private static JoinProbe bind(JoinProbe probe, JoinBuild build, NodeOutput rows, RunContext context, long start,
      java.util.function.BooleanSupplier cancelled) {
    context.checkCancelled("before building the hash table of " + build.label());
    JoinProbe bound = probe.bind(rows, build.buildDictionaries(), build.probeDictionaries(), context.threads(),
        cancelled);
    RunContext.trace("cpu join build %s (%s table): %d rows in %.1f ms", build.label(),
        bound.table().direct() ? "direct" : "unchained", rows.rows(), (System.nanoTime() - start) / 1e6);
    return bound;
  }

  private String sourceName() {
    return source == null ? table.name() : "an intermediate result";
  }
}
