package org.spillway.adapter;

import org.spillway.gpu.plan.GpuJoinSpec;
import org.spillway.gpu.plan.GpuJoins;
import org.spillway.gpu.plan.IndexJoinNode;
import org.spillway.gpu.plan.JoinBuild;
import org.spillway.gpu.plan.JoinChoice;
import org.spillway.gpu.plan.JoinKind;
import org.spillway.gpu.plan.JoinProbeSpec;
import org.spillway.gpu.plan.GpuPipelineChoice;
import org.spillway.gpu.plan.MarkJoinNode;
import org.spillway.gpu.plan.MaterializedJoinNode;
import org.spillway.gpu.plan.PlanNode;
import org.spillway.gpu.plan.ProbePipelineNode;

import org.apache.calcite.plan.RelOptCluster;
import org.apache.calcite.plan.RelOptCost;
import org.apache.calcite.plan.RelOptPlanner;
import org.apache.calcite.plan.RelOptUtil;
import org.apache.calcite.plan.RelTraitSet;
import org.apache.calcite.plan.volcano.RelSubset;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.RelWriter;
import org.apache.calcite.rel.core.Join;
import org.apache.calcite.rel.core.JoinRelType;
import org.apache.calcite.rel.metadata.RelMetadataQuery;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.sql.SqlExplainLevel;
import org.spillway.adapter.SpillwayJoinCost.Candidate;
import org.spillway.adapter.SpillwayJoinCost.Estimate;
import org.spillway.gpu.calibrate.MachineProfile;
import org.spillway.gpu.calibrate.MachineProfiles;
import org.spillway.gpu.expr.Expr;
import org.spillway.gpu.device.GpuRuntime;
import org.spillway.gpu.pipeline.PipelineStage;
import org.spillway.storage.Catalog;
import org.spillway.storage.IndexDefinition;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;

import static java.util.Objects.requireNonNull;

/**
 * Equi-join in the Spillway convention: both inputs run as Spillway subtrees, their keys are joined by the
 * algorithm the {@link SpillwayJoinCost cost model} chooses (or the {@code joinAlgorithm} property forces), and
 * the output columns are gathered from the inputs at the paired row ids. EXPLAIN shows device, algorithm and
 * its parameters, build side, transfer method, predicted time and the runner-up.
 */
public final class SpillwayJoin extends Join implements SpillwayRel, SpillwayProbedJoin {
  private volatile SpillwayJoinChoice choice;
  /** Why this join cannot run ("" when it can), decided once. */
  private volatile String unsupported;
  /**
   * The backend of the pipeline that probes this join, once the plan was implemented: null where the join is not a
   * probe stage (or before), else whether that pipeline runs on the GPU.
   */
  private volatile Boolean probedOnGpu;
  /** Whether a GPU pass reduces the probe side of this mark join before the CPU marks ({@link SpillwayMarkReduction}). */
  private volatile boolean reducedOnGpu;
  /** The chosen orientation's sizes and build key, for the pipelined probe's costs (derived once). */
  private volatile Estimate pipelined;
  /**
   * Where the windowed index join can look up the build side, per orientation (building on the right first, as
   * {@link Estimate#buildLeft} indexes it), decided with the choice.
   */
  private volatile SpillwayIndexSite.Found[] indexSites;
  /**
   * Whether this is a semi- or anti-join whose right input is also another one's, noted before the plan is implemented
   * ({@link #noteSharedInputs}): built there and here, it runs once and both joins read its rows.
   */
  private volatile boolean rightReadElsewhere;
  /**
   * Whether this is a semi join the plan holds more than once ({@link #noteSharedInputs}; {@link
   * SpillwaySharedSemiJoins} makes such plans): it runs once, as a node of its own whose rows each use reads.
   */
  private volatile boolean resultShared;

  SpillwayJoin(RelOptCluster cluster, RelTraitSet traits, RelNode left, RelNode right, RexNode condition,
      JoinRelType joinType) {
    super(cluster, SpillwayRel.unordered(traits), List.of(), left, right, condition, Set.of(), joinType);
  }

  @Override public SpillwayJoin copy(RelTraitSet traitSet, RexNode condition, RelNode left, RelNode right,
      JoinRelType joinType, boolean semiJoinDone) {
    return new SpillwayJoin(getCluster(), traitSet, left, right, condition, joinType);
  }

