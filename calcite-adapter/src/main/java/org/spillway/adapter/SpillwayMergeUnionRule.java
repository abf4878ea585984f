package org.spillway.adapter;

import org.apache.calcite.adapter.enumerable.EnumerableMergeUnionRule;
import org.apache.calcite.plan.RelOptRuleCall;
import org.apache.calcite.rel.core.Sort;
import org.apache.calcite.rel.core.Union;

/**
 * Calcite's {@link EnumerableMergeUnionRule} (a sorted UNION as a merge of sorted inputs), except where a LIMIT
 * sits above a distinct UNION. Calcite's rule pushes the fetch into every input, which is right for UNION ALL
 * but not for UNION: an input's first n rows may hold fewer than n distinct values, and the merge then
 * de-duplicates them into fewer rows than the LIMIT asks for (e.g. line numbers 1, 1, 1, 1, 1 give one row
 * where five were asked for). There the plan sorts the de-duplicated union and limits it instead.
 */
final class SpillwayMergeUnionRule extends EnumerableMergeUnionRule {
  /** The rule's instance, in place of {@code EnumerableRules.ENUMERABLE_MERGE_UNION_RULE}. */
  static final SpillwayMergeUnionRule INSTANCE = new SpillwayMergeUnionRule(Config.DEFAULT_CONFIG
      .withDescription("SpillwayMergeUnionRule").as(Config.class));

  private SpillwayMergeUnionRule(Config config) {
    super(config);
  }

  @Override public boolean matches(RelOptRuleCall call) {
    Sort sort = call.rel(0);
    Union union = call.rel(1);
    return (union.all || sort.fetch == null) && super.matches(call);
  }
}
