package org.spillway.adapter;

import org.apache.calcite.plan.RelOptCluster;
import org.apache.calcite.plan.RelOptCost;
import org.apache.calcite.plan.RelOptPlanner;
import org.apache.calcite.plan.RelTraitSet;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.RelWriter;
import org.apache.calcite.rel.core.Filter;
import org.apache.calcite.rel.metadata.RelMetadataQuery;
import org.apache.calcite.rex.RexNode;
import org.spillway.gpu.pipeline.PipelineStage;

import static java.util.Objects.requireNonNull;

/** Filter in the Spillway convention: its condition runs as a vectorized predicate fused into the scan. */
public final class SpillwayFilter extends Filter implements SpillwayRel {
  SpillwayFilter(RelOptCluster cluster, RelTraitSet traits, RelNode input, RexNode condition) {
    super(cluster, traits.replace(CONVENTION), input, condition);
  }

  @Override public Filter copy(RelTraitSet traitSet, RelNode input, RexNode condition) {
    return new SpillwayFilter(getCluster(), traitSet, input, condition);
  }

  @Override public RelOptCost computeSelfCost(RelOptPlanner planner, RelMetadataQuery mq) {
    return requireNonNull(super.computeSelfCost(planner, mq)).multiplyBy(SpillwayRel.COST_FACTOR);
  }

  @Override public RelWriter explainTerms(RelWriter pw) {
    // Branch-free selection: every row's position is written, the count advances by the predicate.
    return SpillwayExplain.describeOperator(super.explainTerms(pw), this, "predication", "branching");
  }

  @Override public void implement(Implementor implementor) {
    implementor.visitChild(getInput());
    try {
      implementor.addStage(new PipelineStage.Filter(
          SpillwayRexTranslator.translate(condition, SpillwayExplain.inputFields(this))));
    } catch (SpillwayUnsupportedException e) {
      throw new IllegalStateException("filter passed planning but cannot be translated: " + e.getMessage(), e);
    }
  }
}
