package org.spillway.gpu.plan;

/**
 * What the planner said about a runtime node, for its {@link OperatorReport}: its name in the plan, the id of the
 * planner's node it implements (by which the adapter puts the reports in the plan's order; -1 for none) and the
 * time the planner's cost model predicted for it (NaN where it made no prediction).
 */
public record PlannedOperator(String label, int planId, double predictedMillis) {
  public PlannedOperator {
    if (label == null || label.isBlank()) {
      throw new IllegalArgumentException("a planned operator needs a label");
    }
  }

  /** A node the planner named nothing: its class, no place in the plan, no prediction. */
  static PlannedOperator unnamed(PlanNode node) {
    return new PlannedOperator(node.getClass().getSimpleName(), -1, Double.NaN);
  }

  /** Whether the cost model predicted a time for the node. */
  public boolean predicted() {
    return !Double.isNaN(predictedMillis);
  }
}
