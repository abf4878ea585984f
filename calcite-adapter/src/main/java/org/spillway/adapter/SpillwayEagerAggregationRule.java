package org.spillway.adapter;

import org.apache.calcite.plan.RelOptRuleCall;
import org.apache.calcite.plan.RelOptUtil;
import org.apache.calcite.plan.RelRule;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.core.Aggregate;
import org.apache.calcite.rel.core.AggregateCall;
import org.apache.calcite.rel.core.Join;
import org.apache.calcite.rel.core.JoinInfo;
import org.apache.calcite.rel.core.JoinRelType;
import org.apache.calcite.rel.core.Project;
import org.apache.calcite.rel.logical.LogicalAggregate;
import org.apache.calcite.rel.logical.LogicalJoin;
import org.apache.calcite.rel.logical.LogicalProject;
import org.apache.calcite.rel.metadata.RelMetadataQuery;
import org.apache.calcite.rex.RexBuilder;
import org.apache.calcite.rex.RexInputRef;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.rex.RexUtil;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.fun.SqlStdOperatorTable;
import org.apache.calcite.tools.RelBuilder;
import org.apache.calcite.util.ImmutableBitSet;
import org.checkerframework.checker.nullness.qual.Nullable;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.UnaryOperator;

/**
 * Eager aggregation below a join on a unique key (Yan and Larson, "Eager Aggregation and Lazy Aggregation",
 * VLDB 1995: the eager group-by where the other side needs no aggregate). TPC-H Q10 groups the revenue of
 * lineitem and orders by seven customer and nation columns, five of them text; every row of the join of
 * customer and nation has its own {@code c_custkey}, so the revenue can be summed per {@code o_custkey}
 * (one long) before the join, and only those sums meet customer and nation. The rule rewrites
 *
 * <pre>Aggregate(group {gA, gS, k}, calls over A, [Project(] Join(A, S) on A.k = S.k [)])</pre>
 *
 * <p>into
 *
 * <pre>Project(Join(Aggregate(group {gA, A.k}, calls, A), S) on A.k = S.k)</pre>
 *
 * <p>when {@code S.k} is unique in S (catalog keys through {@link SpillwayColumnUniqueness}) and the join
 * key is a group key. Then every row of A meets at most one row of S, so each group sees the same rows of A
 * in both plans (whatever the aggregate function: DISTINCT, AVG, FILTER alike), and the group keys from S
 * are fixed by the key, so each group of the original is one group of A's: the top needs no aggregate. Rows
 * of A with a NULL key or without a partner form groups that the join then drops, as it dropped their rows.
 *
 * <p>It applies to equi-joins (a residual condition could drop some of a group's rows), to deterministic group
 * keys that each read one side, and to calls that read only A. And only where it pays: aggregating before the
 * join sees every row of A, so the join must keep at least {@link #KEPT_SHARE} of them (by the estimates);
 * below a selective join (TPC-H Q3: orders of one market segment) the aggregate would grow, not shrink.
 *
 * <p>An outer join that preserves S (TPC-H Q13: {@code customer LEFT JOIN orders}, orders counted per customer)
 * takes the same rewrite with the join kept outer (Galindo-Legaria and Joshi, "Orthogonal Optimization of
 * Subqueries and Aggregation", SIGMOD 2001: a group-by below the null-producing side of an outer join): a row of
 * S without a partner was the one row of its group, with every field of A NULL, and is now its one row with the
 * calls' fields NULL. So each call must give NULL over that row as over no rows, or be made to: its arguments
 * must be fields of A, with no FILTER and not {@code COUNT(*)}; COUNT and {@code $SUM0} count such a row 0 and
 * get it back from NULL above the join. S's key must be the group key (A's is NULL in that row), and unique with
 * its NULLs too: rows of S with a NULL key formed one group, not one each.
 */
final class SpillwayEagerAggregationRule extends RelRule<SpillwayRuleConfig> {
  /** The join must keep at least this share of the aggregated side's estimated rows. */
  static final double KEPT_SHARE = 0.5;

  /** Aggregate functions that skip NULL arguments, so that one row of them counts as no rows. */
  private static final Set<SqlKind> NULL_IGNORING = EnumSet.of(SqlKind.COUNT, SqlKind.SUM, SqlKind.SUM0,
      SqlKind.MIN, SqlKind.MAX, SqlKind.AVG);

