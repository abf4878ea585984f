package org.spillway.adapter;

import org.spillway.gpu.plan.GpuPipelineChoice;
import org.spillway.gpu.plan.JoinBuild;
import org.spillway.gpu.plan.JoinProbeSpec;
import org.spillway.gpu.plan.PipelineNode;
import org.spillway.gpu.plan.PlannedOperator;
import org.spillway.gpu.plan.PlanNode;
import org.spillway.gpu.plan.ProbePipelineNode;
import org.spillway.gpu.plan.ScanNode;
import org.spillway.gpu.plan.ScanPipelineNode;
import org.spillway.gpu.plan.SharedNode;

import org.apache.calcite.plan.Convention;
import org.apache.calcite.plan.RelTraitSet;
import org.apache.calcite.rel.RelCollations;
import org.apache.calcite.rel.core.Aggregate;
import org.apache.calcite.rel.RelNode;
import org.spillway.gpu.device.GpuRuntime;
import org.spillway.gpu.vector.ExprType;
import org.spillway.gpu.pipeline.PipelineStage;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.Set;
import java.util.HashSet;
import java.util.Map;
import java.util.List;
import java.util.Optional;

/** Relational expression that Spillway executes over columnar Arrow data. */
public interface SpillwayRel extends RelNode {
  /** Calling convention of the Spillway physical nodes. */
  Convention CONVENTION = new Convention.Impl("SPILLWAY", SpillwayRel.class);

  /**
   * Share of Calcite's default cost that a Spillway filter, project, aggregate or join costs: they run fused
   * and vectorized, so the planner should prefer them to the row-at-a-time enumerable operators.
   */
  double COST_FACTOR = 0.1;

  /**
   * The traits of a Spillway node made in place of one with {@code traits}: the Spillway convention and no
   * collation. Aggregates and joins hash, so one that kept a logical node's collation would let the planner
   * drop the sort of an ORDER BY above it. Only a {@link SpillwaySort} orders rows; a filter or project keeps
   * its input's order (a pipeline over a node's output keeps the rows' order), so it asks for its input in the
   * collation it claims.
   */
  static RelTraitSet unordered(RelTraitSet traits) {
    return traits.replace(CONVENTION).replace(RelCollations.EMPTY);
  }

  /** Adds this node's part of the runtime plan to the implementor. */
  void implement(Implementor implementor);

  /**
   * Builds the runtime plan of a Spillway subtree: a pipeline of stages over a source, the source being a
   * table scan or a node of its own (a join, whose inputs have implementors of their own).
   */
  final class Implementor {
    private SpillwayTableScan scan;
    private PlanNode source;
    /** A table of the subtree, for the connection's settings and device usage. */
    private SpillwayTable table;
    private final List<PipelineStage> stages = new ArrayList<>();
    /** Per stage: the build side of a join probe stage, else null. */
    private final List<JoinBuild> builds = new ArrayList<>();
    /** The joins whose probes are stages of this pipeline (those of a mark join's probe side excluded). */
    private final List<SpillwayProbedJoin> probedJoins = new ArrayList<>();
    private final List<CpuReason> cpuReasons = new ArrayList<>();
    private PlanNode node;
    /** The outermost node of the subtree (the cost model reads the pipeline's shape from it down to the scan). */
    private RelNode top;

    /**
     * The implementors of the subtrees that are runtime nodes of their own (the inputs of joins), by the subtree's
     * text: a subtree the plan repeats (as decorrelated subqueries make; Volcano's final plan holds equal copies,
     * not one shared object) is implemented once and runs once per query.
     */
    private final Map<String, Implementor> subtrees;
    /**
     * The texts of the aggregations the plan holds more than once (Q15's view, read by the query and by its
     * scalar subquery): each runs once, as a node of its own, also where a pipeline would have read it in place.
     */
    private final Set<String> repeatedAggregates;
    /** Uses of this implementor's subtree as a node of its own (0 for the root of a plan). */
    private int uses;
    /** What the runtime nodes of the whole plan report as (EXPLAIN ANALYZE), by node. */
    private final Map<PlanNode, PlannedOperator> planned;
    /** The node whose {@code implement} runs on this implementor now (the one that makes a node of its own). */
    private RelNode implementing;

    private Implementor(Map<String, Implementor> subtrees, Set<String> repeatedAggregates,
        Map<PlanNode, PlannedOperator> planned) {
      this.subtrees = subtrees;
      this.repeatedAggregates = repeatedAggregates;
      this.planned = planned;
    }

