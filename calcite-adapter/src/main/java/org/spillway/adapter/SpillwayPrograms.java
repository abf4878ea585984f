package org.spillway.adapter;

import org.apache.calcite.adapter.enumerable.EnumerableRules;
import org.apache.calcite.plan.RelOptRule;
import org.apache.calcite.plan.RelOptRuleCall;
import org.apache.calcite.plan.RelOptUtil;
import org.apache.calcite.plan.hep.HepMatchOrder;
import org.apache.calcite.plan.hep.HepProgram;
import org.apache.calcite.plan.hep.HepProgramBuilder;
import org.apache.calcite.plan.RelRule;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.core.Aggregate;
import org.apache.calcite.rel.core.AggregateCall;
import org.apache.calcite.rel.core.Filter;
import org.apache.calcite.rel.core.Join;
import org.apache.calcite.rel.core.JoinRelType;
import org.apache.calcite.rel.logical.LogicalAggregate;
import org.apache.calcite.rel.logical.LogicalJoin;
import org.apache.calcite.rel.metadata.RelMetadataProvider;
import org.apache.calcite.rel.rules.AggregateExpandDistinctAggregatesRule;
import org.apache.calcite.rel.rules.CoreRules;
import org.apache.calcite.rel.rules.DateRangeRules;
import org.apache.calcite.rel.rules.JoinPushThroughJoinRule;
import org.apache.calcite.rel.rules.SemiJoinJoinTransposeRule;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.rex.RexUtil;
import org.apache.calcite.runtime.Hook;
import org.apache.calcite.tools.Program;
import org.apache.calcite.tools.Programs;
import org.apache.calcite.util.Holder;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;

/**
 * The optimizer program of Spillway connections: Calcite's standard sequence, except that joins are
 * ordered heuristically and conditions have their common factors pulled out of OR before planning.
 *
 * <p>Why: Calcite's default lets the Volcano planner enumerate join orders with JoinCommuteRule, which took
 * minutes for TPC-H Q7 (five joins); {@link Programs#heuristicJoinOrder} builds a MultiJoin and orders it
 * from row counts instead. And TPC-H Q19 states its join key inside each branch of an OR; without pulling it
 * out, the only plan is a nested-loop join.
 */
public final class SpillwayPrograms {
  /** Queries with at least this many joins get heuristic join ordering. */
  static final int HEURISTIC_JOIN_MIN = 2;

  private static boolean installed;

  private SpillwayPrograms() {}

  /** Makes {@link #standard()} the program of every statement prepared in this JVM (idempotent). */
  public static synchronized void install() {
    if (!installed) {
      Program program = standard();
      Hook.PROGRAM.add((Consumer<Holder<Program>>) holder -> holder.set(program));
      installed = true;
    }
  }

  /**
   * The program: checked integer arithmetic, correlated EXISTS as semi and anti joins
   * ({@link SpillwayExistsJoinRule}, before Calcite's sub-query removal would decorrelate them), sub-queries,
   * decorrelation, measures, factor pulling, trimming,
   * subquery reduction, Volcano, calc, then inner joins that can read a semi join's rows reading them
   * ({@link SpillwaySharedSemiJoins}), semi and anti joins building on another join's input of the same filtered rows
   * ({@link SpillwaySharedBuildRows}) and stacked mark joins fused ({@link SpillwayMarkJoins}); every phase estimates with {@link SpillwayRelMetadata#PROVIDER} (column statistics behind join
   * row counts).
   */
  public static Program standard() {
    RelMetadataProvider metadata = SpillwayRelMetadata.PROVIDER;
    Program volcano = (planner, rel, traits, materializations, lattices) ->
        heuristicJoinOrder(planner.getRules(), metadata).run(planner, rel, traits, materializations, lattices);
    Program pullFactors = Programs.hep(List.of(PULL_FACTORS), true, metadata);
    Program existsJoins = Programs.hep(List.of(SpillwayExistsJoinRule.INSTANCE), true, metadata);
    return Programs.sequence(SpillwayCheckedArithmetic.program(), existsJoins, Programs.subQuery(metadata),
        Programs.decorrelate(), Programs.measure(metadata), pullFactors, Programs.trim(),
        reduceSubqueries(metadata), Programs.trim(), volcano, Programs.calc(metadata), estimateWith(metadata),
        SpillwaySharedSemiJoins.program(), SpillwaySharedBuildRows.program(), SpillwayMarkJoins.program());
  }

