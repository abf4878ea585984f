package org.spillway.adapter;

import java.util.ArrayList;
import java.util.List;
import org.apache.calcite.plan.RelOptRuleCall;
import org.apache.calcite.plan.RelOptUtil;
import org.apache.calcite.plan.RelRule;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.core.JoinRelType;
import org.apache.calcite.rel.logical.LogicalJoin;
import org.apache.calcite.rel.metadata.RelMetadataQuery;
import org.apache.calcite.rel.rules.CoreRules;
import org.apache.calcite.rel.rules.MultiJoin;
import org.apache.calcite.rex.RexBuilder;
import org.apache.calcite.rex.RexCall;
import org.apache.calcite.rex.RexInputRef;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.rex.RexShuttle;
import org.apache.calcite.rex.RexUtil;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.tools.RelBuilder;
import org.apache.calcite.util.ImmutableBitSet;

/**
 * Orders the inner joins of a {@link MultiJoin} by dynamic programming over its connected subsets (DPsub, as in
 * Moerkotte and Neumann's "Analysis of Two Existing and One New Dynamic Programming Algorithm for the Generation of
 * Optimal Bushy Join Trees without Cross Products", VLDB 2006), bushy trees allowed, each join's rows estimated by
 * {@link SpillwayRelMetadata} (distinct values of the keys, filter selectivities from statistics and samples).
 * A plan costs the rows of its intermediate results plus the rows of the smaller input of each join (the hash
 * table it builds).
 *
 * <p>Why not Calcite's {@link org.apache.calcite.rel.rules.LoptOptimizeJoinRule}: it adds to its left-deep tree
 * the factor with the most join conditions to the tree first and looks at row counts only on ties, so TPC-H Q9
 * joined lineitem with partsupp (two key columns) before the 5% of parts its filter keeps, probing every lineitem
 * row into the largest table. A MultiJoin with outer joins, more factors than {@link #MAX_FACTORS} or no plan
 * without a cross product is left to that rule.
 */
final class SpillwayJoinOrderRule extends RelRule<SpillwayRuleConfig> {
  /** The rule's instance. */
  static final SpillwayJoinOrderRule INSTANCE = (SpillwayJoinOrderRule) SpillwayRuleConfig.of(
      "SpillwayJoinOrderRule", b -> b.operand(MultiJoin.class).anyInputs(), SpillwayJoinOrderRule::new).toRule();
  /** Beyond this many factors the 3^n subset pairs take too long; Calcite's heuristic orders them. */
  static final int MAX_FACTORS = 12;

  private SpillwayJoinOrderRule(SpillwayRuleConfig config) {
    super(config);
  }

  @Override public void onMatch(RelOptRuleCall call) {
    MultiJoin multiJoin = call.rel(0);
    RelNode ordered = ordered(multiJoin, call.getMetadataQuery(), call.builder());
    if (ordered != null) {
      call.transformTo(ordered);
    } else {
      CoreRules.MULTI_JOIN_OPTIMIZE.onMatch(call);
    }
  }