  /**
   * Infinite when the join cannot run: rules that rewrite joins of any convention (FilterIntoJoinRule, say)
   * may copy this node with a condition that its rule would have rejected, such as a residual on an outer join.
   */
  @Override public RelOptCost computeSelfCost(RelOptPlanner planner, RelMetadataQuery mq) {
    if (!unsupportedReason().isEmpty()) {
      return planner.getCostFactory().makeInfiniteCost();
    }
    return requireNonNull(super.computeSelfCost(planner, mq)).multiplyBy(SpillwayRel.COST_FACTOR);
  }

  private String unsupportedReason() {
    String reason = unsupported;
    if (reason == null) {
      try {
        keys();
        reason = "";
      } catch (IllegalStateException e) {
        reason = e.getMessage();
      }
      unsupported = reason;
    }
    return reason;
  }

  @Override public RelWriter explainTerms(RelWriter pw) {
    super.explainTerms(pw);
    if (pw.getDetailLevel() == SqlExplainLevel.DIGEST_ATTRIBUTES) {
      return pw;  // digests identify nodes while planning; the choice is made for the final plan
    }
    SpillwayJoinChoice c = choice();
    Candidate chosen = c.chosen();
    if (Boolean.TRUE.equals(probedOnGpu)) {
      return pw.item("device", "gpu")
          .item("algorithm", SpillwayJoinAlgorithm.NOPA)
          .item("placement", "gpu")
          .item("probe", "in a gpu pipeline")
          .item("buildSide", chosen.buildLeft() ? "left" : "right")
          .item("predicted", SpillwayJoinChoice.time(pipelinedSeconds(true)))
          .item("costs", costsLabel(c));
    }
    return pw.item("device", chosen.device())
        .item("algorithm", chosen.algorithm())
        .itemIf("variant", chosen.variant(), chosen.variant() != null)
        .itemIf("placement", chosen.placement(), chosen.placement() != null)
        .itemIf("radixBits", chosen.radixBits(), chosen.radixBits() != null)
        .itemIf("index", chosen.algorithm().indexed() ? indexLabel(chosen) : "", chosen.algorithm().indexed())
        .itemIf("window", chosen.algorithm().indexed() ? windowLabel(indexJoinWindowBytes(chosen)) : "",
            chosen.algorithm().indexed())
        .itemIf("cacheShare", String.format(Locale.ROOT, "%.2f", chosen.cacheShare() == null ? 0 : chosen.cacheShare()),
            chosen.cacheShare() != null)
        .item("buildSide", chosen.buildLeft() ? "left" : "right")
        .itemIf("reduction", "gpu semi-join", reducedOnGpu)
        .item("transfer", chosen.transfer())
        .item("predicted", SpillwayJoinChoice.time(chosen.seconds()))
        .itemIf("runnerUp", c.runnerUp() == null ? "" : c.runnerUp().summary(), c.runnerUp() != null)
        .item("costs", costsLabel(c))
        .itemIf("cpuBecause", c.cpuBecause(), c.cpuBecause() != null);
  }

  /** The index the chosen index join looks up, with its size and build time once a query or CREATE INDEX built it. */
  private String indexLabel(Candidate chosen) {
    SpillwayIndexSite site = indexSite(chosen);
    IndexDefinition index = site.index(chosen.variant());
    return SpillwayIndexes.of(site.table().catalog()).built(index.name())
        .map(built -> String.format(Locale.ROOT, "%s (%s, built in %.1f ms)", index.name(),
            built.sizeBytes() < 1 << 20 ? String.format(Locale.ROOT, "%.1f KiB", built.sizeBytes() / 1024.0)
                : String.format(Locale.ROOT, "%.1f MiB", built.sizeBytes() / (double) (1 << 20)), built.buildMillis()))
        .orElse(index.name() + " (built on first use)");
  }

  /** A window's bytes as EXPLAIN shows them: MiB or KiB where whole, else bytes. */
  static String windowLabel(long bytes) {
    if (bytes % (1 << 20) == 0) {
      return (bytes >> 20) + " MiB";
    }
    return bytes % (1 << 10) == 0 ? (bytes >> 10) + " KiB" : bytes + " B";
  }

  /** The window of the chosen index join: the connection's (its tables share its options), or sized by the index. */
  private long indexJoinWindowBytes(Candidate chosen) {
    return IndexJoinNode.windowBytes(SpillwayFields.scansOf(this).get(0).spillwayTable().indexJoinWindowBytes(),
        indexSite(chosen).rows());
  }

  private SpillwayIndexSite indexSite(Candidate chosen) {
    choice();
    return indexSites[chosen.buildLeft() ? 1 : 0].site();
  }

  private static String costsLabel(SpillwayJoinChoice c) {
    return c.calibrated() ? MachineProfiles.calibratedLabel(MachineProfiles.current()) : "assumed";
  }

