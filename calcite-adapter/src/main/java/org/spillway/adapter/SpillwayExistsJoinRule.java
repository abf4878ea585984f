package org.spillway.adapter;

import org.apache.calcite.plan.RelOptRuleCall;
import org.apache.calcite.plan.RelOptUtil;
import org.apache.calcite.plan.RelRule;
import org.apache.calcite.plan.hep.HepRelVertex;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.core.CorrelationId;
import org.apache.calcite.rel.core.Filter;
import org.apache.calcite.rel.core.JoinInfo;
import org.apache.calcite.rel.core.JoinRelType;
import org.apache.calcite.rel.core.Project;
import org.apache.calcite.rel.logical.LogicalFilter;
import org.apache.calcite.rel.logical.LogicalJoin;
import org.apache.calcite.rel.type.RelDataTypeField;
import org.apache.calcite.rex.RexBuilder;
import org.apache.calcite.rex.RexCall;
import org.apache.calcite.rex.RexCorrelVariable;
import org.apache.calcite.rex.RexFieldAccess;
import org.apache.calcite.rex.RexInputRef;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.rex.RexShuttle;
import org.apache.calcite.rex.RexSubQuery;
import org.apache.calcite.rex.RexUtil;
import org.apache.calcite.sql.SqlKind;

import com.google.common.collect.ImmutableSet;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Rewrites a filter's correlated {@code EXISTS} / {@code NOT EXISTS} conjunct into a SEMI / ANTI join of the
 * filter's input with the sub-query's input, whose condition is the sub-query's correlated condition: the
 * equalities with outer columns become the join keys, the rest (TPC-H Q21's {@code l2.l_suppkey <> l1.l_suppkey})
 * the residual the join evaluates on each candidate pair. This is the classic unnesting of a correlated EXISTS
 * into a semi join (Kim; Neumann and Kemper, "Unnesting Arbitrary Queries", for the simple case), which DuckDB
 * plans for Q21 too.
 *
 * <p>Why: left to Calcite, such a sub-query becomes a correlate that the decorrelator turns into a value
 * generator (the DISTINCT outer values joined with the inner table, aggregated, and joined back), which computes
 * the outer query several times over. A semi or anti join is exact here: {@code EXISTS} holds iff some inner row
 * makes the condition TRUE, which is a semi join's match; {@code NOT EXISTS} has no NULL trap (unlike NOT IN): an
 * outer row whose key is NULL, or whose residual is UNKNOWN for every inner row, matches nothing and is kept.
 *
 * <p>Applies where the sub-query is projections over a filter whose condition alone refers to the outer row (by
 * this filter's correlation variable, through its fields), the filter's input is uncorrelated, and the
 * correlated condition has at least one equality of an outer and an inner column (a join key); other sub-queries
 * are left to Calcite. The rewritten conjuncts leave the filter; the rest stay below the joins.
 */
final class SpillwayExistsJoinRule extends RelRule<SpillwayRuleConfig> {
  /** The rule's instance. */
  static final SpillwayExistsJoinRule INSTANCE = (SpillwayExistsJoinRule) SpillwayRuleConfig.of(
      "SpillwayExistsJoinRule",
      b -> b.operand(LogicalFilter.class).predicate(f -> !f.getVariablesSet().isEmpty()
          && RexUtil.SubQueryFinder.find(f.getCondition()) != null).anyInputs(),
      SpillwayExistsJoinRule::new).toRule();

  private SpillwayExistsJoinRule(SpillwayRuleConfig config) {
    super(config);
  }

  @Override public void onMatch(RelOptRuleCall call) {
    LogicalFilter filter = call.rel(0);
    RelNode input = filter.getInput();
    List<RexNode> kept = new ArrayList<>();
    List<RelNode> rights = new ArrayList<>();
    List<RexNode> conditions = new ArrayList<>();
    List<JoinRelType> types = new ArrayList<>();
    for (RexNode conjunct : RelOptUtil.conjunctions(filter.getCondition())) {
      boolean negated = conjunct.getKind() == SqlKind.NOT;
      RexNode operand = negated ? ((RexCall) conjunct).getOperands().get(0) : conjunct;
      Unnested unnested = operand instanceof RexSubQuery subQuery && subQuery.getKind() == SqlKind.EXISTS
          ? unnest(filter, subQuery) : null;
      if (unnested == null) {
        kept.add(conjunct);
      } else {
        rights.add(unnested.right());
        conditions.add(unnested.condition());
        types.add(negated ? JoinRelType.ANTI : JoinRelType.SEMI);
      }
    }
    if (rights.isEmpty()) {
      return;
    }
    RexBuilder rex = filter.getCluster().getRexBuilder();
    // The other conjuncts (the outer query's own joins and filters, other sub-queries) stay below the semi and anti
    // joins, where the join-order phase still sees them; the filter keeps its correlation variable for them.
    RelNode result = kept.isEmpty() ? input : LogicalFilter.create(input, RexUtil.composeConjunction(rex, kept),
        ImmutableSet.copyOf(filter.getVariablesSet()));
    for (int i = 0; i < rights.size(); i++) {
      result = LogicalJoin.create(result, rights.get(i), List.of(), conditions.get(i), Set.of(), types.get(i));
    }
    call.transformTo(result);
  }

  /** An equality of an inner and an outer column written outer first, as joins state their keys (left = right). */
  private static RexNode outerFirst(RexBuilder rex, RexNode conjunct, int outerCount) {
    if (conjunct.getKind() == SqlKind.EQUALS && conjunct instanceof RexCall call
        && call.getOperands().get(0) instanceof RexInputRef inner && inner.getIndex() >= outerCount
        && call.getOperands().get(1) instanceof RexInputRef outer && outer.getIndex() < outerCount) {
      return rex.makeCall(call.getOperator(), outer, inner);
    }
    return conjunct;
  }

  /** The inner side and the join condition of one EXISTS sub-query, or null where the rule does not apply. */
  private static Unnested unnest(LogicalFilter outer, RexSubQuery subQuery) {
    RelNode node = unwrap(subQuery.rel);
    // EXISTS asks only whether a row exists: the projections above the correlated filter do not matter.
    while (node instanceof Project project) {
      if (!correlations(project).isEmpty()) {
        return null;
      }
      node = unwrap(project.getInput());
    }
    if (!(node instanceof Filter inner)) {
      return null;
    }
    Set<CorrelationId> outerIds = outer.getVariablesSet();
    RelNode innerInput = inner.getInput();
    if (!correlations(innerInput).isEmpty()) {
      return null;
    }
    int outerCount = outer.getInput().getRowType().getFieldCount();
    RexBuilder rex = outer.getCluster().getRexBuilder();
    List<RexNode> local = new ArrayList<>();
    List<RexNode> joinConjuncts = new ArrayList<>();
    for (RexNode conjunct : RelOptUtil.conjunctions(inner.getCondition())) {
      Set<CorrelationId> ids = correlations(conjunct);
      if (ids.isEmpty()) {
        local.add(conjunct);
        continue;
      }
      if (!outerIds.containsAll(ids) || RexUtil.SubQueryFinder.find(conjunct) != null) {
        return null;
      }
      OuterFieldsToInputs shuttle = new OuterFieldsToInputs(rex, outer.getInput(), outerCount);
      RexNode joined = conjunct.accept(shuttle);
      if (shuttle.failed) {
        return null;
      }
      joinConjuncts.add(outerFirst(rex, joined, outerCount));
    }
    if (joinConjuncts.isEmpty()) {
      return null;
    }
    RelNode right = local.isEmpty() ? innerInput
        : LogicalFilter.create(innerInput, RexUtil.composeConjunction(rex, local));
    RexNode condition = RexUtil.composeConjunction(rex, joinConjuncts);
    if (JoinInfo.of(outer.getInput(), right, condition).leftKeys.isEmpty()) {
      return null;  // no equality with an outer column: no hash join to run it
    }
    return new Unnested(right, condition);
  }

  /** The inner side of an unnested EXISTS and the condition joining it with the outer rows. */
  private record Unnested(RelNode right, RexNode condition) {}

  /**
   * Rewrites an inner condition into a join condition: the outer row's fields (through the correlation
   * variable) become the join's left columns, the inner columns shift behind them. Fails on a correlation
   * variable used whole, or a field that is not the outer input's.
   */
  private static final class OuterFieldsToInputs extends RexShuttle {
    private final RexBuilder rex;
    private final RelNode outerInput;
    private final int outerCount;
    boolean failed;

    OuterFieldsToInputs(RexBuilder rex, RelNode outerInput, int outerCount) {
      this.rex = rex;
      this.outerInput = outerInput;
      this.outerCount = outerCount;
    }

    @Override public RexNode visitFieldAccess(RexFieldAccess access) {
      if (access.getReferenceExpr() instanceof RexCorrelVariable variable) {
        // The field's index is into the outer input as it is now: trimming narrows that input and renumbers the
        // accesses, but leaves the variable's (wider) type; the field's name and type must agree.
        int index = access.getField().getIndex();
        if (index >= outerCount || !sameField(access, outerInput.getRowType().getFieldList().get(index))) {
          failed = true;
          return access;
        }
        return rex.makeInputRef(outerInput, index);
      }
      return super.visitFieldAccess(access);
    }

    @Override public RexNode visitCorrelVariable(RexCorrelVariable variable) {
      failed = true;
      return variable;
    }

    private static boolean sameField(RexFieldAccess access, RelDataTypeField field) {
      return access.getField().getName().equals(field.getName()) && access.getType().equals(field.getType());
    }

    @Override public RexNode visitInputRef(RexInputRef ref) {
      return new RexInputRef(ref.getIndex() + outerCount, ref.getType());
    }
  }

  /** The correlation variables an expression refers to, also inside its sub-queries. */
  private static Set<CorrelationId> correlations(RexNode node) {
    Set<CorrelationId> ids = new HashSet<>();
    node.accept(new CorrelationCollector(ids));
    return ids;
  }

  /** The correlation variables a tree refers to, in any node's expressions and sub-queries. */
  private static Set<CorrelationId> correlations(RelNode rel) {
    Set<CorrelationId> ids = new HashSet<>();
    collect(rel, ids);
    return ids;
  }

  private static void collect(RelNode rel, Set<CorrelationId> ids) {
    RelNode node = unwrap(rel);
    node.accept(new CorrelationCollector(ids));
    for (RelNode input : node.getInputs()) {
      collect(input, ids);
    }
  }

  /** Collects correlation variables, descending into sub-queries. */
  private static final class CorrelationCollector extends RexShuttle {
    private final Set<CorrelationId> ids;

    CorrelationCollector(Set<CorrelationId> ids) {
      this.ids = ids;
    }

    @Override public RexNode visitCorrelVariable(RexCorrelVariable variable) {
      ids.add(variable.id);
      return variable;
    }

    @Override public RexNode visitSubQuery(RexSubQuery subQuery) {
      collect(subQuery.rel, ids);
      return super.visitSubQuery(subQuery);
    }
  }

  /** The node behind a Hep planner's vertex. */
  private static RelNode unwrap(RelNode rel) {
    return rel instanceof HepRelVertex vertex ? vertex.getCurrentRel() : rel;
  }
}
