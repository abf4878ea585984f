package org.spillway.adapter;

import org.apache.calcite.plan.Convention;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.convert.ConverterRule;
import org.apache.calcite.rel.core.Join;
import org.apache.calcite.rel.core.JoinRelType;
import org.apache.calcite.rel.logical.LogicalJoin;
import org.apache.calcite.rel.metadata.RelMetadataQuery;

import java.util.List;
import java.util.Optional;

/**
 * Rule that turns a {@link LogicalJoin} without an equi-key into a {@link SpillwayNestedLoopJoin} when one side
 * is small by the row-count estimate; a join that is not small on either side stays Calcite's (EXPLAIN's
 * {@code fallback} says why).
 */
final class SpillwayNestedLoopJoinRule extends ConverterRule {
  /**
   * Most rows of the small side: each of its rows costs one pass of the condition over the big side, so the
   * pairs stay within a few thousand passes.
   */
  static final double SMALL_ROWS = 4096;

  /** The rule's instance. */
  static final ConverterRule INSTANCE = Config.INSTANCE
      .withConversion(LogicalJoin.class, Convention.NONE, SpillwayRel.CONVENTION, "SpillwayNestedLoopJoinRule")
      .withRuleFactory(SpillwayNestedLoopJoinRule::new)
      .toRule(SpillwayNestedLoopJoinRule.class);

  private SpillwayNestedLoopJoinRule(Config config) {
    super(config);
  }

  @Override public RelNode convert(RelNode rel) {
    LogicalJoin join = (LogicalJoin) rel;
    if (!join.analyzeCondition().leftKeys.isEmpty() || join.getCondition().isAlwaysTrue()) {
      return null;  // an equi-join is SpillwayJoin's; a cross product the planner will filter is no case yet
    }
    List<SpillwayField> left = SpillwayFields.of(join.getLeft()).orElse(null);
    List<SpillwayField> right = left == null ? null : SpillwayFields.of(join.getRight()).orElse(null);
    if (right == null) {
      return null;
    }
    Optional<Boolean> smallLeft = smallSide(join);
    if (smallLeft.isEmpty()) {
      if (join.getJoinType() == JoinRelType.INNER || join.getJoinType() == JoinRelType.LEFT) {
        SpillwayFallbacks.record(join, "nested-loop join: neither side is small enough (" + sides(join) + ")");
      }
      return null;
    }
    try {
      SpillwayRexTranslator.check(join.getCondition(), SpillwayFields.ofJoin(join, left, right));
    } catch (SpillwayUnsupportedException e) {
      SpillwayFallbacks.record(join, "nested-loop join condition: " + e.getMessage());
      return null;
    }
    return new SpillwayNestedLoopJoin(join.getCluster(), join.getTraitSet(), SpillwayRules.inSpillway(join.getLeft()),
        SpillwayRules.inSpillway(join.getRight()), join.getCondition(), join.getJoinType(), smallLeft.get());
  }

  /**
   * Whether a join without equi-keys can run as a nested loop, and then whether its small side is the left:
   * an uncorrelated INNER join with a side of at most {@link #SMALL_ROWS} estimated rows (the right preferred),
   * or a LEFT join with a small right side (the big left side's unmatched rows come out once, padded).
   */
  static Optional<Boolean> smallSide(Join join) {
    if (!join.getVariablesSet().isEmpty()) {
      return Optional.empty();
    }
    RelMetadataQuery mq = join.getCluster().getMetadataQuery();
    boolean rightSmall = rows(mq, join.getRight()) <= SMALL_ROWS;
    if (join.getJoinType() == JoinRelType.LEFT) {
      return rightSmall ? Optional.of(false) : Optional.empty();
    }
    if (join.getJoinType() != JoinRelType.INNER) {
      return Optional.empty();
    }
    if (rightSmall) {
      return Optional.of(false);
    }
    return rows(mq, join.getLeft()) <= SMALL_ROWS ? Optional.of(true) : Optional.empty();
  }

  private static String sides(Join join) {
    RelMetadataQuery mq = join.getCluster().getMetadataQuery();
    return String.format(java.util.Locale.ROOT, "%s join of %.0f and %.0f estimated rows, at most %.0f on one side",
        join.getJoinType().lowerName, rows(mq, join.getLeft()), rows(mq, join.getRight()), SMALL_ROWS);
  }

  static double rows(RelMetadataQuery mq, RelNode rel) {
    Double rows = mq.getRowCount(rel);
    return rows == null ? Double.MAX_VALUE : rows;
  }
}
