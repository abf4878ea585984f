package org.spillway.adapter;

import java.io.UncheckedIOException;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.function.Supplier;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.core.Aggregate;
import org.apache.calcite.rel.core.Filter;
import org.apache.calcite.rel.metadata.RelMetadataQuery;
import org.spillway.gpu.calibrate.MachineProfile;
import org.spillway.gpu.device.GpuRuntime;
import org.spillway.gpu.device.HostMemoryKind;
import org.spillway.gpu.pipeline.PipelineStage;
import org.spillway.gpu.pipeline.gpu.FilterVariant;
import org.spillway.gpu.plan.GpuPipelineChoice;
import org.spillway.gpu.plan.ScanPipelineNode;
import org.spillway.gpu.transfer.TransferMethod;
import org.spillway.gpu.vector.ExprType;

/**
 * Which backend runs a Spillway subtree's pipeline, and why. CPU when the connection says so; otherwise, where a
 * CUDA device is present and the GPU supports the pipeline ({@link ScanPipelineNode#gpuUnsupportedReason}),
 * {@link SpillwayCostModel} predicts the GPU with each transfer method the table's memory allows (or the forced
 * one) and the CPU backend, and {@code device=auto} takes the cheaper; the transfer method and filter variant are the cheapest GPU run's unless
 * the connection forces them. The converter decides once per subtree and records the choice in the subtree's
 * scan node, so that every node of the subtree shows the same device, variant, transfer and costs in EXPLAIN.
 * Pipelines over a join's output and the nodes above a join run on the CPU (see SpillwayJoin for joins).
 *
 * @param costing the prediction behind the choice, or null where none was made (CPU forced, or no GPU)
 * @param cacheBytes capacity of the GPU column cache the pipeline reads through, 0 when it uses none
 * @param groups the groups the pipeline's aggregation is estimated to make (0: none), which size its GPU table
 * @param coprocess whether the CPU backend shares the GPU's scan (under {@code device=auto}, where the cost model
 *     predicts the two together at most {@link SpillwayCostModel#SHARED_GAIN} of the faster one alone)
 */
