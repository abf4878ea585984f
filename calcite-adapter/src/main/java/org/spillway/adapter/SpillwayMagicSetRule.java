package org.spillway.adapter;

import org.apache.calcite.plan.RelOptRuleCall;
import org.apache.calcite.plan.RelRule;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.core.Aggregate;
import org.apache.calcite.rel.core.Filter;
import org.apache.calcite.rel.core.Join;
import org.apache.calcite.rel.core.JoinInfo;
import org.apache.calcite.rel.core.JoinRelType;
import org.apache.calcite.rel.core.Project;
import org.apache.calcite.rel.core.TableScan;
import org.apache.calcite.rel.logical.LogicalJoin;
import org.apache.calcite.rel.metadata.RelMetadataQuery;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rex.RexInputRef;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.tools.RelBuilder;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Semi-join reduction of a grouped aggregate by the keys an outer input keeps: the "magic set" of
 * Neumann and Kemper's unnesting. Decorrelating a subquery such as TPC-H Q17's {@code avg(l_quantity) ...
 * where l_partkey = p_partkey} yields an aggregate grouped by the correlation key over the whole inner table,
 * joined to the outer query on that key; when the outer query keeps few keys, almost all groups are computed
 * only to find no partner. The rule rewrites
 *
 * <pre>Join(outer, Aggregate(group {k, ...}, inner)) on outer.x = k</pre>
 *
 * <p>into
 *
 * <pre>Join(outer, Aggregate(group {k, ...}, SemiJoin(inner, distinct keys)) on inner.k = keys.x)</pre>
 *
 * <p>so that the inner rows are filtered by a small hash table before they are aggregated. The groups that
 * survive the join are exactly those whose keys the outer input holds, so any superset of the outer keys is a
 * correct magic set: the rule takes it from the cheapest input below the outer side that determines some of
 * the keys, following key equalities of inner joins (Q17's {@code p_partkey = l_partkey} lets the filtered
 * {@code part} stand for the join of lineitem and part). It fires only when that input's estimated rows are a
 * small fraction of the aggregate input's ({@link #FEW_KEYS}): otherwise computing the keys costs as much as
 * the aggregate it saves.
 *
 * <p>It does not fire either where the aggregate's keys already come from an input as small as the magic set
 * (the distinct outer values Calcite joins a non-equi subquery with). Only joins that never keep an unmatched
 * group apply: INNER joins (the aggregate on either side) and LEFT
 * joins with the aggregate on the right. A RIGHT, FULL or ANTI join must see every group, a non-equi
 * correlation has no key to filter on, a join key that is an aggregate result, not a group key, says
 * nothing about which groups matter, and an outer side with a join without key equality runs outside Spillway.
 */
final class SpillwayMagicSetRule extends RelRule<SpillwayRuleConfig> {
  /** The magic set's input may have at most this fraction of the aggregate input's estimated rows. */
  static final double FEW_KEYS = 0.1;

  /** The rule's instance. */
  static final SpillwayMagicSetRule INSTANCE = (SpillwayMagicSetRule) SpillwayRuleConfig.of("SpillwayMagicSetRule",
      b -> b.operand(LogicalJoin.class).predicate(j -> j.getVariablesSet().isEmpty()
          && (j.getJoinType() == JoinRelType.INNER || j.getJoinType() == JoinRelType.LEFT)).anyInputs(),
      SpillwayMagicSetRule::new).toRule();

  private SpillwayMagicSetRule(SpillwayRuleConfig config) {
    super(config);
  }

  @Override public void onMatch(RelOptRuleCall call) {
    LogicalJoin join = call.rel(0);
    JoinInfo info = join.analyzeCondition();
    if (info.leftKeys.isEmpty()) {
      return;
    }
    if (!reduce(call, join, info.leftKeys, info.rightKeys, 1) && join.getJoinType() == JoinRelType.INNER) {
      reduce(call, join, info.rightKeys, info.leftKeys, 0);
    }
  }

