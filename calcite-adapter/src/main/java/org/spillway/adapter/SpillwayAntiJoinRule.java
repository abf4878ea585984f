package org.spillway.adapter;

import org.apache.calcite.plan.RelOptRuleCall;
import org.apache.calcite.plan.RelOptUtil;
import org.apache.calcite.plan.RelRule;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.plan.hep.HepRelVertex;
import org.apache.calcite.plan.volcano.RelSubset;
import org.apache.calcite.rel.core.Aggregate;
import org.apache.calcite.rel.core.JoinRelType;
import org.apache.calcite.rel.core.Project;
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
 * what Calcite makes of NOT IN over a NOT NULL column and of the NOT EXISTS that {@link SpillwayExistsJoinRule}
 * leaves. A RIGHT join is handled as its mirror. (NOT IN over a nullable column becomes
 * a different plan, with counts of NULLs, and is not touched: a NULL there must empty the result.) The right
 * input keeps only the columns the condition reads; the left rows come out with NULLs for the right columns.
 */
final class SpillwayAntiJoinRule extends RelRule<SpillwayRuleConfig> {
  /** The rule's instance. */
  static final SpillwayAntiJoinRule INSTANCE = (SpillwayAntiJoinRule) SpillwayRuleConfig.of("SpillwayAntiJoinRule",
      b0 -> b0.operand(LogicalFilter.class).oneInput(b1 -> b1.operand(LogicalJoin.class)
          .predicate(j -> (j.getJoinType() == JoinRelType.LEFT || j.getJoinType() == JoinRelType.RIGHT)
              && j.getVariablesSet().isEmpty()).anyInputs()),
      SpillwayAntiJoinRule::new).toRule();

  private SpillwayAntiJoinRule(SpillwayRuleConfig config) {
    super(config);
  }

  @Override public void onMatch(RelOptRuleCall call) {
    LogicalFilter filter = call.rel(0);
    LogicalJoin join = call.rel(1);
    // A RIGHT join is the mirror of a LEFT one: its right input is the preserved one.
    boolean mirrored = join.getJoinType() == JoinRelType.RIGHT;
    RelNode kept = mirrored ? join.getRight() : join.getLeft();
    RelNode other = mirrored ? join.getLeft() : join.getRight();
    int leftCount = join.getLeft().getRowType().getFieldCount();
    int keptOffset = mirrored ? leftCount : 0;
    int otherOffset = mirrored ? 0 : leftCount;
    int keptCount = kept.getRowType().getFieldCount();
    List<RelDataTypeField> otherFields = other.getRowType().getFieldList();
    List<RexNode> rest = new ArrayList<>();
    boolean unmatchedTest = false;
    for (RexNode conjunct : RelOptUtil.conjunctions(filter.getCondition())) {
      if (!unmatchedTest && conjunct.getKind() == SqlKind.IS_NULL
          && ((RexCall) conjunct).getOperands().get(0) instanceof RexInputRef ref && isOther(ref.getIndex(),
              otherOffset, otherFields.size())
          && !otherFields.get(ref.getIndex() - otherOffset).getType().isNullable()) {
        unmatchedTest = true;
      } else if (RelOptUtil.InputFinder.bits(conjunct).asList().stream()
          .allMatch(i -> i >= keptOffset && i < keptOffset + keptCount)) {
        rest.add(conjunct);
      } else {
        return;  // a test of the (NULL) columns of unmatched rows: leave it to Calcite
      }
    }
    if (!unmatchedTest) {
      return;
    }
    RelBuilder builder = call.builder();
    RexBuilder rex = filter.getCluster().getRexBuilder();
    // The other input narrowed to the columns the condition reads, the condition renumbered to match.
    List<Integer> otherUsed = new ArrayList<>();
    for (int i : RelOptUtil.InputFinder.bits(join.getCondition())) {
      if (isOther(i, otherOffset, otherFields.size())) {
        otherUsed.add(i - otherOffset);
      }
    }
    if (otherUsed.isEmpty()) {
      return;
    }
    Mapping mapping = Mappings.create(MappingType.INVERSE_SURJECTION, keptCount + otherFields.size(),
        keptCount + otherUsed.size());
    for (int i = 0; i < keptCount; i++) {
      mapping.set(keptOffset + i, i);
    }
    for (int k = 0; k < otherUsed.size(); k++) {
      mapping.set(otherOffset + otherUsed.get(k), keptCount + k);
    }
    RelNode source = other;
    List<Integer> columns = otherUsed;
    // Seen through a projection of bare columns (NOT EXISTS projects TRUE beside the DISTINCT's keys).
    RelNode node = unwrap(other);
    List<Integer> through = otherUsed;
    if (node instanceof Project project && otherUsed.stream().allMatch(c -> project.getProjects().get(c)
        instanceof RexInputRef)) {
      through = otherUsed.stream().map(c -> ((RexInputRef) project.getProjects().get(c)).getIndex()).toList();
      node = unwrap(project.getInput());
    }
    Aggregate distinct = distinct(node);
    if (distinct != null) {
      source = distinct.getInput();
      columns = through.stream().map(c -> distinct.getGroupSet().nth(c)).toList();
    }
    RelNode narrowOther = builder.push(source).project(builder.fields(columns)).build();
    RexNode condition = join.getCondition().accept(new RexPermuteInputsShuttle(mapping, kept, narrowOther));
    builder.push(kept).push(narrowOther).join(JoinRelType.ANTI, condition);
    if (!rest.isEmpty()) {
      builder.filter(rest.stream().map(r -> r.accept(new RexPermuteInputsShuttle(mapping, kept, narrowOther)))
          .toList());
    }
    List<RelDataTypeField> outFields = filter.getRowType().getFieldList();
    List<RexNode> outputs = new ArrayList<>();
    for (int i = 0; i < outFields.size(); i++) {
      boolean fromKept = i >= keptOffset && i < keptOffset + keptCount;
      outputs.add(fromKept ? builder.field(i - keptOffset) : rex.makeNullLiteral(outFields.get(i).getType()));
    }
    builder.project(outputs, filter.getRowType().getFieldNames(), true);
    call.transformTo(builder.build());
  }

  private static boolean isOther(int index, int otherOffset, int otherCount) {
    return index >= otherOffset && index < otherOffset + otherCount;
  }

  /**
   * The DISTINCT (an aggregate that only groups) that {@code input} is, else null: an anti-join asks only whether a
   * matching row exists, so it reads the DISTINCT's input instead of removing duplicates first (which aggregates a
   * whole fact table for NOT EXISTS in TPC-H Q22).
   */
  private static Aggregate distinct(RelNode node) {
    return node instanceof Aggregate aggregate && aggregate.getAggCallList().isEmpty()
        && aggregate.getGroupType() == Aggregate.Group.SIMPLE ? aggregate : null;
  }

  /** The node behind a planner's placeholder (a Hep vertex, or the Volcano subset's first member). */
  private static RelNode unwrap(RelNode input) {
    if (input instanceof HepRelVertex vertex) {
      return vertex.getCurrentRel();
    }
    if (input instanceof RelSubset subset && subset.getOriginal() != null) {
      return subset.getOriginal();
    }
    return input;
  }
}
