package org.spillway.adapter;

import org.spillway.gpu.plan.NestedLoopJoinNode;

import org.apache.calcite.plan.RelOptCluster;
import org.apache.calcite.plan.RelOptCost;
import org.apache.calcite.plan.RelOptPlanner;
import org.apache.calcite.plan.RelOptUtil;
import org.apache.calcite.plan.RelTraitSet;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.RelWriter;
import org.apache.calcite.rel.core.Join;
import org.apache.calcite.rel.core.JoinRelType;
import org.apache.calcite.rel.metadata.RelMetadataQuery;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.sql.SqlExplainLevel;
import org.spillway.gpu.expr.Expr;

import java.util.List;
import java.util.Set;


/**
 * Join without an equi-key whose one side is small (a scalar subquery's one row, say) in the Spillway
 * convention: every row of the big side against every row of the small side, the condition evaluated over a
 * morsel of the big side at a time with one small row's values broadcast ({@link NestedLoopJoinNode}).
 * INNER joins with either side small, LEFT joins with a small right side.
 */
public final class SpillwayNestedLoopJoin extends Join implements SpillwayRel {
  private final boolean smallLeft;

  SpillwayNestedLoopJoin(RelOptCluster cluster, RelTraitSet traits, RelNode left, RelNode right, RexNode condition,
      JoinRelType joinType, boolean smallLeft) {
    super(cluster, SpillwayRel.unordered(traits), List.of(), left, right, condition, Set.of(), joinType);
    this.smallLeft = smallLeft;
  }

  @Override public SpillwayNestedLoopJoin copy(RelTraitSet traitSet, RexNode condition, RelNode left, RelNode right,
      JoinRelType joinType, boolean semiJoinDone) {
    return new SpillwayNestedLoopJoin(getCluster(), traitSet, left, right, condition, joinType, smallLeft);
  }

  /** Every pair is tested, but vectorized: a share of Calcite's cost of the pairs. */
  @Override public RelOptCost computeSelfCost(RelOptPlanner planner, RelMetadataQuery mq) {
    double pairs = SpillwayNestedLoopJoinRule.rows(mq, getLeft()) * SpillwayNestedLoopJoinRule.rows(mq, getRight());
    double rows = SpillwayNestedLoopJoinRule.rows(mq, this);
    return planner.getCostFactory().makeCost(rows, pairs, 0).multiplyBy(SpillwayRel.COST_FACTOR);
  }

  @Override public RelWriter explainTerms(RelWriter pw) {
    super.explainTerms(pw);
    if (pw.getDetailLevel() == SqlExplainLevel.DIGEST_ATTRIBUTES) {
      return pw;
    }
    return pw.item("device", "cpu").item("algorithm", "nested-loop").item("smallSide", smallLeft ? "left" : "right")
        .itemIf("smallRowFirst", "narrows the left side", narrowsBigSide());
  }

  /**
   * Whether the small side is a single row that runs first and narrows the big side with the condition (the engine's
   * {@link NestedLoopJoinNode}): an INNER join whose small right side has at most one row (a scalar subquery's).
   */
  boolean narrowsBigSide() {
    Double most = getCluster().getMetadataQuery().getMaxRowCount(getRight());
    return joinType == JoinRelType.INNER && !smallLeft && most != null && most <= 1;
  }

  @Override public void implement(Implementor implementor) {
    Implementor left = implementor.child(getLeft());
    Implementor right = implementor.child(getRight());
    Expr predicate;
    try {
      predicate = SpillwayRexTranslator.translate(condition, SpillwayFields.of(this).orElseThrow());
    } catch (SpillwayUnsupportedException e) {
      throw new IllegalStateException("join condition passed planning but cannot be translated: " + e.getMessage(), e);
    }
    implementor.source(new NestedLoopJoinNode(left.node(), right.node(), predicate,
        RelOptUtil.InputFinder.bits(condition).toArray(), joinType == JoinRelType.LEFT, smallLeft), left, right);
  }
}