  /**
   * Reduces the aggregate that is input {@code side} of the join (optionally under a project), joined on
   * {@code aggregateKeys} to the other input's {@code outerKeys}; whether it did.
   */
  private static boolean reduce(RelOptRuleCall call, LogicalJoin join, List<Integer> outerKeys,
      List<Integer> aggregateKeys, int side) {
    RelNode top = join.getInput(side).stripped();
    Project project = top instanceof Project p ? p : null;
    RelNode below = project == null ? top : project.getInput().stripped();
    if (!(below instanceof Aggregate aggregate) || aggregate.getGroupType() != Aggregate.Group.SIMPLE
        || aggregate.getGroupCount() == 0) {
      return false;
    }
    RelNode inner = aggregate.getInput().stripped();
    if (inner instanceof Join innerJoin && innerJoin.getJoinType() == JoinRelType.SEMI) {
      return false;  // already reduced: a second magic set would only repeat the first
    }
    // Key i of the join: the outer column and the aggregate input's column whose groups it selects.
    Map<Integer, Integer> outerColumns = new LinkedHashMap<>();
    List<Integer> innerColumns = new ArrayList<>();
    for (int i = 0; i < aggregateKeys.size(); i++) {
      int column = aggregateKeys.get(i);
      if (project != null) {
        column = project.getProjects().get(column) instanceof RexInputRef ref ? ref.getIndex() : -1;
      }
      if (column >= 0 && column < aggregate.getGroupCount()) {
        outerColumns.put(innerColumns.size(), outerKeys.get(i));
        innerColumns.add(aggregate.getGroupSet().nth(column));
      }
    }
    if (innerColumns.isEmpty()) {
      return false;  // joined on aggregate results only
    }
    if (joinsWithoutKeys(join.getInput(1 - side).stripped())) {
      return false;
    }
    RelMetadataQuery mq = call.getMetadataQuery();
    KeySource best = null;
    double bestRows = Double.MAX_VALUE;
    List<KeySource> sources = new ArrayList<>();
    collectSources(join.getInput(1 - side), outerColumns, sources);
    for (KeySource source : sources) {
      Double rows = mq.getRowCount(source.rel);
      if (rows != null && rows < bestRows && sameTypes(source, inner, innerColumns) && !wholeTable(source.rel)) {
        best = source;
        bestRows = rows;
      }
    }
    Double innerRows = mq.getRowCount(inner);
    if (best == null || innerRows == null || bestRows > FEW_KEYS * innerRows
        || innerKeysAreFew(inner, innerColumns, bestRows, mq)) {
      return false;
    }
    RelBuilder builder = call.builder();
    builder.push(inner);
    builder.push(best.rel).project(builder.fields(new ArrayList<>(best.columns.values()))).distinct();
    List<RexNode> conditions = new ArrayList<>();
    int k = 0;
    for (int key : best.columns.keySet()) {
      conditions.add(builder.equals(builder.field(2, 0, innerColumns.get(key)), builder.field(2, 1, k++)));
    }
    builder.join(JoinRelType.SEMI, conditions);
    RelNode reduced = aggregate.copy(aggregate.getTraitSet(), List.of(builder.build()));
    if (project != null) {
      reduced = project.copy(project.getTraitSet(), List.of(reduced));
    }
    List<RelNode> inputs = new ArrayList<>(join.getInputs());
    inputs.set(side, reduced);
    call.transformTo(join.copy(join.getTraitSet(), inputs));
    return true;
  }

  /**
   * Whether the aggregate's keys come from an input no larger than the magic set: a decorrelated non-equi
   * subquery groups by the distinct outer values it was joined with (Calcite's value generator), which a
   * magic set would only compute again.
   */
  private static boolean innerKeysAreFew(RelNode inner, List<Integer> innerColumns, double magicRows,
      RelMetadataQuery mq) {
    Map<Integer, Integer> columns = new LinkedHashMap<>();
    for (int i = 0; i < innerColumns.size(); i++) {
      columns.put(i, innerColumns.get(i));
    }
    List<KeySource> sources = new ArrayList<>();
    collectSources(inner, columns, sources);
    for (KeySource source : sources) {
      Double rows = mq.getRowCount(source.rel);
      if (rows != null && rows <= magicRows) {
        return true;
      }
    }
    return false;
  }