  /** The rule for an aggregate over a projection of a join (the usual shape: the projection computes arguments). */
  static final SpillwayEagerAggregationRule OVER_PROJECT = (SpillwayEagerAggregationRule) SpillwayRuleConfig.of(
      "SpillwayEagerAggregationRule:project",
      b -> b.operand(LogicalAggregate.class).predicate(SpillwayEagerAggregationRule::grouped)
          .oneInput(p -> p.operand(LogicalProject.class).oneInput(j -> j.operand(LogicalJoin.class)
              .predicate(SpillwayEagerAggregationRule::equiJoin).anyInputs())),
      SpillwayEagerAggregationRule::new).toRule();

  /** The rule for an aggregate right over a join. */
  static final SpillwayEagerAggregationRule OVER_JOIN = (SpillwayEagerAggregationRule) SpillwayRuleConfig.of(
      "SpillwayEagerAggregationRule:join",
      b -> b.operand(LogicalAggregate.class).predicate(SpillwayEagerAggregationRule::grouped)
          .oneInput(j -> j.operand(LogicalJoin.class).predicate(SpillwayEagerAggregationRule::equiJoin)
              .anyInputs()),
      SpillwayEagerAggregationRule::new).toRule();

  /**
   * The rule for an aggregate over a projection of a left-deep pair of joins {@code Join(Join(S, B), C)} whose
   * upper condition does not read S: it regroups them as {@code Join(S, Join(B, C))} (the same row), so that S
   * is one side (TPC-H Q10 when the join order puts customer and nation first, then orders, then lineitem).
   */
  static final SpillwayEagerAggregationRule OVER_PROJECT_LEFT_DEEP = (SpillwayEagerAggregationRule)
      SpillwayRuleConfig.of("SpillwayEagerAggregationRule:project-left-deep",
          b -> b.operand(LogicalAggregate.class).predicate(SpillwayEagerAggregationRule::grouped)
              .oneInput(p -> p.operand(LogicalProject.class).oneInput(j -> j.operand(LogicalJoin.class)
                  .predicate(SpillwayEagerAggregationRule::innerEquiJoin)
                  .inputs(l -> l.operand(LogicalJoin.class).predicate(SpillwayEagerAggregationRule::innerEquiJoin)
                      .anyInputs()))),
          SpillwayEagerAggregationRule::new).toRule();

  private SpillwayEagerAggregationRule(SpillwayRuleConfig config) {
    super(config);
  }

  private static boolean grouped(Aggregate aggregate) {
    return aggregate.getGroupType() == Aggregate.Group.SIMPLE && !aggregate.getGroupSet().isEmpty();
  }

  /** An inner join on key equalities only, each rejecting NULLs (no IS NOT DISTINCT FROM). */
  private static boolean innerEquiJoin(Join join) {
    return join.getJoinType() == JoinRelType.INNER && equiJoin(join);
  }

  /** An inner, left or right join on key equalities only, each rejecting NULLs. */
  private static boolean equiJoin(Join join) {
    JoinRelType type = join.getJoinType();
    if (type != JoinRelType.INNER && type != JoinRelType.LEFT && type != JoinRelType.RIGHT
        || !join.getVariablesSet().isEmpty()) {
      return false;
    }
    JoinInfo info = join.analyzeCondition();
    return info.isEqui() && !info.leftKeys.isEmpty() && !info.nullExclusionFlags.contains(false);
  }

  @Override public void onMatch(RelOptRuleCall call) {
    Aggregate aggregate = call.rel(0);
    @Nullable Project project = call.rel(1) instanceof Project p ? p : null;
    Join join = call.rel(project != null ? 2 : 1);
    if (call.rels.length > (project != null ? 3 : 2)) {
      join = regrouped(join, call.rel(call.rels.length - 1));
      if (join == null) {
        return;
      }
    }
    List<RexNode> fields = project != null ? project.getProjects()
        : join.getCluster().getRexBuilder().identityProjects(join.getRowType());
    for (RexNode field : fields) {
      if (!RexUtil.isDeterministic(field)) {
        return;
      }
    }
    // S on the right first: the usual shape of a foreign-key join (facts on the left, the dimension built).
    RelNode rewritten = rewrite(call, aggregate, fields, join, 1);
    if (rewritten == null) {
      rewritten = rewrite(call, aggregate, fields, join, 0);
    }
    if (rewritten != null) {
      call.transformTo(rewritten);
      // Where it applies it pays (see above), whatever the planner's rough aggregate costs say.
      call.getPlanner().prune(aggregate);
    }
  }

