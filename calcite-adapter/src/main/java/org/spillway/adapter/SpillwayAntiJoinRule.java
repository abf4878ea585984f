package org.spillway.adapter;

import org.apache.calcite.plan.RelOptRuleCall;
import org.apache.calcite.plan.RelOptUtil;
import org.apache.calcite.plan.RelRule;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.core.JoinRelType;
import org.apache.calcite.rel.logical.LogicalFilter;
import org.apache.calcite.rel.logical.LogicalJoin;
import org.apache.calcite.rel.type.RelDataTypeField;
import org.apache.calcite.rex.RexBuilder;
import org.apache.calcite.rex.RexCall;
import org.apache.calcite.rex.RexInputRef;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.rex.RexPermuteInputsShuttle;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.tools.RelBuilder;
import org.apache.calcite.util.ImmutableBitSet;
import org.apache.calcite.util.mapping.Mapping;
import org.apache.calcite.util.mapping.MappingType;
import org.apache.calcite.util.mapping.Mappings;

import java.util.ArrayList;
import java.util.List;

/**
 * Rewrites {@code Filter(IS NULL(r)) over a LEFT join}, where {@code r} is a right column that no right row
 * holds NULL in, into an ANTI join: the filter keeps exactly the left rows that matched no right row, which is
 * what Calcite makes of NOT EXISTS and of NOT IN over a NOT NULL column. (NOT IN over a nullable column becomes
 * a different plan, with counts of NULLs, and is not touched: a NULL there must empty the result.) The right
 * input keeps only the columns the condition reads; the left rows come out with NULLs for the right columns.
 */
final class SpillwayAntiJoinRule extends RelRule<SpillwayRuleConfig> {
  /** The rule's instance. */
  static final SpillwayAntiJoinRule INSTANCE = (SpillwayAntiJoinRule) SpillwayRuleConfig.of("SpillwayAntiJoinRule",
      b0 -> b0.operand(LogicalFilter.class).oneInput(b1 -> b1.operand(LogicalJoin.class)
          .predicate(j -> j.getJoinType() == JoinRelType.LEFT && j.getVariablesSet().isEmpty()).anyInputs()),
      SpillwayAntiJoinRule::new).toRule();

  private SpillwayAntiJoinRule(SpillwayRuleConfig config) {
    super(config);
  }

  @Override public void onMatch(RelOptRuleCall call) {
    LogicalFilter filter = call.rel(0);
    LogicalJoin join = call.rel(1);
    int leftCount = join.getLeft().getRowType().getFieldCount();
    List<RelDataTypeField> rightFields = join.getRight().getRowType().getFieldList();
    List<RexNode> rest = new ArrayList<>();
    boolean unmatchedTest = false;
    for (RexNode conjunct : RelOptUtil.conjunctions(filter.getCondition())) {
      if (!unmatchedTest && conjunct.getKind() == SqlKind.IS_NULL
          && ((RexCall) conjunct).getOperands().get(0) instanceof RexInputRef ref && ref.getIndex() >= leftCount
          && !rightFields.get(ref.getIndex() - leftCount).getType().isNullable()) {
        unmatchedTest = true;
      } else if (RelOptUtil.InputFinder.bits(conjunct).asList().stream().allMatch(i -> i < leftCount)) {
        rest.add(conjunct);
      } else {
        return;  // a test of the (NULL) right columns of unmatched rows: leave it to Calcite
      }
    }
    if (!unmatchedTest) {
      return;
    }
    RelBuilder builder = call.builder();
    RexBuilder rex = filter.getCluster().getRexBuilder();
    // The right input narrowed to the columns the condition reads, the condition renumbered to match.
    ImmutableBitSet used = RelOptUtil.InputFinder.bits(join.getCondition());
    List<Integer> rightUsed = new ArrayList<>();
    for (int i : used) {
      if (i >= leftCount) {
        rightUsed.add(i - leftCount);
      }
    }
    Mapping mapping = Mappings.create(MappingType.INVERSE_SURJECTION, leftCount + rightFields.size(),
        leftCount + rightUsed.size());
    for (int i = 0; i < leftCount; i++) {
      mapping.set(i, i);
    }
    for (int k = 0; k < rightUsed.size(); k++) {
      mapping.set(leftCount + rightUsed.get(k), leftCount + k);
    }
    if (rightUsed.isEmpty()) {
      return;
    }
    RelNode narrowRight = builder.push(join.getRight()).project(builder.fields(rightUsed)).build();
    RexNode condition = join.getCondition().accept(new RexPermuteInputsShuttle(mapping, join.getLeft(), narrowRight));
    builder.push(join.getLeft()).push(narrowRight).join(JoinRelType.ANTI, condition);
    if (!rest.isEmpty()) {
      builder.filter(rest);
    }
    List<RexNode> outputs = new ArrayList<>(builder.fields());
    for (int i = leftCount; i < filter.getRowType().getFieldCount(); i++) {
      outputs.add(rex.makeNullLiteral(filter.getRowType().getFieldList().get(i).getType()));
    }
    builder.project(outputs, filter.getRowType().getFieldNames(), true);
    call.transformTo(builder.build());
  }
}
