package org.spillway.adapter;

import org.apache.calcite.plan.Convention;
import org.apache.calcite.plan.RelOptTable;
import org.apache.calcite.rel.RelNode;

import java.util.Arrays;

/** Relational expression that Spillway executes over columnar Arrow data. */
public interface SpillwayRel extends RelNode {
  /** Calling convention of the Spillway physical nodes. */
  Convention CONVENTION = new Convention.Impl("SPILLWAY", SpillwayRel.class);

  /** Adds this node's part of the columnar plan to the implementor. */
  void implement(Implementor implementor);

  /** Collects what a Spillway subtree asks of the runtime: the table and the columns it reads. */
  final class Implementor {
    RelOptTable table;
    SpillwayTable spillwayTable;
    int[] fields;

    /** Visits a child node so that it contributes its part first. */
    public void visitChild(RelNode input) {
      ((SpillwayRel) input).implement(this);
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
  }
}
