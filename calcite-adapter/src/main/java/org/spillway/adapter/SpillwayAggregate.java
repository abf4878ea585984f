package org.spillway.adapter;

import org.apache.calcite.plan.RelOptCluster;
import org.apache.calcite.plan.RelOptCost;
import org.apache.calcite.plan.RelOptPlanner;
import org.apache.calcite.plan.RelTraitSet;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.RelWriter;
import org.apache.calcite.rel.core.Aggregate;
import org.apache.calcite.rel.core.AggregateCall;
import org.apache.calcite.rel.metadata.RelMetadataQuery;
import org.apache.calcite.sql.SqlExplainLevel;
import org.apache.calcite.util.ImmutableBitSet;
import org.spillway.gpu.expr.AggCall;
import org.spillway.gpu.vector.ExprType;
import org.spillway.gpu.pipeline.PipelineStage;

import java.util.ArrayList;
import java.util.List;

import static java.util.Objects.requireNonNull;

/**
 * Aggregate in the Spillway convention: hash aggregation with a partial table per worker, merged at the
 * end, or on the CPU over sorted runs where its one key arrives clustered (EXPLAIN: {@code variant=sorted-runs});
 * it ends the fused pipeline below it. SUMs that {@link SpillwaySumWidth} cannot bound below 2^63 are wide:
 * accumulated exactly in 128 bits, BIG_DECIMAL values from here on (EXPLAIN: {@code wideSums}).
 */
public final class SpillwayAggregate extends Aggregate implements SpillwayRel {
  /** Positions in the call list of the wide sums, decided once when the node is made. */
  private final ImmutableBitSet wideSums;
  /** Whether the CPU aggregates runs of its sorted key ({@link SpillwaySortedInput}), decided once when asked. */
  private volatile Boolean sortedRuns;
  /**
   * Why the GPU cannot run this aggregation where the implementor split its pipeline here (the stages below on the
   * GPU, this one and those above on the CPU over the rows they return), else null.
   */
  private volatile String cpuOverGpuRows;

  private SpillwayAggregate(RelOptCluster cluster, RelTraitSet traits, RelNode input, ImmutableBitSet groupSet,
      List<ImmutableBitSet> groupSets, List<AggregateCall> aggCalls, ImmutableBitSet wideSums) {
    super(cluster, SpillwayRel.unordered(traits), List.of(), input, groupSet, groupSets, aggCalls);
    this.wideSums = wideSums;
  }

  /** An aggregate over {@code input} whose wide sums the bound analysis picks. */
  static SpillwayAggregate create(RelOptCluster cluster, RelTraitSet traits, RelNode input, ImmutableBitSet groupSet,
      List<ImmutableBitSet> groupSets, List<AggregateCall> aggCalls) {
    return new SpillwayAggregate(cluster, traits, input, groupSet, groupSets, aggCalls,
        SpillwaySumWidth.analyze(input, aggCalls));
  }

  @Override public Aggregate copy(RelTraitSet traitSet, RelNode input, ImmutableBitSet groupSet,
      List<ImmutableBitSet> groupSets, List<AggregateCall> aggCalls) {
    // the same calls over an equivalent input keep their decision (the final plan's inputs are other members of
    // the sets the decision was made over); other calls are decided afresh
    return aggCalls.equals(getAggCallList())
        ? new SpillwayAggregate(getCluster(), traitSet, input, groupSet, groupSets, aggCalls, wideSums)
        : create(getCluster(), traitSet, input, groupSet, groupSets, aggCalls);
  }

  /** Positions in the call list of the sums that may need more than 64 bits. */
  ImmutableBitSet wideSums() {
    return wideSums;
  }

  @Override public RelOptCost computeSelfCost(RelOptPlanner planner, RelMetadataQuery mq) {
    return requireNonNull(super.computeSelfCost(planner, mq)).multiplyBy(SpillwayRel.COST_FACTOR);
  }

  /**
   * Whether the CPU backend aggregates sorted runs of the one key, which arrives clustered (a sorted table column
   * through order-keeping operators), instead of hashing; the GPU hashes in any case.
   */
  boolean sortedRuns() {
    Boolean sorted = sortedRuns;
    if (sorted == null) {
      sorted = SpillwaySortedInput.sortedRuns(this);
      sortedRuns = sorted;
    }
    return sorted;
  }

  /** Marks this aggregation as run on the CPU over the rows of a GPU pipeline below it, because of {@code reason}. */
  void runsOnCpuOverGpuRows(String reason) {
    cpuOverGpuRows = reason;
  }

  /** Whether the implementor split the pipeline below this aggregation ({@link #runsOnCpuOverGpuRows}). */
  boolean runsOnCpuOverGpuRows() {
    return cpuOverGpuRows != null;
  }

