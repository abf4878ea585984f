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
import org.apache.calcite.rel.RelWriter;
import org.apache.calcite.rel.metadata.RelMetadataQuery;
import org.apache.calcite.sql.SqlExplainLevel;

import java.util.List;
import java.util.stream.Collectors;

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

  @Override public RelWriter explainTerms(RelWriter pw) {
    super.explainTerms(pw);
    if (pw.getDetailLevel() == SqlExplainLevel.DIGEST_ATTRIBUTES) {
      return pw;
    }
    List<String> fallbacks = SpillwayFallbacks.of(getCluster().getPlanner(), SpillwayFields.scansOf(getInput()));
    pw.itemIf("fallback", String.join("; ", fallbacks), !fallbacks.isEmpty());
    // Decided here, before the nodes below are explained, so that they show the devices chosen.
    List<SpillwayRel.Implementor.CpuReason> reasons = SpillwayRel.Implementor.of(getInput()).cpuReasons();
    String because = reasons.size() == 1 ? reasons.get(0).reason()
        : reasons.stream().map(Object::toString).collect(Collectors.joining("; "));
    pw.itemIf("cpuBecause", because, !reasons.isEmpty());
    return pw;
  }

  @Override public Result implement(EnumerableRelImplementor implementor, Prefer pref) {
    SpillwayRel.Implementor spillway = SpillwayRel.Implementor.of(getInput());
    PhysType physType = PhysTypeImpl.of(implementor.getTypeFactory(), getRowType(),
        pref.preferArray());
    boolean scalar = physType.getFormat() == JavaRowFormat.SCALAR;
    BlockBuilder block = new BlockBuilder();
    Expression rows;
    SpillwayTableScan bareScan = spillway.bareScan();
    if (bareScan != null) {
      // A bare scan needs no vectors: rows are read straight from the Arrow batches.
      // the table object itself: a file that read_parquet made a table has no expression in the schema
      Expression table = implementor.stash(requireNonNull(bareScan.getTable().unwrap(SpillwayTable.class),
          "Spillway table"), SpillwayTable.class);
      rows = block.append("rows", Expressions.call(table, SpillwayMethod.QUERY.method,
          implementor.getRootExpression(), Expressions.constant(bareScan.fields()),
          Expressions.constant(scalar)));
    } else {
      List<SpillwayField> output = SpillwayFields.of(getInput()).orElseThrow();
      SpillwayQueryPlan plan = new SpillwayQueryPlan(spillway.node(), output, spillway.planned());
      rows = block.append("rows", Expressions.call(implementor.stash(plan, SpillwayQueryPlan.class),
          SpillwayMethod.EXECUTE.method, implementor.getRootExpression(), Expressions.constant(scalar)));
    }
    block.add(Expressions.return_(null, rows));
    return implementor.result(physType, block.toBlock());
  }
}
