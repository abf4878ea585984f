package org.spillway.adapter;

import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.core.Aggregate;
import org.apache.calcite.rex.RexInputRef;
import org.apache.calcite.rex.RexNode;
import org.spillway.gpu.pipeline.PipelineStage;
import org.spillway.storage.ColumnStatistics;

/**
 * Whether a field of a Spillway subtree reaches its pipeline's top in the order of a sorted table column: it is a
 * plain scan column whose statistics say the table holds it non-decreasing, passed up through operators that keep
 * the scan's row order inside its pipeline only (filters, projections that pass it unchanged, and CPU hash-join
 * probes that output in probe order with the field on the probe side). What makes an aggregate over it run as
 * sorted runs ({@link SpillwayAggregate}); the engine checks the order again as it runs.
 */
final class SpillwaySortedInput {
  private SpillwaySortedInput() {}

  /** Whether {@code aggregate} groups by one integral key that arrives in sorted order. */
  static boolean sortedRuns(Aggregate aggregate) {
    if (aggregate.getGroupType() != Aggregate.Group.SIMPLE || aggregate.getGroupCount() != 1) {
      return false;
    }
    int key = aggregate.getGroupSet().nth(0);
    SpillwayField field = SpillwayExplain.inputFields(aggregate).get(key);
    return field.isSupported() && PipelineStage.Aggregate.sortedRunsKey(field.type())
        && sorted(aggregate.getInput(), key);
  }

  /** Whether field {@code field} of {@code rel} comes, in pipeline order, from a sorted column of the scan below. */
  static boolean sorted(RelNode rel, int field) {
    RelNode node = rel.stripped();
    while (true) {
      if (node instanceof SpillwayTableScan scan) {
        ColumnStatistics stats = scan.spillwayTable().stored().statistics().column(scan.fields()[field]);
        return stats.sorted();
      } else if (node instanceof SpillwayFilter filter) {
        node = filter.getInput().stripped();
      } else if (node instanceof SpillwayProject project) {
        RexNode e = project.getProjects().get(field);
        if (!(e instanceof RexInputRef ref)) {
          return false;
        }
        field = ref.getIndex();
        node = project.getInput().stripped();
      } else if (node instanceof SpillwayJoin join) {
        int leftFields = join.getLeft().getRowType().getFieldCount();
        int ordered = join.orderedInput();
        if (ordered == 0 && field < leftFields) {
          node = join.getLeft().stripped();
        } else if (ordered == 1 && field >= leftFields) {
          field -= leftFields;
          node = join.getRight().stripped();
        } else {
          return false;
        }
      } else {
        return false;  // a breaker (aggregate, sort, another join algorithm) or a source in no known order
      }
    }
  }
}
