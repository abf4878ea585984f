package org.spillway.adapter;

import org.apache.calcite.plan.RelOptCluster;
import org.apache.calcite.plan.RelOptCost;
import org.apache.calcite.plan.RelOptPlanner;
import org.apache.calcite.plan.RelTraitSet;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.RelWriter;
import org.apache.calcite.rel.core.Project;
import org.apache.calcite.rel.metadata.RelMetadataQuery;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rex.RexNode;
import org.spillway.gpu.expr.Expr;
import org.spillway.gpu.pipeline.PipelineStage;

import java.util.ArrayList;
import java.util.List;

import static java.util.Objects.requireNonNull;

/** Project in the Spillway convention: expressions evaluated over whole vectors, fused into the pipeline. */
public final class SpillwayProject extends Project implements SpillwayRel {
  SpillwayProject(RelOptCluster cluster, RelTraitSet traits, RelNode input, List<? extends RexNode> projects,
      RelDataType rowType) {
    super(cluster, traits.replace(CONVENTION), List.of(), input, projects, rowType, java.util.Set.of());
  }

  @Override public Project copy(RelTraitSet traitSet, RelNode input, List<RexNode> projects, RelDataType rowType) {
    return new SpillwayProject(getCluster(), traitSet, input, projects, rowType);
  }

  @Override public RelOptCost computeSelfCost(RelOptPlanner planner, RelMetadataQuery mq) {
    return requireNonNull(super.computeSelfCost(planner, mq)).multiplyBy(SpillwayRel.COST_FACTOR);
  }

  @Override public RelWriter explainTerms(RelWriter pw) {
    return SpillwayExplain.describeOperator(super.explainTerms(pw), this, "vectorized", "interpreted");
  }

  @Override public void implement(Implementor implementor) {
    implementor.visitChild(getInput());
    List<Expr> exprs = new ArrayList<>();
    try {
      for (RexNode e : getProjects()) {
        exprs.add(SpillwayRexTranslator.translate(e, SpillwayExplain.inputFields(this)));
      }
    } catch (SpillwayUnsupportedException e) {
      throw new IllegalStateException("project passed planning but cannot be translated: " + e.getMessage(), e);
    }
    implementor.addStage(new PipelineStage.Project(exprs));
  }
}
