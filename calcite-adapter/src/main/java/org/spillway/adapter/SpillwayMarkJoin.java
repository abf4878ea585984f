package org.spillway.adapter;

import org.spillway.gpu.plan.GpuPipelineChoice;
import org.spillway.gpu.plan.JoinBuild;
import org.spillway.gpu.plan.PlanNode;
import org.spillway.gpu.plan.MarkJoinNode;
import org.spillway.gpu.plan.MarkProbeSpec;
import org.spillway.gpu.plan.ProbePipelineNode;

import org.apache.calcite.plan.RelOptCluster;
import org.apache.calcite.plan.RelOptCost;
import org.apache.calcite.plan.RelOptPlanner;
import org.apache.calcite.plan.RelTraitSet;
import org.apache.calcite.rel.BiRel;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.RelWriter;
import org.apache.calcite.rel.core.JoinRelType;
import org.apache.calcite.rel.metadata.RelMetadataQuery;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rex.RexNode;
import org.spillway.gpu.expr.Expr;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.apache.calcite.plan.RelOptUtil;
import org.apache.calcite.util.ImmutableBitSet;

import static java.util.Objects.requireNonNull;

/**
 * Semi- and anti-joins stacked on one build side (the left input), on the same keys, whose probe sides read the same
 * table: the table (the right input, a scan of every column any probe side read) streams once through a probe that
 * keeps a mark per join, each under its join's condition beyond the keys and its probe side's filter; the output is
 * the build rows every join keeps ({@link MarkJoinNode}). {@link SpillwayMarkJoins} forms it from the joins the cost
 * model chose to build on their returned side (TPC-H Q21's EXISTS and NOT EXISTS on lineitem).
 */
public final class SpillwayMarkJoin extends BiRel implements SpillwayRel, SpillwayProbedJoin {
  private final int[] buildKeys;
  private final int[] probeKeys;
  /** Per join, innermost first: its condition beyond the keys over the left row then the right one (null: none). */
  private final List<RexNode> conditions;
  /** Per join, as {@link #conditions}: SEMI or ANTI. */
  private final List<JoinRelType> joinTypes;
  /** The rows the outermost of the joins it stands for was estimated to return. */
  private final double rows;
  /** Whether a GPU pass reduces the probe side before the CPU marks ({@link SpillwayMarkReduction}). */
  private volatile boolean reducedOnGpu;
  /** Whether the marking pipeline runs on the GPU, once the implementor decided (for EXPLAIN). */
  private volatile boolean probedOnGpu;

  SpillwayMarkJoin(RelOptCluster cluster, RelTraitSet traits, RelNode build, SpillwayTableScan probe, int[] buildKeys,
      int[] probeKeys, List<RexNode> conditions, List<JoinRelType> joinTypes, double rows) {
    super(cluster, SpillwayRel.unordered(traits), build, probe);
    if (conditions.size() != joinTypes.size() || conditions.size() < 2) {
      throw new IllegalArgumentException("a mark join of several joins needs a condition per join: " + conditions
          + " for " + joinTypes);
    }
    this.buildKeys = buildKeys.clone();
    this.probeKeys = probeKeys.clone();
    this.conditions = new ArrayList<>(conditions);
    this.joinTypes = List.copyOf(joinTypes);
    this.rows = rows;
  }

  @Override public RelNode copy(RelTraitSet traitSet, List<RelNode> inputs) {
    return new SpillwayMarkJoin(getCluster(), traitSet, inputs.get(0), (SpillwayTableScan) inputs.get(1), buildKeys,
        probeKeys, conditions, joinTypes, rows);
  }

  @Override protected RelDataType deriveRowType() {
    return getLeft().getRowType();
  }

  @Override public double estimateRowCount(RelMetadataQuery mq) {
    return rows;
  }

  @Override public RelOptCost computeSelfCost(RelOptPlanner planner, RelMetadataQuery mq) {
    return requireNonNull(super.computeSelfCost(planner, mq)).multiplyBy(SpillwayRel.COST_FACTOR);
  }

  @Override public RelWriter explainTerms(RelWriter pw) {
    List<String> marks = new ArrayList<>();
    for (int j = 0; j < conditions.size(); j++) {
      marks.add(joinTypes.get(j).lowerName + (conditions.get(j) == null ? "" : " " + conditions.get(j)));
    }
    return super.explainTerms(pw)
        .item("buildKeys", Arrays.toString(buildKeys))
        .item("probeKeys", Arrays.toString(probeKeys))
        .item("joins", marks)
        .item("device", probedOnGpu ? "gpu" : "cpu")
        .item("algorithm", probedOnGpu ? SpillwayJoinAlgorithm.NOPA : SpillwayJoinAlgorithm.CPU_NOPA)
        .itemIf("probe", "in a gpu pipeline", probedOnGpu)
        .itemIf("predicted", SpillwayJoinChoice.time(pipelinedSeconds(true)), probedOnGpu)
        .item("buildSide", "left")
        .itemIf("reduction", "gpu semi-join", reducedOnGpu);
  }

  /** What EXPLAIN ANALYZE calls the node. */
  String label() {
    List<String> types = joinTypes.stream().map(t -> t.lowerName).toList();
    return String.join("+", types) + " joins marking " + SpillwayFields.scanOf(getRight()).orElseThrow()
        .spillwayTable().stored().name();
  }