  @Override public RelWriter explainTerms(RelWriter pw) {
    String variant = groupSet.isEmpty() ? "global" : "hash";
    // digests identify nodes while planning: the variant is decided for the final plan
    boolean digest = pw.getDetailLevel() == SqlExplainLevel.DIGEST_ATTRIBUTES;
    String cpuVariant = !digest && !groupSet.isEmpty() && sortedRuns() ? "sorted-runs" : variant;
    RelWriter terms = super.explainTerms(pw)
        .itemIf("wideSums", SpillwaySumWidth.label(getGroupCount(), wideSums), !wideSums.isEmpty());
    terms = SpillwayExplain.describeOperator(terms, this, cpuVariant, variant);
    long groups = digest || groupSet.isEmpty() ? 0 : SpillwayExplain.gpuGroups(this);
    return terms.itemIf("groups", groups, groups > 0);  // what sizes the GPU hash table: a bad guess runs twice
  }

  @Override public void implement(Implementor implementor) {
    implementor.visitChild(getInput());
    try {
      List<SpillwayField> fields = SpillwayExplain.inputFields(this);
      PipelineStage.Aggregate stage = stage(this, fields);
      implementor.addStage(new PipelineStage.Aggregate(stage.groupKeys(), stage.calls(), sortedRuns(),
          keyRanges(fields)));
    } catch (SpillwayUnsupportedException e) {
      throw new IllegalStateException("aggregate passed planning but cannot run: " + e.getMessage(), e);
    }
  }

  /** Per group key, the range of values the statistics give (the GPU packs such keys into fewer bits), or null. */
  private long[][] keyRanges(List<SpillwayField> fields) {
    RelMetadataQuery mq = getCluster().getMetadataQuery();
    long[][] ranges = new long[getGroupCount()][];
    int k = 0;
    for (int key : getGroupSet()) {
      ranges[k++] = SpillwayStatistics.valueRange(mq, getInput(), key, fields.get(key));
    }
    return ranges;
  }

  /** The pipeline stage of an aggregate over the given input fields, or why there is none. */
  static PipelineStage.Aggregate stage(Aggregate aggregate, List<SpillwayField> input)
      throws SpillwayUnsupportedException {
    if (aggregate.getGroupType() != Group.SIMPLE) {
      throw new SpillwayUnsupportedException("GROUPING SETS, ROLLUP and CUBE");
    }
    for (int key : aggregate.getGroupSet()) {
      SpillwayField field = input.get(key);
      if (!field.isSupported() || field.type().kind() == ExprType.Kind.BIG_DECIMAL) {
        throw new SpillwayUnsupportedException("GROUP BY $" + key + " of "
            + (field.isSupported() ? "a BIG_DECIMAL value (a decimal quotient or a wide SUM)" : field.unsupported()));
      }
    }
    List<AggCall> calls = new ArrayList<>();
    ImmutableBitSet wide = SpillwaySumWidth.wideSums(aggregate);
    for (int c = 0; c < aggregate.getAggCallList().size(); c++) {
      AggCall call = aggCall(aggregate.getAggCallList().get(c), input);
      calls.add(wide.get(c) ? AggCall.wideSum(call.kind(), call.argument()) : call);
    }
    return new PipelineStage.Aggregate(aggregate.getGroupSet().toArray(), calls);
  }

  private static AggCall aggCall(AggregateCall call, List<SpillwayField> input) throws SpillwayUnsupportedException {
    if (call.isDistinct() || call.filterArg >= 0 || !call.collation.getFieldCollations().isEmpty()
        || call.isApproximate()) {
      throw new SpillwayUnsupportedException("aggregate " + call + " (DISTINCT, FILTER or WITHIN GROUP)");
    }
    AggCall.Kind kind = switch (call.getAggregation().getKind()) {
      case SUM -> AggCall.Kind.SUM;
      case SUM0 -> AggCall.Kind.SUM0;
      case COUNT -> AggCall.Kind.COUNT;
      case MIN -> AggCall.Kind.MIN;
      case MAX -> AggCall.Kind.MAX;
      default -> throw new SpillwayUnsupportedException("aggregate function " + call.getAggregation().getName());
    };
    if (call.getArgList().size() > 1 || (call.getArgList().isEmpty() && kind != AggCall.Kind.COUNT)) {
      throw new SpillwayUnsupportedException("aggregate " + call + " with " + call.getArgList().size() + " arguments");
    }
    int argument = call.getArgList().isEmpty() ? -1 : call.getArgList().get(0);
    boolean keepsValues = kind == AggCall.Kind.MIN || kind == AggCall.Kind.MAX;
    SpillwayField result = keepsValues ? input.get(argument) : SpillwayFields.ofType(call.getType());
    if (!result.isSupported()) {
      throw new SpillwayUnsupportedException("aggregate " + call + ": " + result.unsupported());
    }
    try {
      AggCall agg = new AggCall(kind, argument, result.type());
      if (argument >= 0) {
        SpillwayField arg = input.get(argument);
        if (!arg.isSupported()) {
          throw new SpillwayUnsupportedException("aggregate " + call + ": " + arg.unsupported());
        }
        agg.checkArgument(arg.type());
      }
      return agg;
    } catch (IllegalArgumentException e) {
      throw new SpillwayUnsupportedException("aggregate " + call + ": " + e.getMessage());
    }
  }
}
