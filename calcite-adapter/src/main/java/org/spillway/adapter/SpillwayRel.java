package org.spillway.adapter;

import org.apache.calcite.plan.Convention;
import org.apache.calcite.plan.RelOptTable;
import org.apache.calcite.rel.RelNode;
import org.spillway.gpu.exec.PipelineStage;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/** Relational expression that Spillway executes over columnar Arrow data. */
public interface SpillwayRel extends RelNode {
  /** Calling convention of the Spillway physical nodes. */
  Convention CONVENTION = new Convention.Impl("SPILLWAY", SpillwayRel.class);

  /**
   * Share of Calcite's default cost that a Spillway filter, project or aggregate costs: they run fused and
   * vectorized, so the planner should prefer them to the row-at-a-time enumerable operators.
   */
  double COST_FACTOR = 0.1;

  /** Adds this node's part of the columnar plan to the implementor. */
  void implement(Implementor implementor);

  /** Collects what a Spillway subtree asks of the runtime: the table, the columns it reads, the stages. */
  final class Implementor {
    RelOptTable table;
    SpillwayTable spillwayTable;
    int[] fields;
    private final List<PipelineStage> stages = new ArrayList<>();

    /** Visits a child node so that it contributes its part first. */
    public void visitChild(RelNode input) {
      ((SpillwayRel) input).implement(this);
    }

    /** Appends a stage of the fused pipeline (children add theirs first). */
    public void addStage(PipelineStage stage) {
      stages.add(stage);
    }

    /** The planner's handle of the scanned table (it knows the expression that reaches it at run time). */
    public RelOptTable table() {
      return table;
    }

    /** The Spillway table the subtree scans. */
    public SpillwayTable spillwayTable() {
      return spillwayTable;
    }

    /** The table columns the subtree reads, in output order. */
    public int[] fields() {
      return Arrays.copyOf(fields, fields.length);
    }

    /** The stages above the scan, bottom first. */
    public List<PipelineStage> stages() {
      return List.copyOf(stages);
    }
  }
}
