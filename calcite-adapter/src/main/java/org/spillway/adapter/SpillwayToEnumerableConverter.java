package org.spillway.adapter;

import org.apache.calcite.adapter.enumerable.EnumerableRel;
import org.apache.calcite.adapter.enumerable.EnumerableRelImplementor;
import org.apache.calcite.adapter.enumerable.JavaRowFormat;
import org.apache.calcite.adapter.enumerable.PhysType;
import org.apache.calcite.adapter.enumerable.PhysTypeImpl;
import org.apache.calcite.linq4j.tree.BlockBuilder;
import org.apache.calcite.linq4j.tree.Expression;
import org.apache.calcite.linq4j.tree.Expressions;
import org.apache.calcite.plan.ConventionTraitDef;
import org.apache.calcite.plan.RelOptCluster;
import org.apache.calcite.plan.RelOptCost;
import org.apache.calcite.plan.RelOptPlanner;
import org.apache.calcite.plan.RelTraitSet;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.convert.ConverterImpl;
import org.apache.calcite.rel.metadata.RelMetadataQuery;

import java.util.List;

import static java.util.Objects.requireNonNull;

/** Relational expression that runs a Spillway subtree and hands its rows to Calcite's enumerable convention. */
public final class SpillwayToEnumerableConverter extends ConverterImpl implements EnumerableRel {
  SpillwayToEnumerableConverter(RelOptCluster cluster, RelTraitSet traits, RelNode input) {
    super(cluster, ConventionTraitDef.INSTANCE, traits, input);
  }

  @Override public RelNode copy(RelTraitSet traitSet, List<RelNode> inputs) {
    return new SpillwayToEnumerableConverter(getCluster(), traitSet, sole(inputs));
  }

  @Override public RelOptCost computeSelfCost(RelOptPlanner planner, RelMetadataQuery mq) {
    // Cheap, so that the planner prefers to keep work in the Spillway convention below it.
    return requireNonNull(super.computeSelfCost(planner, mq)).multiplyBy(.1);
  }

  @Override public Result implement(EnumerableRelImplementor implementor, Prefer pref) {
    SpillwayRel.Implementor spillway = new SpillwayRel.Implementor();
    spillway.visitChild(getInput());
    PhysType physType = PhysTypeImpl.of(implementor.getTypeFactory(), getRowType(),
        pref.preferArray());
    BlockBuilder block = new BlockBuilder();
    Expression table = requireNonNull(
        spillway.table().getExpression(SpillwayTable.class), "table expression");
    Expression rows = block.append("rows", Expressions.call(table, SpillwayMethod.QUERY.method,
        implementor.getRootExpression(),
        Expressions.constant(spillway.fields()),
        Expressions.constant(physType.getFormat() == JavaRowFormat.SCALAR)));
    block.add(Expressions.return_(null, rows));
    return implementor.result(physType, block.toBlock());
  }
}