  /**
   * Whether the subtree has a join whose condition has no key equality (a nested loop, e.g. Q22's comparison with
   * a scalar subquery; a cross product of a FROM list is left to join ordering): that outer side runs in Calcite, a magic set taken from it would run the nested loop twice, and one
   * taken below it leaves Calcite to choose the joins around the reduced aggregate.
   */
  private static boolean joinsWithoutKeys(RelNode rel) {
    if (rel instanceof Join join && !join.getCondition().isAlwaysTrue()
        && join.analyzeCondition().leftKeys.isEmpty()) {
      return true;
    }
    for (RelNode input : rel.getInputs()) {
      if (joinsWithoutKeys(input.stripped())) {
        return true;
      }
    }
    return false;
  }

  /** Whether each key column of the source has the type of the inner column it filters (nullability aside). */
  private static boolean sameTypes(KeySource source, RelNode inner, List<Integer> innerColumns) {
    for (Map.Entry<Integer, Integer> e : source.columns.entrySet()) {
      RelDataType outer = source.rel.getRowType().getFieldList().get(e.getValue()).getType();
      RelDataType own = inner.getRowType().getFieldList().get(innerColumns.get(e.getKey())).getType();
      if (!outer.getSqlTypeName().equals(own.getSqlTypeName()) || outer.getPrecision() != own.getPrecision()
          || outer.getScale() != own.getScale()) {
        return false;
      }
    }
    return true;
  }

  /**
   * Whether {@code rel} is a whole table (a scan, under projections only): all of a table's keys reduce nothing that
   * references them (TPC-H Q15's revenue view, joined with every supplier); the semi join would only add a probe.
   */
  static boolean wholeTable(RelNode rel) {
    RelNode r = rel.stripped();
    while (r instanceof Project project) {
      r = project.getInput().stripped();
    }
    return r instanceof TableScan;
  }

  /**
   * Adds {@code rel} and every input below it whose column values include those of some of the keys
   * ({@code columns}: key number to column of {@code rel}): the input of a filter, a project's referenced
   * column, an aggregate's group column, either side of a join for its own columns (an outer join adds only
   * NULLs, which match no key) and, across an inner or semi join's key equality, the other side's column.
   */
  static void collectSources(RelNode node, Map<Integer, Integer> columns, List<KeySource> out) {
    RelNode rel = node.stripped();
    out.add(new KeySource(rel, columns));
    if (rel instanceof Filter filter) {
      collectSources(filter.getInput(), columns, out);
    } else if (rel instanceof Project project) {
      Map<Integer, Integer> below = new LinkedHashMap<>();
      columns.forEach((key, column) -> {
        if (project.getProjects().get(column) instanceof RexInputRef ref) {
          below.put(key, ref.getIndex());
        }
      });
      if (!below.isEmpty()) {
        collectSources(project.getInput(), below, out);
      }
    } else if (rel instanceof Aggregate aggregate && aggregate.getGroupType() == Aggregate.Group.SIMPLE) {
      Map<Integer, Integer> below = new LinkedHashMap<>();
      columns.forEach((key, column) -> {
        if (column < aggregate.getGroupCount()) {
          below.put(key, aggregate.getGroupSet().nth(column));
        }
      });
      if (!below.isEmpty()) {
        collectSources(aggregate.getInput(), below, out);
      }
    } else if (rel instanceof Join join) {
      int leftCount = join.getLeft().getRowType().getFieldCount();
      JoinInfo info = join.analyzeCondition();
      boolean equal = join.getJoinType() == JoinRelType.INNER || join.getJoinType() == JoinRelType.SEMI;
      Map<Integer, Integer> left = new LinkedHashMap<>();
      Map<Integer, Integer> right = new LinkedHashMap<>();
      columns.forEach((key, column) -> {
        if (column < leftCount) {
          left.put(key, column);
          int at = info.leftKeys.indexOf(column);
          if (equal && at >= 0) {
            right.put(key, info.rightKeys.get(at));
          }
        } else {
          right.put(key, column - leftCount);
          int at = info.rightKeys.indexOf(column - leftCount);
          if (equal && at >= 0) {
            left.put(key, info.leftKeys.get(at));
          }
        }
      });
      if (!left.isEmpty()) {
        collectSources(join.getLeft(), left, out);
      }
      if (!right.isEmpty()) {
        collectSources(join.getRight(), right, out);
      }
    }
  }

  /** An input whose column values include those of some join keys: key number to its column. */
  record KeySource(RelNode rel, Map<Integer, Integer> columns) {}
}
