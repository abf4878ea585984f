package org.spillway.gpu.plan;

import org.spillway.gpu.vector.ExprType;

import java.util.List;

/** A bare scan feeding a join: nothing runs; the join reads the columns it needs from the Arrow batches. */
public final class ScanNode implements PlanNode {
  private final ScanTable table;
  private final int[] fields;
  private final List<ExprType> types;

  public ScanNode(ScanTable table, int[] fields, List<ExprType> types) {
    this.table = table;
    this.fields = fields.clone();
    this.types = List.copyOf(types);
  }

  @Override public List<ExprType> types() {
    return types;
  }

  @Override public NodeOutput run(RunContext context) {
    return new ArrowScanOutput(table, fields, types);
  }

  @Override public boolean cpuOnly() {
    return true;
  }
}