  /**
   * A CPU NOPA join becomes a probe stage of its probe side's pipeline, over a hash table built from the other
   * side; the other algorithms run as a join node of their own. Either way, an inner join's condition beyond key
   * equality is a filter after it. A semi- or anti-join that builds on its left (returned) side is a mark join
   * ({@link MarkJoinNode}), a pipeline breaker whose output is the source of the pipeline above. An outer
   * join that builds on its preserved side probes with a {@link JoinKind#RIGHT} probe, whose pipeline pushes
   * the unmatched build rows through the stages above it after the last probe morsel.
   */
  @Override public void implement(Implementor implementor) {
    SpillwayJoinKeys keys = keys();
    Candidate chosen = choice().chosen();
    String label = joinType.lowerName + " join on " + condition;
    if (chosen.algorithm().indexed()) {
      implementIndexJoin(implementor, keys, chosen, label);
    } else if (marksBuild(chosen)) {
      Implementor build = implementor.child(getLeft());
      Implementor probeSide = implementor.unshared(getRight());
      JoinProbeSpec probe = new JoinProbeSpec(JoinKind.MARK_BUILD, keys.rightKeys(),
          keys.rightFields().stream().map(SpillwayField::type).toList(), keys.leftKeys(), build.node().types(), true,
          keys.residual() == null ? null : residual(keys));
      JoinBuild joinBuild = new JoinBuild(build.node(), SpillwayField.dictionaries(keys.leftFields()),
          SpillwayField.dictionaries(keys.rightFields()), label);
      probeSide.addProbe(probe, joinBuild, build, this, getRight());
      PlanNode probePipeline = probeSide.node();
      GpuPipelineChoice reduction = SpillwayMarkReduction.choose(probeSide, getLeft(), keys.leftKeys(), getRight(),
          keys.rightKeys());
      reducedOnGpu = reduction != null;
      implementor.source(new MarkJoinNode(joinBuild, (ProbePipelineNode) probePipeline,
          joinType == JoinRelType.SEMI).withGpuReduction(reduction), build, probeSide);
    } else if (pipelined(chosen)) {
      boolean buildLeft = chosen.buildLeft();
      Implementor build = implementor.child(buildLeft ? getLeft() : getRight());
      implementor.visitChild(buildLeft ? getRight() : getLeft());
      Expr residual = joinType == JoinRelType.INNER || keys.residual() == null ? null : residual(keys);
      List<SpillwayField> probeKeyFields = buildLeft ? keys.rightFields() : keys.leftFields();
      List<SpillwayField> buildKeyFields = buildLeft ? keys.leftFields() : keys.rightFields();
      JoinProbeSpec probe = new JoinProbeSpec(probeKind(chosen), buildLeft ? keys.rightKeys() : keys.leftKeys(),
          probeKeyFields.stream().map(SpillwayField::type).toList(), buildLeft ? keys.leftKeys() : keys.rightKeys(),
          build.node().types(), buildLeft, residual);
      implementor.addProbe(probe, new JoinBuild(build.node(), SpillwayField.dictionaries(buildKeyFields),
          SpillwayField.dictionaries(probeKeyFields), label), build, this, buildLeft ? getRight() : getLeft());
    } else {
      Implementor left = implementor.child(getLeft());
      Implementor right = implementor.child(getRight());
      SpillwayTable table = SpillwayFields.scansOf(this).get(0).spillwayTable();
      implementor.source(new MaterializedJoinNode(left.node(), right.node(), keys.runtimeKeys(),
          materializedJoinKind(label), materializedJoinChoice(chosen), table.deviceUsage(), label), left, right);
    }
    if (keys.residual() != null && joinType == JoinRelType.INNER) {
      implementor.addStage(new PipelineStage.Filter(residual(keys)));
    }
  }

  /**
   * The windowed index join: the probe side runs as a node of its own; the build side is not run at all, its table's
   * index (acquired from {@link SpillwayIndexes} when the join runs, built then if no query built it before) finds
   * the rows its columns are read at, and its filter, if any, is applied to them.
   */
  private void implementIndexJoin(Implementor implementor, SpillwayJoinKeys keys, Candidate chosen, String label) {
    SpillwayIndexSite site = indexSite(chosen);
    Implementor probe = implementor.child(chosen.buildLeft() ? getRight() : getLeft());
    int probeKey = (chosen.buildLeft() ? keys.rightKeys() : keys.leftKeys())[0];
    Catalog catalog = site.table().catalog();
    String index = site.index(chosen.variant()).name();
    SpillwayIndexes indexes = SpillwayIndexes.of(catalog);
    implementor.source(new IndexJoinNode(probe.node(), probeKey, site.runtime(() -> indexes.acquire(catalog, index)),
        materializedJoinKind(label), chosen.buildLeft(), indexJoinWindowBytes(chosen), chosen.algorithm().gpu(),
        site.table().deviceUsage(), label), probe);
  }

