package org.spillway.adapter;

import org.apache.calcite.plan.RelOptRuleCall;
import org.apache.calcite.plan.RelOptUtil;
import org.apache.calcite.plan.RelRule;
import org.apache.calcite.plan.Strong;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.core.Filter;
import org.apache.calcite.rel.core.Join;
import org.apache.calcite.rel.core.JoinRelType;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rel.type.RelDataTypeFactory;
import org.apache.calcite.rex.RexCall;
import org.apache.calcite.rex.RexInputRef;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.rex.RexShuttle;
import org.apache.calcite.tools.RelBuilder;

import com.google.common.collect.ImmutableList;

import java.util.List;

/**
 * Outer-join simplification (Galindo-Legaria and Rosenthal, "Outerjoin simplification and reordering for query
 * optimization"): a filter that rejects the NULL-padded rows of an outer join's inner side (TPC-H-style
 * {@code EXTRACT(YEAR FROM l.d) IS NOT NULL} over {@code s LEFT JOIN l}) makes the join an inner (or one-sided)
 * join. The filter's expressions are typed anew over the join's new row: its columns of the formerly padded side
 * are no longer nullable, and so are the calls over them that are NULL only on a NULL operand.
 *
 * <p>Why: Calcite's FilterIntoJoinRule makes the same change but keeps the old, nullable types of the calls it
 * pushes into the input, whose operands are now NOT NULL; simplifying such a call fails the simplifier's
 * consistency check ({@code RexSimplify.validateStrongPolicy}). Run before it, this rule leaves it nothing to
 * change. A projection casts the row back to the filter's type, which planners require of a rewrite.
 */
final class SpillwayOuterJoinSimplifyRule extends RelRule<SpillwayRuleConfig> {
  /** The rule's instance. */
  static final SpillwayOuterJoinSimplifyRule INSTANCE = (SpillwayOuterJoinSimplifyRule) SpillwayRuleConfig.of(
      "SpillwayOuterJoinSimplifyRule",
      b0 -> b0.operand(Filter.class).oneInput(b1 -> b1.operand(Join.class)
          .predicate(j -> j.getJoinType().generatesNullsOnLeft() || j.getJoinType().generatesNullsOnRight())
          .anyInputs()),
      SpillwayOuterJoinSimplifyRule::new).toRule();

  private SpillwayOuterJoinSimplifyRule(SpillwayRuleConfig config) {
    super(config);
  }

  @Override public void onMatch(RelOptRuleCall call) {
    Filter filter = call.rel(0);
    Join join = call.rel(1);
    JoinRelType type = RelOptUtil.simplifyJoin(join,
        ImmutableList.copyOf(RelOptUtil.conjunctions(filter.getCondition())), join.getJoinType());
    if (type == join.getJoinType()) {
      return;
    }
    Join simpler = join.copy(join.getTraitSet(), join.getCondition(), join.getLeft(), join.getRight(), type,
        join.isSemiJoinDone());
    RexNode condition = filter.getCondition().accept(new Retype(simpler.getRowType(),
        filter.getCluster().getTypeFactory()));
    RelBuilder builder = call.builder();
    builder.push(simpler).filter(filter.getVariablesSet(), condition).convert(filter.getRowType(), false);
    call.transformTo(builder.build());
  }

  /** Gives the input references their types in the new row, and NULL-only-on-NULL calls their nullability. */
  private static final class Retype extends RexShuttle {
    private final RelDataType row;
    private final RelDataTypeFactory types;

    Retype(RelDataType row, RelDataTypeFactory types) {
      this.row = row;
      this.types = types;
    }

    @Override public RexNode visitInputRef(RexInputRef ref) {
      return new RexInputRef(ref.getIndex(), row.getFieldList().get(ref.getIndex()).getType());
    }

    @Override public RexNode visitCall(RexCall call) {
      boolean[] changed = {false};
      List<RexNode> operands = visitList(call.getOperands(), changed);
      RelDataType type = call.getType();
      if (Strong.policy(call) == Strong.Policy.ANY) {
        boolean nullable = operands.stream().anyMatch(o -> o.getType().isNullable());
        type = types.createTypeWithNullability(type, nullable);
      }
      return changed[0] || !type.equals(call.getType()) ? call.clone(type, operands) : call;
    }
  }
}
