package org.spillway.adapter;

import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.core.Join;
import org.apache.calcite.rel.core.Sort;
import org.spillway.gpu.plan.PlannedOperator;

/**
 * What the planner tells a runtime node for its report (EXPLAIN ANALYZE): a label, the id of the physical node it
 * implements (its line in EXPLAIN) and the time the cost model predicted, where it predicted one: a pipeline
 * over a scan has the prediction of the backend chosen for it ({@link SpillwayBackend}), a join that of the
 * algorithm chosen for it ({@link SpillwayJoinChoice}).
 */
final class SpillwayOperators {
  private SpillwayOperators() {}

  /**
   * A pipeline whose outermost node is {@code top}, over {@code scan} (null where it reads another node's output),
   * through the probes of {@code probes} hash joins.
   */
  static PlannedOperator pipeline(RelNode top, SpillwayTableScan scan, int probes) {
    String over = scan == null ? "an intermediate result" : scan.spillwayTable().stored().name();
    String label = probes == 0 ? "pipeline over " + over
        : "pipeline probing " + probes + (probes == 1 ? " join" : " joins") + " over " + over;
    SpillwayCostModel.Estimate costing = scan == null ? null : SpillwayBackend.of(scan).costing();
    double predicted = costing == null ? Double.NaN
        : SpillwayBackend.of(scan).gpu() ? costing.gpu().millis() : costing.cpuMillis();
    return new PlannedOperator(label, top.getId(), predicted);
  }

  /** A node of its own that {@code rel} implements (a join, a sort). */
  static PlannedOperator of(RelNode rel) {
    double predicted = rel instanceof SpillwayJoin join ? join.choice().chosen().seconds() * 1e3 : Double.NaN;
    return new PlannedOperator(label(rel), rel.getId(), predicted);
  }

  /** The other uses of a subtree that one described as {@code first} runs for all of them. */
  static PlannedOperator reused(PlannedOperator first) {
    return new PlannedOperator(first.label() + ", reused", first.planId(), Double.NaN);
  }

  private static String label(RelNode rel) {
    if (rel instanceof SpillwayMarkJoin markJoin) {
      return markJoin.label();
    }
    if (rel instanceof Join join) {
      return (rel instanceof SpillwayNestedLoopJoin ? "nested-loop " : "") + join.getJoinType().lowerName
          + " join on " + join.getCondition();
    }
    if (rel instanceof Sort sort) {
      return "sort " + sort.getCollation() + (sort.offset == null ? "" : " offset " + sort.offset)
          + (sort.fetch == null ? "" : " fetch " + sort.fetch);
    }
    return rel.getRelTypeName();
  }
}