  /** The left input's rows, marked by one pipeline over the right input that ends in the marking probe. */
  @Override public void implement(Implementor implementor) {
    List<SpillwayField> left = fields(getLeft());
    List<SpillwayField> right = fields(getRight());
    List<SpillwayField> joined = new ArrayList<>(left);
    joined.addAll(right);
    List<Expr> translated = new ArrayList<>();
    for (RexNode condition : conditions) {
      try {
        translated.add(condition == null ? null : SpillwayRexTranslator.translate(condition, joined));
      } catch (SpillwayUnsupportedException e) {
        throw new IllegalStateException("a join's condition passed planning but cannot be translated: "
            + e.getMessage(), e);
      }
    }
    List<SpillwayField> buildKeyFields = Arrays.stream(buildKeys).mapToObj(left::get).toList();
    List<SpillwayField> probeKeyFields = Arrays.stream(probeKeys).mapToObj(right::get).toList();
    Implementor build = implementor.child(getLeft());
    Implementor probeSide = implementor.unshared(getRight());
    List<Boolean> semi = joinTypes.stream().map(t -> t == JoinRelType.SEMI).toList();
    MarkProbeSpec probe = new MarkProbeSpec(probeKeys, probeKeyFields.stream().map(SpillwayField::type).toList(),
        buildKeys, build.node().types(), translated, semi);
    JoinBuild joinBuild = new JoinBuild(build.node(), SpillwayField.dictionaries(buildKeyFields),
        SpillwayField.dictionaries(probeKeyFields), label());
    probeSide.addProbe(probe.stage(), joinBuild, build, this, getRight());
    PlanNode probePipeline = probeSide.node();
    GpuPipelineChoice reduction = SpillwayMarkReduction.choose(probeSide, getLeft(), buildKeys, getRight(), probeKeys);
    reducedOnGpu = reduction != null;
    implementor.source(new MarkJoinNode(joinBuild, (ProbePipelineNode) probePipeline, semi)
        .withGpuReduction(reduction), build, probeSide);
  }

  /**
   * The marking probe's time. On the CPU: its table, then per probe row a lookup, which for a row whose key some build
   * row has walks that key's build rows and tests every join's condition (the share of such rows by the keys'
   * distinct values; the others cost {@link SpillwayJoinCost#CPU_MARK_MISS_SHARE} of it). On the GPU: the build
   * side's keys and the columns the conditions read uploaded, the table built, a lookup per probe row.
   */
  @Override public double pipelinedSeconds(boolean gpu) {
    SpillwayJoinCost cost = new SpillwayJoinCost(SpillwayJoin.gpuProfile());
    SpillwayJoinCost.Estimate e = estimate();
    if (gpu) {
      return gpuProbeRefusal().isPresent() ? Double.POSITIVE_INFINITY
          : cost.gpuPipelinedProbeSeconds(e, buildColumnsRead());
    }
    double matched = SpillwayStatistics.matchedShare(getCluster().getMetadataQuery(), getLeft(), buildKeys, getRight(),
        probeKeys);
    return cost.cpuBuildSeconds(e) + e.probeRows() * cost.cpuMarkSecondsPerRow(e.buildRows())
        * (matched + SpillwayJoinCost.CPU_MARK_MISS_SHARE * (1 - matched));
  }

  @Override public double cpuBuildSeconds() {
    return new SpillwayJoinCost(SpillwayJoin.gpuProfile()).cpuBuildSeconds(estimate());
  }

  /** Why a GPU pipeline cannot mark: the build side's table and the columns it reads over the GPU memory left. */
  @Override public Optional<String> gpuProbeRefusal() {
    if (!new SpillwayJoinCost(SpillwayJoin.gpuProfile()).fitsGpuMemory(estimate(), buildColumnsRead())) {
      return Optional.of("the build side of " + label() + " does not fit the GPU memory budget");
    }
    return Optional.empty();
  }

  @Override public void probedOn(boolean gpu) {
    probedOnGpu = gpu;
  }

  private SpillwayJoinCost.Estimate estimate() {
    RelMetadataQuery mq = getCluster().getMetadataQuery();
    double buildRows = SpillwayJoin.rows(mq, getLeft());
    return new SpillwayJoinCost.Estimate(buildRows, SpillwayJoin.rows(mq, getRight()), rows, SpillwayStatistics.key(mq,
        getLeft(), Arrays.stream(buildKeys).boxed().toList(), buildRows).orElse(null), true);
  }

  /** The build side's columns the joins' conditions read (the GPU uploads them beside the keys). */
  private int buildColumnsRead() {
    int left = getLeft().getRowType().getFieldCount();
    ImmutableBitSet read = RelOptUtil.InputFinder.bits(conditions.stream().filter(Objects::nonNull).toList(), null);
    return read.get(0, left).cardinality();
  }

  private static List<SpillwayField> fields(RelNode input) {
    return SpillwayFields.of(input).orElseThrow(() -> new IllegalStateException(
        "SpillwayMarkJoin sits on an input that is not a Spillway tree: " + input));
  }
}