  /**
   * Whether the join runs as a probe stage of its probe side's pipeline: the CPU NOPA join, and GPU NOPA with its
   * table in GPU memory (a GPU pipeline probes it there; a CPU pipeline probes the CPU table instead).
   */
  private boolean pipelined(Candidate candidate) {
    return candidate.algorithm() == SpillwayJoinAlgorithm.CPU_NOPA
        || candidate.algorithm() == SpillwayJoinAlgorithm.NOPA && "gpu".equals(candidate.placement())
        && !preservesBuild(candidate);
  }

  @Override public void probedOn(boolean gpu) {
    probedOnGpu = gpu;
  }

  /** The input that streams through this join in a GPU pipeline, or null where no GPU pipeline probes it. */
  RelNode gpuProbedInput() {
    return Boolean.TRUE.equals(probedOnGpu) ? (choice().chosen().buildLeft() ? getRight() : getLeft()) : null;
  }

  /**
   * The predicted time of this join as a probe stage (the orientation chosen), in a GPU pipeline or a CPU one; every
   * build column counted as read. Infinite on the GPU where {@link #gpuProbeRefusal} refuses it.
   */
  @Override public double pipelinedSeconds(boolean gpu) {
    if (gpu && gpuProbeRefusal().isPresent()) {
      return Double.POSITIVE_INFINITY;
    }
    Estimate e = pipelinedEstimate();
    SpillwayJoinCost cost = new SpillwayJoinCost(gpuProfile());
    int buildColumns = buildSide().getRowType().getFieldCount();
    return gpu ? cost.gpuPipelinedProbeSeconds(e, buildColumns) : cost.cpuPipelinedProbeSeconds(e);
  }

  @Override public double cpuBuildSeconds() {
    return new SpillwayJoinCost(gpuProfile()).cpuBuildSeconds(pipelinedEstimate());
  }

  /**
   * Why a GPU pipeline cannot probe this join, or empty: an inner or outer join whose build keys the statistics do not
   * show unique (the GPU probe pairs a probe row with one build row; duplicates would send the whole pipeline back
   * to the CPU at run time), or a table that does not fit the GPU memory the profile leaves.
   */
  @Override public Optional<String> gpuProbeRefusal() {
    Estimate e = pipelinedEstimate();
    boolean pairs = joinType == JoinRelType.INNER || joinType == JoinRelType.LEFT || joinType == JoinRelType.RIGHT;
    if (pairs && (e.buildKey() == null || !e.buildKey().pairsOnce(joinType))) {
      return Optional.of("the build keys of " + joinType.lowerName + " join on " + condition
          + " are not known to be unique (a GPU probe pairs a probe row with one build row)");
    }
    SpillwayJoinCost cost = new SpillwayJoinCost(gpuProfile());
    if (!cost.fitsGpuMemory(e, buildSide().getRowType().getFieldCount())) {
      return Optional.of("the build side of " + joinType.lowerName + " join on " + condition
          + " does not fit the GPU memory budget");
    }
    return Optional.empty();
  }

  /** The profile a GPU pipeline is planned with: the GPU site's (as for the pipeline's own cost), else the process's. */
  static MachineProfile gpuProfile() {
    return SpillwayGpuSite.current().map(SpillwayGpuSite::profile).orElseGet(MachineProfiles::current);
  }

  private RelNode buildSide() {
    return choice().chosen().buildLeft() ? getLeft() : getRight();
  }

  /**
   * The cost model's view of the chosen orientation, derived once for this node (as its choice is): each
   * implementation of a plan asks for it per probe, for both devices' costs and the GPU's refusal.
   */
  private Estimate pipelinedEstimate() {
    Estimate e = pipelined;
    if (e == null) {
      e = estimateChosenOrientation();
      pipelined = e;
    }
    return e;
  }

  private Estimate estimateChosenOrientation() {
    Candidate chosen = choice().chosen();
    RelMetadataQuery mq = getCluster().getMetadataQuery();
    SpillwayJoinKeys keys = keys();
    RelNode build = buildSide();
    RelNode probe = chosen.buildLeft() ? getRight() : getLeft();
    double buildRows = rows(mq, build);
    return new Estimate(buildRows, rows(mq, probe), rows(mq, this), SpillwayStatistics.key(mq, build,
        chosen.buildLeft() ? keys.leftKeysList() : keys.rightKeysList(), buildRows).orElse(null), chosen.buildLeft());
  }