    /** An implementor that has visited {@code input}, the root of a plan. */
    static Implementor of(RelNode input) {
      Map<String, Integer> aggregates = new HashMap<>();
      countAggregates(input, aggregates);
      Set<String> repeated = new HashSet<>();
      aggregates.forEach((text, count) -> {
        if (count > 1) {
          repeated.add(text);
        }
      });
      SpillwayJoin.noteSharedInputs(input);
      Implementor implementor = new Implementor(new HashMap<>(), repeated, new IdentityHashMap<>());
      implementor.visitChild(input);
      return implementor;
    }

    private static void countAggregates(RelNode rel, Map<String, Integer> counts) {
      if (rel instanceof Aggregate) {
        counts.merge(text(rel), 1, Integer::sum);
      }
      for (RelNode input : rel.getInputs()) {
        countAggregates(input, counts);
      }
    }

    private static String text(RelNode rel) {
      return SpillwayJoin.subtreeText(rel);
    }

    /** The implementor of {@code input} as a runtime node of its own (a join's input), shared where used twice. */
    Implementor child(RelNode input) {
      String subtree = text(input);
      Implementor known = subtrees.get(subtree);
      if (known == null) {
        known = new Implementor(subtrees, repeatedAggregates, planned);
        known.top = input;
        known.implement(input);
        subtrees.put(subtree, known);
      }
      known.uses++;
      return known;
    }

    /**
     * An implementor of {@code input} that no other join shares: a pipeline that a join extends with a stage of its
     * own (a mark join's probe) must not be the one other uses of the same subtree run.
     */
    Implementor unshared(RelNode input) {
      Implementor own = new Implementor(subtrees, repeatedAggregates, planned);
      own.visitChild(input);
      return own;
    }

    /**
     * Visits a child node so that it contributes its part first; a repeated aggregation or semi join
     * ({@link SpillwayJoin#resultShared}) is read as a source.
     */
    public void visitChild(RelNode input) {
      if (top == null) {
        top = input;
      }
      if (input instanceof Aggregate && repeatedAggregates.contains(text(input))
          || input instanceof SpillwayJoin join && join.resultShared()) {
        Implementor shared = child(input);
        source(shared.node(), shared);
        return;
      }
      implement(input);
    }

    private void implement(RelNode rel) {
      RelNode outer = implementing;
      implementing = rel;
      ((SpillwayRel) rel).implement(this);
      implementing = outer;
    }

    /** What the runtime nodes of the plan report as, by node. */
    Map<PlanNode, PlannedOperator> planned() {
      return planned;
    }

    /** Makes the scan the pipeline's source. */
    void scan(SpillwayTableScan tableScan) {
      this.scan = tableScan;
      this.table = tableScan.spillwayTable();
    }

    /** Makes {@code join} the pipeline's source; its inputs' implementors pass on what they collected. */
    void source(PlanNode join, Implementor... inputs) {
      this.source = join;
      if (implementing != null) {
        planned.putIfAbsent(join, SpillwayOperators.of(implementing));
      }
      for (Implementor input : inputs) {
        cpuReasons.addAll(input.cpuReasons);
        table = table != null ? table : input.table;
      }
    }

    /** Appends a stage of the fused pipeline (children add theirs first). */
    public void addStage(PipelineStage stage) {
      stages.add(stage);
      builds.add(null);
    }

    /**
     * Appends the probe of {@code join}'s hash table, whose build side is {@code build}, to the pipeline of its
     * {@code probeInput}; EXPLAIN shows the pipeline's device with the join. A pipeline that aggregated already ends
     * there: its output becomes the source of the pipeline that probes.
     */
    void addProbe(JoinProbeSpec probe, JoinBuild build, Implementor buildSide, SpillwayProbedJoin join,
        RelNode probeInput) {
      addProbe(probe.stage(), build, buildSide, join, probeInput);
    }

    /** As above for a probe stage made already (the marking probe of a {@link SpillwayMarkJoin}). */
    void addProbe(PipelineStage probe, JoinBuild build, Implementor buildSide, SpillwayProbedJoin join,
        RelNode probeInput) {
      if (stages.stream().anyMatch(s -> s instanceof PipelineStage.Aggregate)) {
        // the aggregating pipeline is the probe input's subtree: its backend, groups and report are read from there,
        // not from the whole plan above the join (whose aggregation, if any, is another one)
        RelNode wholeTop = top;
        top = probeInput;
        PlanNode aggregated;
        try {
          aggregated = described(build());
        } finally {
          top = wholeTop;
        }
        scan = null;
        source = aggregated;
        stages.clear();
        builds.clear();
        probedJoins.clear();
      }
      if (join != null) {
        probedJoins.add(join);
      }
      cpuReasons.addAll(buildSide.cpuReasons);
      table = table != null ? table : buildSide.table;
      stages.add(probe);
      builds.add(build);
    }

    /** The scan when the subtree is nothing but a scan (its rows are read without any pipeline), else null. */
    SpillwayTableScan bareScan() {
      return source == null && stages.isEmpty() ? scan : null;
    }