  /**
   * The rewrite with join input {@code uniqueSide} as S, or null where it does not apply. {@code fields} are
   * the aggregate's input fields as expressions over the join's row.
   */
  private static @Nullable RelNode rewrite(RelOptRuleCall call, Aggregate aggregate, List<RexNode> fields,
      Join join, int uniqueSide) {
    JoinInfo info = join.analyzeCondition();
    int leftCount = join.getLeft().getRowType().getFieldCount();
    int joinCount = join.getRowType().getFieldCount();
    boolean outer = join.getJoinType() != JoinRelType.INNER;
    if (outer && uniqueSide != (join.getJoinType() == JoinRelType.LEFT ? 0 : 1)) {
      return null;  // S must be the preserved side
    }
    RelNode aggregated = join.getInput(1 - uniqueSide);
    RelNode unique = join.getInput(uniqueSide);
    List<Integer> aggregatedKeys = uniqueSide == 1 ? info.leftKeys : info.rightKeys;
    List<Integer> uniqueKeys = uniqueSide == 1 ? info.rightKeys : info.leftKeys;
    // The aggregated side's fields within the join's row, and the shift that takes them to its own.
    int aggregatedStart = uniqueSide == 1 ? 0 : leftCount;
    int aggregatedEnd = uniqueSide == 1 ? leftCount : joinCount;
    ImmutableBitSet aggregatedFields = ImmutableBitSet.range(aggregatedStart, aggregatedEnd);
    ImmutableBitSet uniqueFields = ImmutableBitSet.range(0, joinCount).except(aggregatedFields);

    // Every join key is a group key (from either side; S's under an outer join), so the key fixes each group's
    // row of S.
    for (int i = 0; i < aggregatedKeys.size(); i++) {
      int aggregatedKey = aggregatedStart + aggregatedKeys.get(i);
      int uniqueKey = (uniqueSide == 1 ? leftCount : 0) + uniqueKeys.get(i);
      boolean grouped = false;
      for (int group : aggregate.getGroupSet()) {
        grouped |= !outer && isRef(fields.get(group), aggregatedKey) || isRef(fields.get(group), uniqueKey);
      }
      if (!grouped) {
        return null;
      }
    }
    // Group keys read one side each (under an outer join a group key of A is one of its fields, so that it keeps
    // its type); calls read only the aggregated side.
    for (int group : aggregate.getGroupSet()) {
      ImmutableBitSet used = RelOptUtil.InputFinder.bits(fields.get(group));
      if (!aggregatedFields.contains(used) && !uniqueFields.contains(used)
          || outer && !uniqueFields.contains(used) && !(fields.get(group) instanceof RexInputRef)) {
        return null;
      }
    }
    for (AggregateCall aggCall : aggregate.getAggCallList()) {
      if (!aggCall.rexList.isEmpty() || aggCall.distinctKeys != null
          || !aggCall.getCollation().getFieldCollations().isEmpty()) {
        return null;
      }
      List<Integer> read = new ArrayList<>(aggCall.getArgList());
      if (aggCall.filterArg >= 0) {
        read.add(aggCall.filterArg);
      }
      for (int field : read) {
        if (!aggregatedFields.contains(RelOptUtil.InputFinder.bits(fields.get(field)))) {
          return null;
        }
      }
      if (outer && !nullOverUnmatchedRow(aggCall, fields)) {
        return null;
      }
    }
    RelMetadataQuery mq = call.getMetadataQuery();
    Boolean keyUnique = mq.areColumnsUnique(unique, ImmutableBitSet.of(uniqueKeys), !outer);
    if (keyUnique == null || !keyUnique) {
      return null;
    }
    Double aggregatedRows = mq.getRowCount(aggregated);
    Double joinRows = mq.getRowCount(join);
    if (aggregatedRows == null || joinRows == null || joinRows < KEPT_SHARE * aggregatedRows) {
      return null;
    }
    return build(call.builder(), aggregate, fields, join, uniqueSide, aggregatedKeys, uniqueKeys, aggregatedFields);
  }