  /**
   * The input whose rows stream through this join in their order, as a probe side inside its pipeline: 0 (left) or 1
   * (right) for a CPU hash join whose probe outputs in probe order; -1 where the output is in no input's order (a
   * join node of its own, a mark join, or a probe that outputs unmatched build rows after its last morsel).
   */
  int orderedInput() {
    Candidate chosen = choice().chosen();
    if (!pipelined(chosen) || marksBuild(chosen) || preservesBuild(chosen)) {
      return -1;
    }
    return chosen.buildLeft() ? 1 : 0;
  }

  /**
   * Whether the join is a semi- or anti-join built on its returned (left) side: its probe marks build rows (the
   * CPU NOPA probe only; the cost model offers this orientation to no other algorithm).
   */
  private boolean marksBuild(Candidate candidate) {
    return (joinType == JoinRelType.SEMI || joinType == JoinRelType.ANTI) && candidate.buildLeft();
  }

  /** Whether the chosen join is a semi- or anti-join that marks its build side ({@link SpillwayMarkJoins}). */
  boolean marksBuildSide() {
    return marksBuild(choice().chosen());
  }

  /**
   * Whether the join is an outer join built on a preserved side (a full join on either): its probe marks the build
   * rows it matched and outputs the others after its last morsel (the CPU NOPA probe only, as for
   * {@link #marksBuild}).
   */
  private boolean preservesBuild(Candidate candidate) {
    return joinType == JoinRelType.FULL || joinType == JoinRelType.LEFT && candidate.buildLeft()
        || joinType == JoinRelType.RIGHT && !candidate.buildLeft();
  }

  /** The join kind of a {@link MaterializedJoinNode}, which preserves its probe side. */
  private JoinKind materializedJoinKind(String label) {
    return switch (joinType) {
      case INNER -> JoinKind.INNER;
      case LEFT, RIGHT -> JoinKind.LEFT;  // the preserved side is the probe side
      case SEMI -> JoinKind.SEMI;
      case ANTI -> JoinKind.ANTI;
      default -> throw new IllegalStateException(joinType + " join passed planning: " + label);
    };
  }

  /**
   * The cost model's candidate as a {@link MaterializedJoinNode} runs it; a GPU join is created when the node runs,
   * configured as the candidate says.
   */
  private static JoinChoice materializedJoinChoice(Candidate chosen) {
    SpillwayJoinAlgorithm algorithm = chosen.algorithm();
    if (algorithm.gpu()) {
      return JoinChoice.gpu(chosen.buildLeft(), gpuSpec(chosen));
    }
    return JoinChoice.cpu(algorithm == SpillwayJoinAlgorithm.CPU_RADIX ? JoinChoice.Algorithm.CPU_RADIX
        : JoinChoice.Algorithm.CPU_NOPA, chosen.buildLeft());
  }

  /** The GPU join's configuration from the cost model's candidate. */
  private static GpuJoinSpec gpuSpec(Candidate chosen) {
    SpillwayJoinCost.RadixBits bits = chosen.radixBits();
    return new GpuJoinSpec(gpuAlgorithm(chosen.algorithm()), chosen.placement(), bits == null ? 0 : bits.first(),
        bits == null ? 0 : bits.second(), chosen.cacheShare() == null ? 0 : chosen.cacheShare(), chosen.transfer());
  }

  /** The engine's name of a GPU algorithm. */
  private static GpuJoinSpec.Algorithm gpuAlgorithm(SpillwayJoinAlgorithm algorithm) {
    return switch (algorithm) {
      case NOPA -> GpuJoinSpec.Algorithm.NOPA;
      case TRITON -> GpuJoinSpec.Algorithm.TRITON;
      default -> throw new IllegalArgumentException(algorithm + " is not a GPU join");
    };
  }

  /** What the probe makes of a probe row and, for an outer join, which side it preserves. */
  private JoinKind probeKind(Candidate chosen) {
    return switch (joinType) {
      case INNER -> JoinKind.INNER;
      case LEFT, RIGHT -> preservesBuild(chosen) ? JoinKind.RIGHT : JoinKind.LEFT;
      case FULL -> JoinKind.FULL;
      case SEMI -> JoinKind.SEMI;
      case ANTI -> JoinKind.ANTI;
      default -> throw new IllegalStateException(joinType + " join passed planning: " + this);
    };
  }