  /**
   * Keeps decorrelated subqueries cheap. (Before Calcite's FILTER_INTO_JOIN, here and in the join-order phase, a
   * filter that rejects an outer join's padded rows makes it an inner join, {@link SpillwayOuterJoinSimplifyRule}.) A LEFT join's condition on its right input alone moves into that input
   * (the Spillway join cannot run it as a residual). Then, on a trial copy, conditions move into the joins so that
   * their key equalities are visible, and each aggregate joined on its group key is computed only over the keys
   * the other side keeps ({@link SpillwayMagicSetRule}); the trial is kept only where a reduction formed: elsewhere
   * the filters stay above the joins, where the join-order phase expands disjunctions over several tables.
   */
  static Program reduceSubqueries(RelMetadataProvider metadata) {
    Program pushJoinConditions = Programs.of(new HepProgramBuilder()
        .addRuleInstance(SpillwayOuterJoinSimplifyRule.INSTANCE)
        .addRuleInstance(CoreRules.JOIN_CONDITION_PUSH).build(), true, metadata);
    Program magicSets = Programs.of(new HepProgramBuilder()
        .addRuleCollection(List.of(SpillwayOuterJoinSimplifyRule.INSTANCE, CoreRules.FILTER_INTO_JOIN,
            CoreRules.JOIN_CONDITION_PUSH))
        .addRuleInstance(SpillwayMagicSetRule.INSTANCE)
        .addRuleCollection(List.of(CoreRules.SEMI_JOIN_PROJECT_TRANSPOSE, SEMI_JOIN_INNER_JOIN_TRANSPOSE))
        .build(), true, metadata);
    return (planner, rel, traits, materializations, lattices) -> {
      RelNode pushed = pushJoinConditions.run(planner, rel, traits, materializations, lattices);
      RelNode reduced = magicSets.run(planner, pushed, traits, materializations, lattices);
      return semiJoins(reduced) > semiJoins(pushed) ? reduced : pushed;
    };
  }

  /** The number of semi joins in the tree. */
  private static int semiJoins(RelNode rel) {
    int count = rel instanceof Join join && join.getJoinType() == JoinRelType.SEMI ? 1 : 0;
    for (RelNode input : rel.getInputs()) {
      count += semiJoins(input.stripped());
    }
    return count;
  }

  /**
   * Makes the plan's cluster estimate with {@code metadata} from here on: Calcite's Hep programs install their
   * provider but keep the cluster's cached metadata query when no rule fires, and the join and pipeline
   * choices (made when the plan is implemented or explained) read that query.
   */
  static Program estimateWith(RelMetadataProvider metadata) {
    return (planner, rel, traits, materializations, lattices) -> {
      rel.getCluster().setMetadataProvider(metadata);
      rel.getCluster().invalidateMetadataQuery();
      return rel;
    };
  }

  /**
   * {@link Programs#heuristicJoinOrder} (non-bushy) with the given metadata: Calcite's own plans the MultiJoin
   * phase with its default metadata, whose join row counts ignore column statistics. Eager aggregation
   * ({@link SpillwayEagerAggregationRule}) runs here too: it needs the joins in their final order (an aggregate
   * sits over the MultiJoin before), and the planner then costs the aggregate below and above the join.
   */
  static Program heuristicJoinOrder(Iterable<? extends RelOptRule> rules, RelMetadataProvider metadata) {
    return (planner, rel, traits, materializations, lattices) -> {
      List<RelOptRule> volcanoRules = new ArrayList<>();
      rules.forEach(volcanoRules::add);
      if (volcanoRules.remove(DateRangeRules.FILTER_INSTANCE)) {
        volcanoRules.add(SpillwayDateRangeRule.INSTANCE);
      }
      if (volcanoRules.remove(CoreRules.AGGREGATE_EXPAND_DISTINCT_AGGREGATES)) {
        volcanoRules.addAll(List.of(EXPAND_SINGLE_DISTINCT, EXPAND_OTHER_DISTINCT));
      }
      if (volcanoRules.remove(EnumerableRules.ENUMERABLE_MERGE_UNION_RULE)) {
        volcanoRules.add(SpillwayMergeUnionRule.INSTANCE);  // no LIMIT pushed below a distinct UNION
      }
      // Among the ordered joins: an aggregate over a join on a unique key may run below it (cost decides).
      volcanoRules.addAll(List.of(SpillwayEagerAggregationRule.OVER_PROJECT, SpillwayEagerAggregationRule.OVER_JOIN,
          SpillwayEagerAggregationRule.OVER_PROJECT_LEFT_DEEP));
      if (RelOptUtil.countJoins(rel) < HEURISTIC_JOIN_MIN) {
        // No Hep phase here installs the metadata (as the MultiJoin phase does below): a single join's eager
        // aggregation would see neither column statistics nor keys.
        return Programs.sequence(estimateWith(metadata), Programs.ofRules(volcanoRules))
            .run(planner, rel, traits, materializations, lattices);
      }
      // A disjunction over several tables (Q7's nation pairs, Q19's part/lineitem branches) first yields each
      // table's own disjunction, which FILTER_INTO_JOIN pushes onto that table: its join order then sees it.
      HepProgram toMultiJoin = new HepProgramBuilder()
          .addRuleInstance(CoreRules.EXPAND_FILTER_DISJUNCTION_GLOBAL)
          .addRuleInstance(SpillwayOuterJoinSimplifyRule.INSTANCE)
          .addRuleInstance(CoreRules.FILTER_INTO_JOIN)
          .addMatchOrder(HepMatchOrder.BOTTOM_UP)
          .addRuleInstance(CoreRules.JOIN_TO_MULTI_JOIN)
          .build();
      // Exhaustive reordering rules out; the MultiJoin is ordered from row counts instead.
      volcanoRules.removeAll(List.of(CoreRules.JOIN_COMMUTE, CoreRules.JOIN_ASSOCIATE, JoinPushThroughJoinRule.LEFT,
          JoinPushThroughJoinRule.RIGHT));
      volcanoRules.add(SpillwayJoinOrderRule.INSTANCE);
      return Programs.sequence(Programs.of(toMultiJoin, false, metadata), Programs.ofRules(volcanoRules))
          .run(planner, rel, traits, materializations, lattices);
    };
  }