    /** Why a pipeline over a table runs on the CPU although a GPU was wanted or present. */
    record CpuReason(String table, String reason) {
      @Override public String toString() {
        return table + ": " + reason;
      }
    }

    /** The pipelines of the subtree that run on the CPU although the GPU was wanted or present, and why. */
    List<CpuReason> cpuReasons() {
      node();
      return List.copyOf(cpuReasons);
    }

    /**
     * The runtime node of the subtree; the backend of a pipeline over a scan is decided here (and recorded
     * for EXPLAIN, see {@link SpillwayBackend}).
     */
    PlanNode node() {
      if (node == null) {
        PlanNode built = described(build());
        if (uses == 0) {
          node = built;
        } else {
          node = new SharedNode(built, () -> uses);
          planned.put(node, SpillwayOperators.reused(planned.get(built)));
        }
      }
      return node;
    }

    /** {@code built}, described for its report unless it is the node of its own that a join or sort described. */
    private PlanNode described(PlanNode built) {
      planned.putIfAbsent(built, SpillwayOperators.pipeline(top, source == null ? scan : null, (int) builds.stream()
          .filter(java.util.Objects::nonNull).count()));
      return built;
    }

    private PlanNode build() {
      PlanNode split = splitAtAggregation();
      if (split != null) {
        return split;
      }
      if (builds.stream().anyMatch(java.util.Objects::nonNull)) {
        return probePipeline();
      }
      if (source != null) {
        if (stages.isEmpty()) {
          return source;
        }
        if (table.device() == SpillwayDevice.GPU
            || table.device() == SpillwayDevice.AUTO && GpuRuntime.device().isPresent()) {
          cpuReasons.add(new CpuReason("intermediate result", "a pipeline over a join's or a sort's output runs on "
              + "the CPU backend (that output lives in Java arrays, the GPU pipeline streams Arrow columns)"));
        }
        return new PipelineNode(source, stages, table.deviceUsage());
      }
      List<ExprType> types = SpillwayFields.ofScan(table, scan.fields()).stream().map(SpillwayField::type).toList();
      if (stages.isEmpty()) {
        return new ScanNode(table, scan.fields(), types);
      }
      return scanPipeline(types);
    }

    /** The pipeline of the stages over the scan (columns of {@code types}), on the backend chosen for it. */
    private PlanNode scanPipeline(List<ExprType> types) {
      SpillwayBackend backend = SpillwayBackend.choose(top, scan, types, stages);
      if (backend.reason() != null) {
        cpuReasons.add(new CpuReason(table.stored().name(), backend.reason()));
      }
      return new ScanPipelineNode(table, scan.fields(), types, stages, backend.gpuChoice(table.options()));
    }

    /**
     * This pipeline over a scan in two: the stages before its aggregation as a GPU pipeline that returns rows, and the
     * aggregation with the stages after it on the CPU over those rows; null where it stays whole. Split only where the
     * GPU cannot aggregate (a TEXT group key: Q18's {@code c_name}) but can run the stages before, and the GPU is
     * chosen for them: their probes and filters then leave the CPU few rows to aggregate.
     */
    private PlanNode splitAtAggregation() {
      int at = firstAggregation();
      if (source != null || scan == null || at < 1 || table.device() == SpillwayDevice.CPU
          || SpillwayGpuSite.current().isEmpty()) {
        return null;
      }
      List<ExprType> types = SpillwayFields.ofScan(table, scan.fields()).stream().map(SpillwayField::type).toList();
      Optional<String> whole = ScanPipelineNode.gpuUnsupportedReason(types, stages);
      if (whole.isEmpty() || !(SpillwayBackend.pipelineAggregate(top) instanceof SpillwayAggregate aggregate)
          || ScanPipelineNode.gpuUnsupportedReason(types, stages.subList(0, at)).isPresent()) {
        return null;
      }
      List<PipelineStage> allStages = List.copyOf(stages);
      List<JoinBuild> allBuilds = new ArrayList<>(builds);
      int reasons = cpuReasons.size();
      RelNode wholeTop = top;
      stages.subList(at, stages.size()).clear();
      builds.subList(at, builds.size()).clear();  // an aggregation ends a pipeline's probes: only nulls go
      top = aggregate.getInput();
      PlanNode rows;
      int probes = (int) builds.stream().filter(java.util.Objects::nonNull).count();
      try {
        rows = probes > 0 ? probePipeline() : scanPipeline(types);
      } finally {
        top = wholeTop;
        stages.clear();
        stages.addAll(allStages);
        builds.clear();
        builds.addAll(allBuilds);
      }
      if (!SpillwayBackend.of(scan).gpu()) {  // the CPU runs the stages before too: one pipeline, as unsplit
        cpuReasons.subList(reasons, cpuReasons.size()).clear();
        return null;
      }
      planned.putIfAbsent(rows, SpillwayOperators.pipeline(aggregate.getInput(), scan, probes));
      aggregate.runsOnCpuOverGpuRows(whole.get());
      cpuReasons.add(new CpuReason(table.stored().name(), "its aggregation runs on the CPU over the GPU pipeline's "
          + "rows: " + whole.get()));
      PlanNode aggregated = new PipelineNode(rows, allStages.subList(at, allStages.size()), table.deviceUsage());
      planned.put(aggregated, SpillwayOperators.pipeline(wholeTop, null, 0));
      return aggregated;
    }

