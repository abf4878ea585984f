package org.spillway.adapter;

import org.apache.calcite.plan.RelOptRuleCall;
import org.apache.calcite.plan.RelRule;
import org.apache.calcite.rel.core.JoinInfo;
import org.apache.calcite.rel.core.JoinRelType;
import org.apache.calcite.rel.logical.LogicalJoin;
import org.apache.calcite.rel.metadata.RelMetadataQuery;
import org.apache.calcite.rel.rules.SubstitutionRule;
import org.apache.calcite.rex.RexBuilder;
import org.apache.calcite.tools.RelBuilder;
import org.apache.calcite.util.ImmutableBitSet;

/**
 * Rewrites a SEMI join whose condition goes beyond key equality, where the right input's join keys are unique,
 * into an INNER join on the keys, a filter of the rest of the condition (the residual) and a projection of the
 * left input's columns (the ones a SEMI join returns):
 *
 * <pre>Semi(L, R, keys AND residual)  =  Project(L's columns, Filter(residual, Inner(L, R, keys)))</pre>
 *
 * <p>Exact where no two rows of R share key values: a row of L then meets at most one row of R with its keys (a NULL
 * key meets none), so the inner join returns it at most once, and the filter keeps it exactly when the residual is
 * TRUE for that pair, which is when the semi join returns it.
 *
 * <p>Why: a GPU pipeline probes an inner join on unique build keys and filters over the build columns after it,
 * but evaluates no residual inside a semi join's probe; TPC-H Q17's semi join (lineitem against the per-part
 * average over the parts it selects, unique on p_partkey) kept its lineitem pipeline on the CPU for that alone. The
 * CPU probe runs either form.
 *
 * <p>A substitution rule that prunes the semi join it rewrites: Calcite costs a semi join as nearly free
 * ({@code Join#computeSelfCost}), so beside the inner join it would always be chosen; and Calcite's
 * JOIN_ON_UNIQUE_TO_SEMI_JOIN turns the projected inner join back into a semi join, which this rule meets first
 * (the planner fires substitution rules before the others) and rewrites into the same nodes again.
 *
 * <p>An ANTI join is left alone. Its counterpart, a LEFT join on the keys filtered by "no match, or the residual not
 * TRUE", evaluates the residual over the NULL-padded right columns of unmatched rows, while the residual's
 * expressions carry the NOT NULL types Calcite derived from the anti join's inputs: each would have to be typed
 * again, and no TPC-H query has such an anti join (Q21's builds on lineitem, whose l_orderkey repeats).
 */
final class SpillwayUniqueSemiJoinRule extends RelRule<SpillwayRuleConfig> implements SubstitutionRule {
  /** The rule's instance. */
  static final SpillwayUniqueSemiJoinRule INSTANCE = (SpillwayUniqueSemiJoinRule) SpillwayRuleConfig.of(
      "SpillwayUniqueSemiJoinRule",
      b -> b.operand(LogicalJoin.class).predicate(j -> j.getJoinType() == JoinRelType.SEMI
          && j.getVariablesSet().isEmpty()).anyInputs(),
      SpillwayUniqueSemiJoinRule::new).toRule();

  private SpillwayUniqueSemiJoinRule(SpillwayRuleConfig config) {
    super(config);
  }

  @Override public boolean autoPruneOld() {
    return true;
  }

  @Override public void onMatch(RelOptRuleCall call) {
    LogicalJoin join = call.rel(0);
    JoinInfo info = join.analyzeCondition();
    if (info.isEqui() || info.leftKeys.isEmpty() || !rightKeysUnique(join, info, call.getMetadataQuery())) {
      return;
    }
    RexBuilder rex = join.getCluster().getRexBuilder();
    RelBuilder builder = call.builder();
    builder.push(join.getLeft()).push(join.getRight())
        .join(JoinRelType.INNER, info.getEquiCondition(join.getLeft(), join.getRight(), rex))
        .filter(info.getRemaining(rex));
    // the left input's columns, under their names: the semi join's row type
    builder.project(builder.fields(ImmutableBitSet.range(join.getLeft().getRowType().getFieldCount())),
        join.getRowType().getFieldNames(), true);
    call.transformTo(builder.build());
  }

  /**
   * Whether no two rows of the right input share values of the join keys, as metadata proves it (catalog keys
   * through {@link SpillwayColumnUniqueness}, group keys, joins on unique keys). Rows with a NULL key are ignored
   * where every key is compared by equality (they match nothing), not where one is compared by IS NOT DISTINCT
   * FROM.
   */
  private static boolean rightKeysUnique(LogicalJoin join, JoinInfo info, RelMetadataQuery mq) {
    boolean nullsMatchNothing = !info.nullExclusionFlags.contains(false);
    Boolean unique = mq.areColumnsUnique(join.getRight(), ImmutableBitSet.of(info.rightKeys), nullsMatchNothing);
    return Boolean.TRUE.equals(unique);
  }
}
