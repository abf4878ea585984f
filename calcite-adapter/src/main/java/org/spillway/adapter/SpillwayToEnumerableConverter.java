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
import org.spillway.gpu.exec.GpuColumnarPipeline;

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

  @Override public RelWriter explainTerms(RelWriter pw) {
    super.explainTerms(pw);
    if (pw.getDetailLevel() == SqlExplainLevel.DIGEST_ATTRIBUTES) {
      return pw;
    }
    SpillwayFields.scanOf(getInput()).ifPresent(scan -> {
      List<String> reasons = SpillwayFallbacks.of(getCluster().getPlanner(), scan);
      pw.itemIf("fallback", String.join("; ", reasons), !reasons.isEmpty());
    });
    // Decided here, before the nodes below are explained, so that they show the device chosen for all.
    SpillwayBackend backend = backend(pipelineOf(implementSubtree()));
    pw.itemIf("cpuBecause", backend == null ? "" : backend.reason(), backend != null && backend.reason() != null);
    return pw;
  }

  /** What the Spillway subtree below asks of the runtime: table, columns, stages. */
  private SpillwayRel.Implementor implementSubtree() {
    SpillwayRel.Implementor spillway = new SpillwayRel.Implementor();
    spillway.visitChild(getInput());
    return spillway;
  }

  /** The fused pipeline of the subtree, or null for a bare scan (which reads rows without a pipeline). */
  private static GpuColumnarPipeline pipelineOf(SpillwayRel.Implementor spillway) {
    if (spillway.stages().isEmpty()) {
      return null;
    }
    List<SpillwayField> scanFields = SpillwayFields.ofScan(spillway.spillwayTable(), spillway.fields());
    return new GpuColumnarPipeline(scanFields.stream().map(SpillwayField::type).toList(), spillway.stages());
  }

  /** The backend of the pipeline (recorded for the nodes below), or null without a pipeline or scan. */
  private SpillwayBackend backend(GpuColumnarPipeline pipeline) {
    if (pipeline == null) {
      return null;
    }
    return SpillwayFields.scanOf(getInput()).map(scan -> SpillwayBackend.choose(getInput(), scan, pipeline))
        .orElse(null);
  }

  @Override public Result implement(EnumerableRelImplementor implementor, Prefer pref) {
    SpillwayRel.Implementor spillway = implementSubtree();
    PhysType physType = PhysTypeImpl.of(implementor.getTypeFactory(), getRowType(),
        pref.preferArray());
    boolean scalar = physType.getFormat() == JavaRowFormat.SCALAR;
    BlockBuilder block = new BlockBuilder();
    Expression rows;
    if (spillway.stages().isEmpty()) {
      // A bare scan needs no vectors: rows are read straight from the Arrow batches.
      Expression table = requireNonNull(
          spillway.table().getExpression(SpillwayTable.class), "table expression");
      rows = block.append("rows", Expressions.call(table, SpillwayMethod.QUERY.method,
          implementor.getRootExpression(), Expressions.constant(spillway.fields()),
          Expressions.constant(scalar)));
    } else {
      GpuColumnarPipeline pipeline = pipelineOf(spillway);
      List<SpillwayField> output = SpillwayFields.of(getInput()).orElseThrow();
      SpillwayQueryPlan plan = new SpillwayQueryPlan(spillway.spillwayTable(), spillway.fields(), pipeline,
          backend(pipeline), output);
      rows = block.append("rows", Expressions.call(implementor.stash(plan, SpillwayQueryPlan.class),
          SpillwayMethod.EXECUTE.method, implementor.getRootExpression(), Expressions.constant(scalar)));
    }
    block.add(Expressions.return_(null, rows));
    return implementor.result(physType, block.toBlock());
  }
}