    /** The index of the first aggregation among the stages, or -1. */
    private int firstAggregation() {
      for (int i = 0; i < stages.size(); i++) {
        if (stages.get(i) instanceof PipelineStage.Aggregate) {
          return i;
        }
      }
      return -1;
    }

    /**
     * The GPU pass that reduces this pipeline (over a scan, ending in a mark join's marking probe that the CPU runs) to
     * the rows whose keys some build row has, where the cost model predicts it pays ({@link
     * SpillwayBackend#chooseReduction}); null for none. {@code keptShare} is the share of rows the build side's keys
     * keep, {@code markSecondsPerRow} what the CPU's marking costs a row.
     */
    GpuPipelineChoice markReduction(double keptShare, double markSecondsPerRow) {
      if (source != null || scan == null || !(node() instanceof ProbePipelineNode pipeline) || pipeline.onGpu()
          || !GpuPipelineChoice.endsInMarks(stages)) {
        return null;
      }
      List<ExprType> types = SpillwayFields.ofScan(table, scan.fields()).stream().map(SpillwayField::type).toList();
      SpillwayBackend backend = SpillwayBackend.chooseReduction(top, scan, types,
          ProbePipelineNode.semiJoinReduced(stages), keptShare, markSecondsPerRow * 1e3);
      if (backend.reason() != null && backend.costing() == null && table.device() != SpillwayDevice.CPU
          && GpuRuntime.device().isPresent()) {
        cpuReasons.add(new CpuReason(table.stored().name(), "its semi-join reduction: " + backend.reason()));
      }
      return backend.gpuChoice(table.options());
    }

    /**
     * A pipeline through join probes, over the scan or the source node. Over a scan, the GPU runs it where it can
     * and the cost model predicts it faster (or the connection asks for the GPU): the joins' tables are then built
     * in GPU memory, and EXPLAIN shows each join probed there.
     */
    private PlanNode probePipeline() {
      List<ExprType> types = source != null ? source.types()
          : SpillwayFields.ofScan(table, scan.fields()).stream().map(SpillwayField::type).toList();
      SpillwayBackend backend = null;
      if (source == null && builds.stream().filter(java.util.Objects::nonNull).count() == probedJoins.size()) {
        double cpuProbes = 0;
        double gpuProbes = 0;
        double cpuBuilds = 0;
        String refusal = null;
        for (SpillwayProbedJoin join : probedJoins) {
          cpuProbes += join.pipelinedSeconds(false);
          gpuProbes += join.pipelinedSeconds(true);
          cpuBuilds += join.cpuBuildSeconds();
          refusal = refusal != null ? refusal : join.gpuProbeRefusal().orElse(null);
        }
        if (GpuPipelineChoice.endsInMarks(stages) && SpillwayBackend.markReductionForced()) {
          refusal = "the semi-join reduction is forced (" + SpillwayBackend.MARK_REDUCTION_PROPERTY
              + "=force): the CPU marks the rows a GPU pass keeps";
        }
        backend = SpillwayBackend.chooseProbing(top, scan, types, stages, cpuProbes * 1e3, gpuProbes * 1e3,
            cpuBuilds * 1e3, refusal);
        if (backend.reason() != null) {
          cpuReasons.add(new CpuReason(table.stored().name(), backend.reason()));
        }
      } else if (table.device() == SpillwayDevice.GPU
          || table.device() == SpillwayDevice.AUTO && GpuRuntime.device().isPresent()) {
        cpuReasons.add(new CpuReason(source == null ? table.stored().name() : "join output", source != null
            ? "a pipeline over a join's or an aggregation's output probes on the CPU backend (that output lives in"
                + " Java arrays, the GPU pipeline streams Arrow columns)"
            : "a pipeline that probes a mark join runs on the CPU backend"));
      }
      boolean gpu = backend != null && backend.gpu();
      probedJoins.forEach(join -> join.probedOn(gpu));
      return new ProbePipelineNode(table, source == null ? scan.fields() : null, source, types, stages, builds,
          backend == null ? null : backend.gpuChoice(table.options()));
    }
  }
}
