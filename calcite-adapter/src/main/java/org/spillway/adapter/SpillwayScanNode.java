package org.spillway.adapter;

import org.spillway.gpu.vector.ExprType;

import java.util.List;

/** A bare scan feeding a join: nothing runs; the join reads the columns it needs from the Arrow batches. */
final class SpillwayScanNode implements SpillwayNode {
  private final SpillwayTable table;
  private final int[] fields;
  private final List<ExprType> types;

  SpillwayScanNode(SpillwayTable table, int[] fields, List<ExprType> types) {
    this.table = table;
    this.fields = fields.clone();
    this.types = List.copyOf(types);
  }

  @Override public List<ExprType> types() {
    return types;
  }

  @Override public SpillwayColumns run(SpillwayRunContext context) {
    return new SpillwayArrowColumns(table.stored(), fields, types);
  }
}
