package org.spillway.adapter;

import org.apache.calcite.plan.RelOptCluster;
import org.apache.calcite.plan.RelOptCost;
import org.apache.calcite.plan.RelOptPlanner;
import org.apache.calcite.plan.RelOptTable;
import org.apache.calcite.plan.RelTraitSet;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.RelWriter;
import org.apache.calcite.rel.core.TableScan;
import org.apache.calcite.rel.metadata.RelMetadataQuery;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rel.type.RelDataTypeFactory;
import org.apache.calcite.rel.type.RelDataTypeField;
import org.apache.calcite.rel.rules.CoreRules;

import java.util.Arrays;
import java.util.List;

import static java.util.Objects.requireNonNull;

/** Relational expression representing a scan of a Spillway table, reading only the columns it needs. */
public final class SpillwayTableScan extends TableScan implements SpillwayRel {
  private final SpillwayTable spillwayTable;
  private final int[] fields;
  /**
   * The backend of the pipeline over this scan, chosen once when the plan is implemented (the choice depends on the
   * whole pipeline above the scan); null until then, when EXPLAIN shows the CPU backend.
   */
  private volatile SpillwayBackend backend;

  SpillwayTableScan(RelOptCluster cluster, RelOptTable table, SpillwayTable spillwayTable, int[] fields) {
    super(cluster, SpillwayRel.unordered(cluster.traitSet()), List.of(), table);
    this.spillwayTable = requireNonNull(spillwayTable, "spillwayTable");
    this.fields = fields.clone();
  }

  @Override public RelNode copy(RelTraitSet traitSet, List<RelNode> inputs) {
    return this;
  }

  /** Returns a scan of the same table that reads the given columns of this scan's output. */
  SpillwayTableScan project(int[] outputFields) {
    int[] tableFields = new int[outputFields.length];
    for (int i = 0; i < outputFields.length; i++) {
      tableFields[i] = fields[outputFields[i]];
    }
    return new SpillwayTableScan(getCluster(), table, spillwayTable, tableFields);
  }

  /** The Spillway table this scan reads. */
  SpillwayTable spillwayTable() {
    return spillwayTable;
  }

  /** The backend chosen for the pipeline over this scan; the CPU backend until the plan was implemented. */
  SpillwayBackend backend() {
    SpillwayBackend chosen = backend;
    return chosen != null ? chosen : SpillwayBackend.of(null);
  }

  void backend(SpillwayBackend chosen) {
    this.backend = chosen;
  }

  /** The table columns this scan reads, in output order. */
  int[] fields() {
    return fields.clone();
  }

  @Override public RelWriter explainTerms(RelWriter pw) {
    double rows = spillwayTable.stored().rowCount();
    return SpillwayExplain.describe(super.explainTerms(pw).item("fields", Arrays.toString(fields)), this,
        "morsel-scan", "chunk-stream", rows, SpillwayFields.ofScan(spillwayTable, fields));
  }

  @Override public RelDataType deriveRowType() {
    List<RelDataTypeField> all = table.getRowType().getFieldList();
    RelDataTypeFactory.Builder builder = getCluster().getTypeFactory().builder();
    for (int field : fields) {
      builder.add(all.get(field));
    }
    return builder.build();
  }

  @Override public void register(RelOptPlanner planner) {
    for (var rule : SpillwayRules.RULES) {
      planner.addRule(rule);
    }
    // Without this rule Calcite keeps whole rows flowing into a project; with it, columns are pruned early.
    planner.addRule(CoreRules.PROJECT_REMOVE);
  }

  @Override public RelOptCost computeSelfCost(RelOptPlanner planner, RelMetadataQuery mq) {
    // Cost proportional to the share of columns read, so that narrower scans win (bytes are the main cost).
    double share = (fields.length + 2D) / (table.getRowType().getFieldCount() + 2D);
    return requireNonNull(super.computeSelfCost(planner, mq)).multiplyBy(share);
  }

  @Override public void implement(Implementor implementor) {
    implementor.scan(this);
  }
}