  /**
   * Calcite's expansion of one DISTINCT aggregate beside plain ones into two plain aggregates (the first also
   * grouping by the argument), which Spillway runs; the default expansion uses grouping sets, which it does not.
   * It replaces the default for these aggregates, so that the planner explores one expansion, not two.
   */
  static final RelOptRule EXPAND_SINGLE_DISTINCT = CoreRules.AGGREGATE_EXPAND_DISTINCT_AGGREGATES_TO_JOIN.config
      .withOperandSupplier(b -> b.operand(LogicalAggregate.class).predicate(SpillwayPrograms::singleDistinct)
          .anyInputs())
      .withDescription("SpillwayExpandSingleDistinctRule")
      .as(AggregateExpandDistinctAggregatesRule.Config.class)
      .toRule();

  /** Calcite's default expansion of DISTINCT aggregates, for the aggregates {@link #EXPAND_SINGLE_DISTINCT} leaves. */
  static final RelOptRule EXPAND_OTHER_DISTINCT = CoreRules.AGGREGATE_EXPAND_DISTINCT_AGGREGATES.config
      .withOperandSupplier(b -> b.operand(LogicalAggregate.class).predicate(a -> !singleDistinct(a)).anyInputs())
      .withDescription("SpillwayExpandDistinctRule")
      .as(AggregateExpandDistinctAggregatesRule.Config.class)
      .toRule();

  /** Whether the aggregate has plain calls and DISTINCT calls of one argument list, none with FILTER. */
  private static boolean singleDistinct(Aggregate aggregate) {
    Set<List<Integer>> distinctArguments = new HashSet<>();
    boolean plain = false;
    for (AggregateCall call : aggregate.getAggCallList()) {
      if (call.filterArg >= 0) {
        return false;
      }
      if (call.isDistinct()) {
        distinctArguments.add(call.getArgList());
      } else {
        plain = true;
      }
    }
    return plain && distinctArguments.size() == 1 && aggregate.getGroupType() == Aggregate.Group.SIMPLE;
  }

  /**
   * Calcite's {@link CoreRules#SEMI_JOIN_JOIN_TRANSPOSE}, past inner joins only. Calcite's matches any join below the
   * semi join: past an anti join, whose rows lack the right side's columns that the rule counts, it failed with an
   * index out of bounds; past an outer join it would keep the rows the outer join pads where the semi join's keys are
   * on the padded side (the semi join dropped them: a NULL key matches nothing).
   */
  static final RelOptRule SEMI_JOIN_INNER_JOIN_TRANSPOSE = SemiJoinJoinTransposeRule.Config.DEFAULT
      .withOperandSupplier(b0 -> b0.operand(LogicalJoin.class).predicate(Join::isSemiJoin).inputs(b1 ->
          b1.operand(Join.class).predicate(join -> join.getJoinType() == JoinRelType.INNER).anyInputs()))
      .as(SemiJoinJoinTransposeRule.Config.class).toRule();

  /** Rewrites {@code (a AND b) OR (a AND c)} in a filter to {@code a AND (b OR c)}. */
  static final RelRule<SpillwayRuleConfig> PULL_FACTORS = (RelRule<SpillwayRuleConfig>)
      SpillwayRuleConfig.of("SpillwayPullFactorsRule",
          b -> b.operand(Filter.class).anyInputs(), PullFactorsRule::new).toRule();

  /** Rule behind {@link #PULL_FACTORS}. */
  static final class PullFactorsRule extends RelRule<SpillwayRuleConfig> {
    PullFactorsRule(SpillwayRuleConfig config) {
      super(config);
    }

    @Override public void onMatch(RelOptRuleCall call) {
      Filter filter = call.rel(0);
      RexNode condition = filter.getCondition();
      RexNode pulled = RexUtil.pullFactors(filter.getCluster().getRexBuilder(), condition);
      if (!pulled.equals(condition)) {
        call.transformTo(filter.copy(filter.getTraitSet(), filter.getInput(), pulled));
      }
    }
  }
}