  /** The condition beyond key equality, over the joined row (the left input's columns, then the right's). */
  private Expr residual(SpillwayJoinKeys keys) {
    List<SpillwayField> joined = new ArrayList<>(SpillwayExplain.inputFields(this));
    joined.addAll(fields(getRight()));
    if (joinType.projectsRight()) {
      joined = SpillwayFields.of(this).orElseThrow();
    }
    try {
      return SpillwayRexTranslator.translate(keys.residual(), joined);
    } catch (SpillwayUnsupportedException e) {
      throw new IllegalStateException("join condition passed planning but cannot be translated: " + e.getMessage(), e);
    }
  }

  /** The keys as the runtime joins take them (the rule checked that they can). */
  SpillwayJoinKeys keys() {
    try {
      return SpillwayJoinKeys.of(this, SpillwayExplain.inputFields(this), fields(getRight()));
    } catch (SpillwayUnsupportedException e) {
      throw new IllegalStateException("join passed planning but cannot run: " + e.getMessage(), e);
    }
  }

  private static List<SpillwayField> fields(RelNode input) {
    return SpillwayFields.of(input).orElseThrow(() -> new IllegalStateException(
        "SpillwayJoin sits on an input that is not a Spillway tree: " + input));
  }

  /** The algorithm and its parameters, decided once for this node. */
  SpillwayJoinChoice choice() {
    SpillwayJoinChoice c = choice;
    if (c == null) {
      c = decide();
      choice = c;
    }
    return c;
  }

  private SpillwayJoinChoice decide() {
    RelMetadataQuery mq = getCluster().getMetadataQuery();
    SpillwayJoinKeys keys = keys();
    double leftRows = rows(mq, getLeft());
    double rightRows = rows(mq, getRight());
    double outputRows = rows(mq, this);
    // Every join builds on either side. The join nodes preserve their probe side; the CPU NOPA probe also preserves
    // its build side (an outer join built on its preserved side, DuckDB's RIGHT OUTER on the build side) and marks
    // the build rows that the other side matches (a semi- or anti-join built on its returned left side).
    List<Estimate> orientations = new ArrayList<>();
    orientations.add(new Estimate(rightRows, leftRows, outputRows,
        SpillwayStatistics.key(mq, getRight(), keys.rightKeysList(), rightRows).orElse(null), false));
    orientations.add(new Estimate(leftRows, rightRows, outputRows,
        SpillwayStatistics.key(mq, getLeft(), keys.leftKeysList(), leftRows).orElse(null), true));
    // Where the model predicts a tie, the smaller build side wins.
    orientations.sort(Comparator.comparingDouble(Estimate::buildRows));
    SpillwayTable table = SpillwayFields.scansOf(this).get(0).spillwayTable();
    // The GPU site's profile where there is one: the pipeline that probes this join is planned with it too.
    MachineProfile profile = gpuProfile();
    SpillwayJoinCost cost = new SpillwayJoinCost(profile);
    // "calibrated" only where this machine was measured and the CPU join rates were too: a profile from before
    // they were calibrated still charges the CPU joins the H100 host's constants.
    // Only the CPU probe evaluates a residual on each candidate pair, as an outer, semi- or anti-join needs.
    boolean pairResidual = keys.residual() != null && joinType != JoinRelType.INNER;
    SpillwayIndexSite.Found[] sites = {indexSite(false, keys), indexSite(true, keys)};
    indexSites = sites;
    // Where an index join is a candidate, its lookup rates must have been measured too.
    boolean indexed = sites[0].site() != null || sites[1].site() != null;
    boolean calibrated = MachineProfiles.calibrated(profile) && cost.cpuRatesMeasured()
        && (!indexed || cost.indexJoins().measured());
    long window = table.indexJoinWindowBytes();
    return SpillwayJoinChoice.choose(cost, orientations, pairResidual ? SpillwayDevice.CPU : table.device(),
        pairResidual ? SpillwayJoinAlgorithm.CPU_NOPA : table.joinAlgorithm(),
        algorithm -> whyNot(algorithm, sites), calibrated,
        c -> (!marksBuild(c) && !preservesBuild(c) || c.algorithm() == SpillwayJoinAlgorithm.CPU_NOPA)
            && !(marksBuild(c) && rightReadElsewhere),
        e -> indexJoins(cost, e, sites[e.buildLeft() ? 1 : 0], window),
        e -> gpuUnavailable(SpillwayJoinAlgorithm.NOPA).isEmpty() ? probedOnGpuSeconds(cost, e) : Double.NaN);
  }