record SpillwayBackend(boolean gpu, TransferMethod method, FilterVariant variant, String reason,
    SpillwayCostModel.Estimate costing, double selectivity, long cacheBytes, long groups, boolean coprocess) {
  /** System property forcing the transfer method when the connection's {@code transfer} is auto (fallback). */
  static final String TRANSFER_PROPERTY = "spillway.gpu.transfer";
  /**
   * System property that, set to false, keeps the CPU backend out of GPU pipelines' scans under {@code device=auto}
   * (for comparisons; default true).
   */
  static final String COPROCESS_PROPERTY = "spillway.coprocess";
  /**
   * System property: {@code force} makes a GPU pass reduce every mark join's probe side the GPU can stream (and leaves
   * the marking to the CPU), {@code off} none; otherwise (default) the cost model decides ({@link #chooseReduction}),
   * under {@code device=gpu} as well.
   */
  static final String MARK_REDUCTION_PROPERTY = "spillway.markReduction";

  /** Whether {@link #MARK_REDUCTION_PROPERTY} forces the semi-join reduction. */
  static boolean markReductionForced() {
    return "force".equalsIgnoreCase(System.getProperty(MARK_REDUCTION_PROPERTY));
  }

  private static final SpillwayBackend CPU = cpu(null);

  private static SpillwayBackend cpu(String reason) {
    return new SpillwayBackend(false, null, null, reason, null, Double.NaN, 0, 0, false);
  }

  /** The device label EXPLAIN shows. */
  String device() {
    return gpu ? "gpu" : "cpu";
  }

  /** EXPLAIN's label of the processors sharing the scan with the GPU: "cpu", or empty where the GPU runs alone. */
  String coprocessor() {
    return coprocess ? "cpu" : "";
  }

  /** The transfer method label EXPLAIN shows ("none": the CPU backend reads host memory in place). */
  String transfer() {
    return gpu ? method.label() : "none";
  }

  /**
   * Decides for the pipeline of {@code stages} over the columns (of {@code types}) that {@code scan} reads, up to
   * {@code top}, and records it in the scan, for EXPLAIN.
   */
  static SpillwayBackend choose(RelNode top, SpillwayTableScan scan, List<ExprType> types,
      List<PipelineStage> stages) {
    SpillwayBackend backend = decide(top, scan, types, stages, () -> SpillwayPipelineShape.of(top, scan), 0, 0, 0);
    scan.backend(backend);
    return backend;
  }

  /**
   * Decides for a pipeline that probes joins ({@code stages} include their probes) over the columns {@code scan}
   * reads: as {@link #choose}, with the joins' probes added to each side's prediction ({@code probeCpuMillis} on
   * the CPU, {@code probeGpuMillis} with their tables in GPU memory); {@code refusal} (null: none) is why a GPU
   * pipeline cannot probe one of the joins. {@code buildCpuMillis}, the part of the CPU's probes that builds their
   * tables, is not shared: where the CPU shares the scan, it builds every table of its own before its first batch.
   */
  static SpillwayBackend chooseProbing(RelNode top, SpillwayTableScan scan, List<ExprType> types,
      List<PipelineStage> stages, double probeCpuMillis, double probeGpuMillis, double buildCpuMillis,
      String refusal) {
    boolean aggregates = stages.stream().anyMatch(s -> s instanceof PipelineStage.Aggregate);
    // a mark join's probe side ends in its marking probe: like an aggregation, it returns no rows
    boolean marks = GpuPipelineChoice.endsInMarks(stages);
    SpillwayBackend backend = refusal != null && scan.spillwayTable().options().device() != SpillwayDevice.CPU
        && SpillwayGpuSite.current().isPresent() ? cpu(refusal)
        : decide(top, scan, types, stages, () -> SpillwayPipelineShape.ofProbing(top, scan, aggregates || marks),
            probeCpuMillis, probeGpuMillis, buildCpuMillis);
    scan.backend(backend);
    return backend;
  }

  /**
   * Decides whether a GPU pass reduces a mark join's probe side that the CPU marks: {@code stages} are the probe side's
   * with its marking probe replaced by a semi-join probe of the build side's keys, over the columns {@code scan}
   * reads up to {@code top}; the pass returns the {@code keptShare} of the rows whose keys the build side has, through
   * one copying thread, and the CPU marks those ({@code markMillisPerRow} a row). Without the pass the CPU marks them
   * too, and passes over the others at {@link SpillwayJoinCost#CPU_MARK_MISS_SHARE} of that: the pass saves only the
   * misses. Recorded in the scan, for EXPLAIN.
   */
  static SpillwayBackend chooseReduction(RelNode top, SpillwayTableScan scan, List<ExprType> types,
      List<PipelineStage> stages, double keptShare, double markMillisPerRow) {
    SpillwayCostModel.Shape probeSide = SpillwayPipelineShape.of(top, scan);
    double rows = probeSide.rows() * Math.min(1, probeSide.selectivity());
    double hits = rows * keptShare * markMillisPerRow;
    double misses = rows * (1 - keptShare) * markMillisPerRow * SpillwayJoinCost.CPU_MARK_MISS_SHARE;
    double assembled = rows * keptShare * SpillwayJoinCost.CPU_OUTPUT_SECONDS_PER_ROW_THREAD * 1e3;
    String mode = System.getProperty(MARK_REDUCTION_PROPERTY, "cost");
    SpillwayBackend backend = "off".equalsIgnoreCase(mode) ? cpu("the semi-join reduction is off ("
        + MARK_REDUCTION_PROPERTY + ")") : decide(top, scan, types, stages, () -> new SpillwayCostModel.Shape(
            probeSide.rows(), probeSide.columns(), probeSide.selectivity(), probeSide.returnedRowBytes(), keptShare),
            hits + misses, hits + assembled, 0);
    // the reduction is a means to speed, never a device the connection asked for: without a predicted gain the CPU
    // marks every row, as it would without a GPU
    if (backend.gpu() && !markReductionForced() && !backend.costing().gpuIsFaster()) {
      backend = new SpillwayBackend(false, null, null, "the cost model predicts the semi-join reduction slower than"
          + " marking every row on the CPU", backend.costing(), backend.selectivity(), 0, 0, false);
    }
    scan.backend(backend);
    return backend;
  }

  /**
   * The GPU run of the pipeline as its node takes it (the cache asked for with the connection's size), or null
   * where the CPU backend runs it.
   */
  GpuPipelineChoice gpuChoice(SpillwayOptions options) {
    return gpu ? new GpuPipelineChoice(method, variant, cacheBytes > 0 ? options.gpuCacheBytes() : 0, groups, coprocess)
        : null;
  }

  /** The choice recorded in {@code scan}; the CPU backend for none or before the implementor decided. */
  static SpillwayBackend of(SpillwayTableScan scan) {
    return scan == null ? CPU : scan.backend();
  }

  /**
   * The groups the aggregation of the pipeline under {@code top} is estimated to make (0: none): the distinct
   * combinations of its group keys by the columns' statistics (Calcite's row count of an aggregate guesses from its
   * input's rows alone: millions for TPC-H Q1's four groups), else that row count; of the aggregate nearest the
   * scan (Q16 aggregates its GPU aggregation's groups again), not looking past a join (whose inputs are other
   * pipelines).
   */
  static long groups(RelNode top) {
    Aggregate first = nearestAggregate(top).aggregate();
    if (first == null || first.getGroupCount() == 0) {
      return 0;
    }
    RelMetadataQuery mq = first.getCluster().getMetadataQuery();
    Double rows = mq.getRowCount(first);
    Double input = mq.getRowCount(first.getInput());
    Double distinct = input == null ? null
        : SpillwayStatistics.distinctValues(mq, first.getInput(), first.getGroupSet().asList(), input);
    Double estimate = distinct != null ? distinct : rows;
    return estimate == null ? 0 : (long) Math.ceil(estimate);
  }

  /**
   * Why the GPU hash table of an aggregation of {@code calls} calls over about {@code groups} groups may not be
   * allocated, or empty: beyond half the GPU memory
   * budget (the rest holds the gathered groups, the streamed chunks and the join tables), the allocation would fail
   * after planning and the CPU would run the pipeline anyway.
   */
  static Optional<String> aggregateStateRefusal(long groups, int calls, MachineProfile profile) {
    if (groups == 0 || profile.gpu() == null) {
      return Optional.empty();
    }
    long bytes = GpuPipelineChoice.aggregateStateBytes(groups, calls);
    long budget = profile.gpu().budgetBytes();
    return bytes <= budget / 2 ? Optional.empty() : Optional.of(String.format(Locale.ROOT,
        "about %d groups; their GPU hash table (%.1f GB) exceeds half the GPU memory budget (%.1f GB)", groups,
        bytes / 1e9, budget / 1e9));
  }

  /** The aggregation of the pipeline under {@code top} nearest its scan (see below), or null. */
  static Aggregate pipelineAggregate(RelNode top) {
    return nearestAggregate(top).aggregate();
  }

  /** The pipeline's aggregation under {@code top} (null: none) and the node right above it (null: none). */
  private record NearestAggregate(Aggregate aggregate, RelNode above) {}

  /**
   * The aggregation nearest the scan: the pipeline's own (those above run on its groups), not looking past a join
   * (whose inputs are other pipelines).
   */
  private static NearestAggregate nearestAggregate(RelNode top) {
    NearestAggregate found = new NearestAggregate(null, null);
    RelNode above = null;
    for (RelNode node = top.stripped(); node.getInputs().size() == 1; node = node.getInput(0).stripped()) {
      found = node instanceof Aggregate aggregate ? new NearestAggregate(aggregate, above) : found;
      above = node;
    }
    return found;
  }

  /**
   * The groups a GPU run brings back of the {@code groups} its aggregation makes: those left by the filter right above
   * it where the GPU applies that filter before the groups come back (by Calcite's estimate), else all of them.
   */
  static long returnedGroups(RelNode top, List<PipelineStage> stages, long groups) {
    RelNode having = nearestAggregate(top).above();
    if (!GpuPipelineChoice.filtersGroupsOnDevice(stages) || !(having instanceof Filter)) {
      return groups;
    }
    Double rows = having.getCluster().getMetadataQuery().getRowCount(having);
    return rows == null ? groups : Math.min(groups, (long) Math.ceil(rows));
  }

  private static SpillwayBackend decide(RelNode top, SpillwayTableScan scan, List<ExprType> types,
      List<PipelineStage> stages, Supplier<SpillwayCostModel.Shape> shapeOf, double extraCpuMillis,
      double extraGpuMillis, double buildCpuMillis) {
    SpillwayOptions options = scan.spillwayTable().options();
    if (options.device() == SpillwayDevice.CPU) {
      return CPU;
    }
    Optional<SpillwayGpuSite> site = SpillwayGpuSite.current();
    if (site.isEmpty()) {
      // AUTO on a machine without a GPU is the ordinary CPU case and needs no explanation.
      return options.device() == SpillwayDevice.GPU
          ? cpu("no usable CUDA device: " + GpuRuntime.unavailableReason()) : CPU;
    }
    Optional<String> unsupported = ScanPipelineNode.gpuUnsupportedReason(types, stages);
    if (unsupported.isPresent()) {
      return cpu("not supported on the GPU: " + unsupported.get());
    }
    long groups = groups(top);
    if (groups > GpuPipelineChoice.MAX_GROUPS) {
      return cpu("about " + groups + " groups; the GPU aggregation holds at most " + GpuPipelineChoice.MAX_GROUPS);
    }
    MachineProfile profile;
    try {
      profile = site.get().profile();
    } catch (UncheckedIOException e) {
      return cpu(e.getMessage());
    }
    Aggregate aggregate = nearestAggregate(top).aggregate();
    Optional<String> stateRefusal = aggregate == null ? Optional.empty()
        : aggregateStateRefusal(groups, aggregate.getAggCallList().size(), profile);
    if (stateRefusal.isPresent()) {
      return cpu(stateRefusal.get());
    }
    SpillwayCostModel model = new SpillwayCostModel(profile);
    List<TransferMethod> methods;
    try {
      methods = methods(site.get(), model, scan, options);
    } catch (IllegalArgumentException e) {
      return cpu(e.getMessage());
    }
    SpillwayCostModel.Shape shape = shapeOf.get();
    long cacheBytes = options.gpuCacheBytes() > 0 ? site.get().cacheCapacity(options.gpuCacheBytes()) : 0;
    boolean resident = cacheBytes > 0 && shape.bytes() - shape.inPlaceBytes(false) <= cacheBytes;  // text is read in place
    SpillwayCostModel.Estimate estimate = model.estimate(shape, methods, options.filterVariant(), resident)
        .plus(extraCpuMillis + model.cpuAggregateMillis(shape, stages, groups),
            extraGpuMillis + model.aggregateStateMillis(returnedGroups(top, stages, groups), stages));
    SpillwayCostModel.GpuRun run = estimate.gpu();
    boolean coprocess = options.device() == SpillwayDevice.AUTO && !resident
        && estimate.sharingPays(shape, groups, buildCpuMillis)
        && !"false".equalsIgnoreCase(System.getProperty(COPROCESS_PROPERTY))
        && ScanPipelineNode.coprocessingUnsupportedReason(types, stages).isEmpty();
    estimate = estimate.shared(coprocess);
    if (options.device() == SpillwayDevice.AUTO && !coprocess && !estimate.gpuIsFaster()) {
      return new SpillwayBackend(false, null, null, "the cost model predicts the CPU backend faster", estimate,
          shape.selectivity(), 0, 0, false);
    }
    return new SpillwayBackend(true, run.method(), run.variant(), null, estimate, shape.selectivity(), cacheBytes,
        groups, coprocess);
  }

  /**
   * The transfer methods to cost: the connection's forced one, else the one {@link #TRANSFER_PROPERTY} forces,
   * else those that can stream the memory the table lives in and that the device and profile offer.
   */
  private static List<TransferMethod> methods(SpillwayGpuSite site, SpillwayCostModel model, SpillwayTableScan scan,
      SpillwayOptions options) {
    HostMemoryKind kind = memoryKind(site, scan);
    TransferMethod forced = options.transfer();
    String legacy = System.getProperty(TRANSFER_PROPERTY);
    if (forced == null && legacy != null && !legacy.isBlank()) {
      forced = SpillwayOptions.parseTransfer(legacy);
    }
    if (forced != null) {
      if (!forced.accepts().contains(kind)) {
        throw new IllegalArgumentException("transfer=" + forced.label() + " cannot stream " + kind
            + " host memory (it takes " + forced.accepts() + ")");
      }
      if (!site.supports(forced)) {
        throw new IllegalArgumentException("transfer=" + forced.label() + " is not supported by this GPU");
      }
      return List.of(forced);
    }
    List<TransferMethod> methods = model.methodsFor(kind).stream().filter(site::supports).toList();
    if (methods.isEmpty()) {
      throw new IllegalArgumentException("no transfer method for " + kind + " host memory in the machine profile");
    }
    return methods;
  }

  /** The kind of memory the scanned columns live in (pinned where nothing is streamed, e.g. an empty table). */
  private static HostMemoryKind memoryKind(SpillwayGpuSite site, SpillwayTableScan scan) {
    List<VectorSchemaRoot> batches = scan.spillwayTable().stored().batches();
    int[] fields = scan.fields();
    if (batches.isEmpty() || fields.length == 0) {
      return HostMemoryKind.PINNED;
    }
    return site.memoryKind(batches.get(0).getVector(fields[0]).getDataBuffer().memoryAddress());
  }
}