  /**
   * Whether a call over the one row of an unmatched S (A's fields NULL) gives what it gives over no rows, NULL or
   * (COUNT, {@code $SUM0}) 0: it ignores NULL arguments, and each of its arguments is a field of A, so NULL there
   * (an expression need not be: {@code COALESCE}; and a field keeps its type in A's own row).
   */
  private static boolean nullOverUnmatchedRow(AggregateCall aggCall, List<RexNode> fields) {
    if (!NULL_IGNORING.contains(aggCall.getAggregation().getKind()) || aggCall.getArgList().isEmpty()
        || aggCall.filterArg >= 0) {
      return false;
    }
    for (int arg : aggCall.getArgList()) {
      if (!(fields.get(arg) instanceof RexInputRef)) {
        return false;
      }
    }
    return true;
  }

  /** Over no rows COUNT and {@code $SUM0} give 0, the others NULL. */
  private static boolean zeroOverNoRows(AggregateCall aggCall) {
    return aggCall.getAggregation().getKind() == SqlKind.COUNT || aggCall.getAggregation().getKind() == SqlKind.SUM0;
  }

  private static RelNode build(RelBuilder builder, Aggregate aggregate, List<RexNode> fields, Join join,
      int uniqueSide, List<Integer> aggregatedKeys, List<Integer> uniqueKeys, ImmutableBitSet aggregatedFields) {
    RexBuilder rex = join.getCluster().getRexBuilder();
    RelNode aggregated = join.getInput(1 - uniqueSide);
    RelNode unique = join.getInput(uniqueSide);
    int shift = -aggregatedFields.nth(0);  // join row to the aggregated side's row
    // A field of A typed as A's own row types it (an outer join's row makes it nullable)
    UnaryOperator<RexNode> toAggregated = field -> field instanceof RexInputRef ref
        ? RexInputRef.of(ref.getIndex() + shift, aggregated.getRowType()) : RexUtil.shift(field, shift);

    // The aggregated side's projection: its group keys, its join keys, the calls' arguments (each once).
    Map<RexNode, Integer> projected = new LinkedHashMap<>();
    List<Integer> groupPositions = new ArrayList<>();
    for (int group : aggregate.getGroupSet()) {
      if (aggregatedFields.contains(RelOptUtil.InputFinder.bits(fields.get(group)))) {
        groupPositions.add(position(projected, toAggregated.apply(fields.get(group))));
      }
    }
    List<Integer> keyPositions = new ArrayList<>();
    for (int key : aggregatedKeys) {
      int position = position(projected, RexInputRef.of(key, aggregated.getRowType()));
      keyPositions.add(position);
      groupPositions.add(position);
    }
    ImmutableBitSet groupSet = ImmutableBitSet.of(groupPositions);
    List<RexNode> argumentFields = new ArrayList<>();
    for (AggregateCall aggCall : aggregate.getAggCallList()) {
      for (int arg : aggCall.getArgList()) {
        argumentFields.add(fields.get(arg));
      }
      if (aggCall.filterArg >= 0) {
        argumentFields.add(fields.get(aggCall.filterArg));
      }
    }
    for (RexNode argument : argumentFields) {
      position(projected, toAggregated.apply(argument));
    }
    RelNode input = builder.push(aggregated).project(List.copyOf(projected.keySet())).build();
    List<AggregateCall> calls = new ArrayList<>();
    for (AggregateCall aggCall : aggregate.getAggCallList()) {
      List<Integer> args = new ArrayList<>();
      for (int arg : aggCall.getArgList()) {
        args.add(projected.get(toAggregated.apply(fields.get(arg))));
      }
      int filter = aggCall.filterArg < 0 ? -1 : projected.get(toAggregated.apply(fields.get(aggCall.filterArg)));
      calls.add(join.getJoinType() == JoinRelType.INNER
          ? aggCall.adaptTo(input, args, filter, aggregate.getGroupCount(), groupSet.cardinality())
          // over A alone, without the padded rows: its type as A's fields give it (MAX of a NOT NULL field)
          : AggregateCall.create(aggCall.getParserPosition(), aggCall.getAggregation(), aggCall.isDistinct(),
              aggCall.isApproximate(), aggCall.ignoreNulls(), aggCall.rexList, args, filter, aggCall.distinctKeys,
              aggCall.collation, groupSet.cardinality(), input, null, aggCall.name));
    }
    Aggregate eager = aggregate.copy(aggregate.getTraitSet(), input, groupSet, null, calls);

    // The join of the groups with S, on the same keys, in the same orientation.
    RelNode left = uniqueSide == 1 ? eager : unique;
    RelNode right = uniqueSide == 1 ? unique : eager;
    int newLeftCount = left.getRowType().getFieldCount();
    List<RexNode> equalities = new ArrayList<>();
    for (int i = 0; i < aggregatedKeys.size(); i++) {
      int eagerKey = groupSet.indexOf(keyPositions.get(i));
      int leftKey = uniqueSide == 1 ? eagerKey : uniqueKeys.get(i);
      int rightKey = uniqueSide == 1 ? uniqueKeys.get(i) : eagerKey;
      equalities.add(rex.makeCall(SqlStdOperatorTable.EQUALS,
          RexInputRef.of(leftKey, left.getRowType()),
          new RexInputRef(newLeftCount + rightKey, right.getRowType().getFieldList().get(rightKey).getType())));
    }
    Join joined = join.copy(join.getTraitSet(), RexUtil.composeConjunction(rex, equalities), left, right,
        join.getJoinType(), join.isSemiJoinDone());

    // The aggregate's row again: group keys from the groups or from S, then the calls.
    int eagerStart = uniqueSide == 1 ? 0 : newLeftCount;
    int uniqueShift = uniqueSide == 1 ? eager.getRowType().getFieldCount() - aggregatedFields.cardinality() : 0;
    List<RexNode> top = new ArrayList<>();
    for (int group : aggregate.getGroupSet()) {
      RexNode field = fields.get(group);
      if (aggregatedFields.contains(RelOptUtil.InputFinder.bits(field))) {
        int eagerField = groupSet.indexOf(projected.get(toAggregated.apply(field)));
        top.add(RexInputRef.of(eagerStart + eagerField, joined.getRowType()));
      } else {
        top.add(RexUtil.shift(field, uniqueShift));
      }
    }
    for (int i = 0; i < calls.size(); i++) {
      RexNode value = RexInputRef.of(eagerStart + groupSet.cardinality() + i, joined.getRowType());
      if (join.getJoinType() != JoinRelType.INNER && zeroOverNoRows(calls.get(i))) {
        // an unmatched row of S gets NULL from the join where its group counted 0
        value = rex.makeNotNull(rex.makeCall(SqlStdOperatorTable.CASE, rex.makeCall(SqlStdOperatorTable.IS_NULL,
            value), rex.makeZeroLiteral(calls.get(i).getType()), value));
      }
      top.add(value);
    }
    return builder.push(joined).project(top, aggregate.getRowType().getFieldNames(), true)
        .convert(aggregate.getRowType(), false).build();
  }

  /**
   * {@code Join(S, Join(B, C))} for {@code upper = Join(lower, C)} with {@code lower = Join(S, B)}, or null when
   * the upper condition reads S. The fields keep their order (S, B, C), so the lower condition stays as it is
   * and the upper one moves left by S's fields.
   */
  private static @Nullable Join regrouped(Join upper, Join lower) {
    int sFields = lower.getLeft().getRowType().getFieldCount();
    if (RelOptUtil.InputFinder.bits(upper.getCondition()).asList().stream().anyMatch(f -> f < sFields)) {
      return null;
    }
    Join inner = upper.copy(upper.getTraitSet(), RexUtil.shift(upper.getCondition(), -sFields), lower.getRight(),
        upper.getRight(), JoinRelType.INNER, false);
    return lower.copy(lower.getTraitSet(), lower.getCondition(), lower.getLeft(), inner, JoinRelType.INNER, false);
  }

  private static boolean isRef(RexNode node, int field) {
    return node instanceof RexInputRef ref && ref.getIndex() == field;
  }

  /** The position of {@code node} in the projection, added at the end when new. */
  private static int position(Map<RexNode, Integer> projected, RexNode node) {
    return projected.computeIfAbsent(node, n -> projected.size());
  }
}