  /** The best join tree of the MultiJoin's inputs with its fields in the MultiJoin's order, or null (see class). */
  static RelNode ordered(MultiJoin multiJoin, RelMetadataQuery mq, RelBuilder builder) {
    List<RelNode> inputs = multiJoin.getInputs();
    int n = inputs.size();
    if (multiJoin.isFullOuterJoin() || n > MAX_FACTORS || n < 2
        || multiJoin.getJoinTypes().stream().anyMatch(t -> t != JoinRelType.INNER)) {
      return null;
    }
    int[] factorOfField = new int[multiJoin.getRowType().getFieldCount()];
    int[] firstField = new int[n];
    for (int i = 0, field = 0; i < n; i++) {
      firstField[i] = field;
      for (int f = 0; f < inputs.get(i).getRowType().getFieldCount(); f++) {
        factorOfField[field++] = i;
      }
    }
    RexBuilder rex = multiJoin.getCluster().getRexBuilder();
    List<RexNode> conjuncts = RelOptUtil.conjunctions(multiJoin.getJoinFilter());
    int[] factorsOf = new int[conjuncts.size()];
    List<RexNode> constant = new ArrayList<>();
    Plan[] best = new Plan[1 << n];
    for (int i = 0; i < n; i++) {
      int[] fields = new int[inputs.get(i).getRowType().getFieldCount()];
      for (int f = 0; f < fields.length; f++) {
        fields[f] = firstField[i] + f;
      }
      best[1 << i] = new Plan(inputs.get(i), fields, 0, mq.getRowCount(inputs.get(i)));
    }
    for (int c = 0; c < conjuncts.size(); c++) {
      factorsOf[c] = factors(conjuncts.get(c), factorOfField);
      if (factorsOf[c] == 0) {
        constant.add(conjuncts.get(c));
      } else if (Integer.bitCount(factorsOf[c]) == 1) {  // a filter on one input: applied to it first
        Plan single = best[factorsOf[c]];
        RelNode filtered = builder.push(single.rel).filter(remap(conjuncts.get(c), single.fields, rex)).build();
        best[factorsOf[c]] = new Plan(filtered, single.fields, 0, mq.getRowCount(filtered));
      }
    }
    for (int mask = 1; mask < 1 << n; mask++) {
      if (Integer.bitCount(mask) < 2) {
        continue;
      }
      // Each split once: the left part holds the lowest factor of the set.
      int lowest = mask & -mask;
      for (int left = (mask - 1) & mask; left > 0; left = (left - 1) & mask) {
        int right = mask ^ left;
        if ((left & lowest) == 0 || best[left] == null || best[right] == null) {
          continue;
        }
        List<RexNode> condition = new ArrayList<>();
        boolean keyed = false;
        for (int c = 0; c < conjuncts.size(); c++) {
          int factors = factorsOf[c];
          if ((factors & ~mask) == 0 && (factors & left) != 0 && (factors & right) != 0) {
            condition.add(conjuncts.get(c));
            keyed |= equality(conjuncts.get(c), left, right, factorOfField);
          }
        }
        if (!keyed) {
          continue;  // no cross products, nor nested-loop joins on conditions that other joins' keys could carry
        }
        Plan l = best[left];
        Plan r = best[right];
        int[] fields = concat(l.fields, r.fields);
        RelNode join = LogicalJoin.create(l.rel, r.rel, List.of(),
            remap(RexUtil.composeConjunction(rex, condition), fields, rex), java.util.Set.of(), JoinRelType.INNER);
        double rows = mq.getRowCount(join);
        double cost = l.cost + r.cost + rows + Math.min(l.rows, r.rows);
        if (best[mask] == null || cost < best[mask].cost) {
          best[mask] = new Plan(join, fields, cost, rows);
        }
      }
    }
    Plan all = best[(1 << n) - 1];
    if (all == null) {
      return null;
    }
    builder.push(all.rel);
    constant.add(multiJoin.getPostJoinFilter());
    List<RexNode> filters = constant.stream().filter(f -> f != null).map(f -> remap(f, all.fields, rex)).toList();
    if (!filters.isEmpty()) {
      builder.filter(filters);
    }
    int[] position = new int[factorOfField.length];
    for (int p = 0; p < all.fields.length; p++) {
      position[all.fields[p]] = p;
    }
    List<RexNode> projects = new ArrayList<>();
    for (int field = 0; field < position.length; field++) {
      projects.add(builder.field(position[field]));
    }
    return builder.project(projects, multiJoin.getRowType().getFieldNames(), true).build();
  }

  /** Whether {@code conjunct} equates an expression of the {@code left} factors with one of the {@code right}. */
  private static boolean equality(RexNode conjunct, int left, int right, int[] factorOfField) {
    if (conjunct.getKind() != SqlKind.EQUALS) {
      return false;
    }
    List<RexNode> operands = ((RexCall) conjunct).getOperands();
    int a = factors(operands.get(0), factorOfField);
    int b = factors(operands.get(1), factorOfField);
    return a != 0 && b != 0 && ((a & ~left) == 0 && (b & ~right) == 0 || (a & ~right) == 0 && (b & ~left) == 0);
  }

  /** The factors whose fields {@code e} reads, as a bit set. */
  private static int factors(RexNode e, int[] factorOfField) {
    int factors = 0;
    for (int field : RelOptUtil.InputFinder.bits(e)) {
      factors |= 1 << factorOfField[field];
    }
    return factors;
  }

  /** A best plan of a set of inputs: its tree, the MultiJoin field at each of its positions, cost and rows. */
  private record Plan(RelNode rel, int[] fields, double cost, double rows) {}

  private static int[] concat(int[] a, int[] b) {
    int[] out = new int[a.length + b.length];
    System.arraycopy(a, 0, out, 0, a.length);
    System.arraycopy(b, 0, out, a.length, b.length);
    return out;
  }

  /** {@code e} over the MultiJoin's fields rewritten over a plan whose position p holds field {@code fields[p]}. */
  private static RexNode remap(RexNode e, int[] fields, RexBuilder rex) {
    int[] position = new int[ImmutableBitSet.of(fields).length()];
    for (int p = 0; p < fields.length; p++) {
      position[fields[p]] = p;
    }
    return e.accept(new RexShuttle() {
      @Override public RexNode visitInputRef(RexInputRef ref) {
        return rex.makeInputRef(ref.getType(), position[ref.getIndex()]);
      }
    });
  }
}