  /**
   * Notes, for each semi- and anti-join of the plan under {@code root}, whether its right input is also the right input
   * of another one (the same subtree, which the implementor runs once where both build on it:
   * {@code SpillwayRel.Implementor#child}). Such a join is not built on its left side then: marking the left rows
   * streams the right side a second time, where building on it reads the rows the plan makes once anyway (TPC-H Q20's
   * part names, which the magic-set rule also puts under lineitem's subquery: in auto its partsupp pipeline marked its
   * rows, scanning part twice and ending the GPU pipeline before its aggregation). Called before any join's choice is
   * made (it is made once).
   */
  static void noteSharedInputs(RelNode root) {
    Map<String, List<SpillwayJoin>> semiJoins = new HashMap<>();
    collectSemiJoins(root, semiJoins);
    semiJoins.values().forEach(uses -> uses.forEach(join -> join.resultShared = uses.size() > 1));
    Map<RelNode, String> rightSides = new IdentityHashMap<>();
    collectRightSides(root, rightSides, Collections.newSetFromMap(new IdentityHashMap<>()));
    Map<String, Integer> uses = new HashMap<>();
    rightSides.values().forEach(text -> uses.merge(text, 1, Integer::sum));
    rightSides.forEach((join, text) -> {
      if (join instanceof SpillwayJoin spillway) {
        spillway.rightReadElsewhere = uses.get(text) > 1;
      }
    });
  }

  /** Each use of a semi join under {@code rel} (a node the tree holds twice, twice), by the join's text. */
  private static void collectSemiJoins(RelNode rel, Map<String, List<SpillwayJoin>> uses) {
    if (rel instanceof SpillwayJoin join && join.getJoinType() == JoinRelType.SEMI) {
      uses.computeIfAbsent(subtreeText(join), t -> new ArrayList<>()).add(join);
    }
    for (RelNode input : rel.getInputs()) {
      collectSemiJoins(input, uses);
    }
  }

  /** Whether the plan holds this semi join more than once: it runs as a node of its own, which each use reads. */
  boolean resultShared() {
    return resultShared;
  }

  /** The text of each semi- and anti-join's right input under {@code rel}, by join (each node once). */
  private static void collectRightSides(RelNode rel, Map<RelNode, String> rightSides, Set<RelNode> seen) {
    if (!seen.add(rel)) {
      return;  // a node the tree holds twice: its inputs were counted once
    }
    if (rel instanceof Join join
        && (join.getJoinType() == JoinRelType.SEMI || join.getJoinType() == JoinRelType.ANTI)) {
      rightSides.put(join, subtreeText(join.getRight()));
    }
    for (RelNode input : rel.getInputs()) {
      collectRightSides(input, rightSides, seen);
    }
  }

  /** The text by which the implementor recognizes a subtree it runs once for several joins. */
  static String subtreeText(RelNode rel) {
    return RelOptUtil.toString(rel, SqlExplainLevel.DIGEST_ATTRIBUTES);
  }

  /**
   * An orientation's time as a probe stage of a GPU pipeline, or NaN where no GPU pipeline could probe it: an outer
   * join built on its preserved side (CPU probes only), build keys of a join that pairs rows not known to be unique, a table over the GPU memory the profile leaves, or a probe side
   * whose rows do not stream from a scan ({@link #streamsFromScan}).
   */
  private double probedOnGpuSeconds(SpillwayJoinCost cost, Estimate e) {
    Candidate probe = new Candidate(SpillwayJoinAlgorithm.CPU_NOPA, null, null, null, null, "none", 0, e.buildLeft());
    boolean pairs = joinType == JoinRelType.INNER || joinType == JoinRelType.LEFT || joinType == JoinRelType.RIGHT;
    RelNode build = e.buildLeft() ? getLeft() : getRight();
    int buildColumns = build.getRowType().getFieldCount();
    boolean unique = e.buildKey() != null && e.buildKey().pairsOnce(joinType);
    if (preservesBuild(probe) || pairs && !unique
        || !cost.fitsGpuMemory(e, buildColumns) || !streamsFromScan(e.buildLeft() ? getRight() : getLeft())) {
      return Double.NaN;
    }
    // A table's own columns go to the GPU from its Arrow batches; any other build side's rows are first made in
    // host memory by a pipeline of their own, which the other orientation streams instead (Q4's filtered lineitem).
    double made = isScan(build) ? 0 : cost.hostBuildRowsSeconds(e.buildRows(), buildColumns);
    return made + cost.gpuPipelinedProbeSeconds(e, buildColumns);
  }

  private static boolean isScan(RelNode rel) {
    return (rel instanceof RelSubset subset ? subset.getBestOrOriginal() : rel) instanceof SpillwayTableScan;
  }

  /**
   * Whether the rows of {@code rel} stream from a table scan through filters, projections and the probes of joins
   * that a GPU pipeline could probe: what a GPU pipeline can stream into a join above. A join node's, an aggregation's
   * or a sort's output lives in Java arrays, which pipelines on the CPU backend read.
   */
  private static boolean streamsFromScan(RelNode rel) {
    RelNode node = rel instanceof RelSubset subset ? subset.getBestOrOriginal() : rel;
    if (node instanceof SpillwayTableScan) {
      return true;
    }
    if (node instanceof SpillwayFilter || node instanceof SpillwayProject) {
      return streamsFromScan(node.getInput(0));
    }
    if (node instanceof SpillwayJoin join) {
      if (join.resultShared()) {
        return false;  // read as a node of its own
      }
      Candidate chosen = join.choice().chosen();
      return join.orderedInput() >= 0 && join.gpuProbeRefusal().isEmpty()
          && streamsFromScan(chosen.buildLeft() ? join.getRight() : join.getLeft());
    }
    return false;
  }

  /**
   * Where the windowed index join can look up the build side of an orientation: a side it does not preserve or
   * return (its joins preserve the probe side only), which is a table with an index on the key.
   */
  private SpillwayIndexSite.Found indexSite(boolean buildLeft, SpillwayJoinKeys keys) {
    String side = buildLeft ? "left" : "right";
    boolean returnsLeft = joinType == JoinRelType.SEMI || joinType == JoinRelType.ANTI;
    if (joinType == JoinRelType.FULL || buildLeft && (returnsLeft || joinType == JoinRelType.LEFT)
        || !buildLeft && joinType == JoinRelType.RIGHT) {
      return SpillwayIndexSite.Found.not("a " + joinType.lowerName + " join " + (returnsLeft ? "returns" : "preserves")
          + " its " + side + " side, which the index join must probe with");
    }
    return SpillwayIndexSite.find(side, buildLeft ? getLeft() : getRight(), buildLeft ? keys.leftKeys()
        : keys.rightKeys(), buildLeft ? keys.leftFields() : keys.rightFields(), buildLeft ? keys.rightFields()
        : keys.leftFields());
  }

  /**
   * The index joins of one orientation: one per index of its site, on each device the profile has, in windows of
   * {@code windowBytes} (0: sized by the index).
   */
  private static List<Candidate> indexJoins(SpillwayJoinCost cost, Estimate e, SpillwayIndexSite.Found found,
      long windowBytes) {
    if (found.site() == null) {
      return List.of();
    }
    List<Candidate> out = new ArrayList<>();
    for (IndexDefinition index : found.site().indexes()) {
      out.addAll(cost.inlj(e, index.kind(), found.site().rows(),
          IndexJoinNode.windowBytes(windowBytes, found.site().rows())));
    }
    return out;
  }

  /**
   * Why an algorithm cannot run here: a GPU one as {@link #gpuUnavailable} says, an index join where no side has an
   * index it can look up.
   */
  private static Optional<String> whyNot(SpillwayJoinAlgorithm algorithm, SpillwayIndexSite.Found[] sites) {
    if (algorithm.indexed() && sites[0].site() == null && sites[1].site() == null) {
      return Optional.of("no index join: " + sites[0].whyNot() + "; " + sites[1].whyNot());
    }
    return algorithm.gpu() ? gpuUnavailable(algorithm) : Optional.empty();
  }

  static double rows(RelMetadataQuery mq, RelNode rel) {
    Double rows = mq.getRowCount(rel);
    return rows == null ? 1 : rows;
  }

  /**
   * Why a GPU join cannot run here: no device (nor a GPU site a plan test assumed), or the join is not in this
   * build.
   */
  static Optional<String> gpuUnavailable(SpillwayJoinAlgorithm algorithm) {
    if (SpillwayGpuSite.current().isEmpty()) {
      return Optional.of("no usable CUDA device: " + GpuRuntime.unavailableReason());
    }
    if (!algorithm.gpu()) {
      return Optional.of(algorithm + " is not a GPU join");
    }
    if (algorithm.indexed()) {
      return Optional.empty();  // the GPU windowed index join needs nothing but the device
    }
    return GpuJoins.factory().unavailableReason(gpuAlgorithm(algorithm));
  }
}

