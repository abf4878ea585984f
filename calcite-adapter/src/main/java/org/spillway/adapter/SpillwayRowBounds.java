package org.spillway.adapter;

import org.apache.calcite.plan.hep.HepRelVertex;
import org.apache.calcite.plan.volcano.RelSubset;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.core.Aggregate;
import org.apache.calcite.rel.core.Calc;
import org.apache.calcite.rel.core.Filter;
import org.apache.calcite.rel.core.Join;
import org.apache.calcite.rel.core.Project;
import org.apache.calcite.rel.core.Sort;
import org.apache.calcite.rel.core.Union;
import org.apache.calcite.rel.core.Values;
import org.apache.calcite.rel.metadata.RelMetadataQuery;
import org.apache.calcite.rel.rules.MultiJoin;
import org.apache.calcite.rex.RexInputRef;
import org.apache.calcite.util.ImmutableBitSet;
import org.spillway.storage.ColumnStatistics;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.ToDoubleFunction;

/**
 * Upper bounds of the rows a relational expression returns, for {@link SpillwaySumWidth}: a scan returns its table's
 * rows (exact, from the catalog), filters and projects at most their input's, an aggregate at most its input's (a
 * global one one row), a semi- or anti-join at most its left input's. A join (also a MultiJoin, the form of a join
 * tree before its order is chosen, and a cross product under a filter of key equalities) returns at most the rows of
 * one input times, per other input, the rows one joined row matches there ({@link SpillwayJoinGraph}): the most rows
 * of that input that share a value of its key columns, its {@link #multiplicity}. Anything else is unbounded, so that
 * its sums are wide.
 */
final class SpillwayRowBounds {
  /**
   * Rows that share a value of a key the catalog's statistics call unique, at most: their HyperLogLog distinct counts
   * are within about 1%, so a key taken as unique (the rule the join cost model uses) may still repeat now and then.
   */
  static final double STATISTICAL_KEY_SLACK = 2;

  private final RelMetadataQuery mq;
  private final Map<RelNode, Double> rows = new HashMap<>();
  private final Map<RelNode, Map<List<Integer>, Double>> multiplicities = new HashMap<>();
  private final Set<Object> visiting = new HashSet<>();

  SpillwayRowBounds(RelMetadataQuery mq) {
    this.mq = mq;
  }

  /** At most how many rows {@code rel} returns (+infinity when nothing bounds it). */
  double maxRows(RelNode rel) {
    Double known = rows.get(rel);
    if (known != null) {
      return known;
    }
    if (!visiting.add(rel)) {
      return Double.POSITIVE_INFINITY;  // a cycle of the planner's memo
    }
    double bound = Math.min(computeRows(rel), calciteMaxRows(rel));
    visiting.remove(rel);
    rows.put(rel, bound);
    return bound;
  }

  private double computeRows(RelNode rel) {
    if (rel instanceof RelSubset || rel instanceof HepRelVertex) {
      return bestOfMembers(rel, this::maxRows);
    }
    if (rel instanceof SpillwayTableScan scan) {
      return scan.spillwayTable().stored().rowCount() * SpillwaySumWidth.Assumption.current().rowScale();
    }
    if (rel instanceof Filter filter) {
      SpillwayJoinGraph join = SpillwayJoinGraph.of(member(filter.getInput()));
      double filtered = join == null ? Double.POSITIVE_INFINITY
          : join.withConditions(filter.getCondition()).maxRows(this);
      return Math.min(filtered, maxRows(filter.getInput()));
    }
    if (rel instanceof Project || rel instanceof Calc || rel instanceof Sort
        || rel instanceof SpillwayToEnumerableConverter) {
      return maxRows(rel.getInput(0));
    }
    if (rel instanceof Aggregate aggregate) {
      int sets = aggregate.getGroupSets().size();
      return aggregate.getGroupSet().isEmpty() ? sets : maxRows(aggregate.getInput()) * sets;
    }
    if (rel instanceof Join join && !join.getJoinType().projectsRight()) {
      return maxRows(join.getLeft());  // semi and anti joins return left rows, each at most once
    }
    SpillwayJoinGraph join = SpillwayJoinGraph.of(rel);
    if (join != null) {
      return join.maxRows(this);
    }
    if (rel instanceof Union union) {
      double sum = 0;
      for (RelNode input : union.getInputs()) {
        sum += maxRows(input);
      }
      return sum;
    }
    return rel instanceof Values values ? values.getTuples().size() : Double.POSITIVE_INFINITY;
  }

  /**
   * At most how many rows of {@code rel} share one value of the columns {@code keys} (+infinity when nothing bounds
   * it): 1 where the plan makes them unique (group keys: Calcite's uniqueness metadata), the slack for a column the
   * catalog calls unique, through filters and projects, and through a join for the key of one input times the rows
   * each of its rows matches in the others.
   */
  double multiplicity(RelNode rel, List<Integer> keys) {
    if (keys.isEmpty()) {
      return maxRows(rel);
    }
    Double known = multiplicities.getOrDefault(rel, Map.of()).get(keys);
    if (known != null) {
      return known;
    }
    List<Object> key = List.of(rel, keys);
    if (!visiting.add(key)) {
      return Double.POSITIVE_INFINITY;
    }
    double m = Boolean.TRUE.equals(mq.areColumnsUnique(rel, ImmutableBitSet.of(keys))) ? 1 : computeMultiplicity(rel,
        keys);
    visiting.remove(key);
    multiplicities.computeIfAbsent(rel, r -> new HashMap<>()).put(keys, m);
    return m;
  }

  private double computeMultiplicity(RelNode rel, List<Integer> keys) {
    if (rel instanceof RelSubset || rel instanceof HepRelVertex) {
      return bestOfMembers(rel, member -> multiplicity(member, keys));
    }
    if (rel instanceof SpillwayTableScan scan) {
      return SpillwaySumWidth.Assumption.current().noStatistics() ? Double.POSITIVE_INFINITY
          : statisticalMultiplicity(scan, keys);
    }
    if (rel instanceof Filter || rel instanceof Sort || rel instanceof SpillwayToEnumerableConverter) {
      return multiplicity(rel.getInput(0), keys);
    }
    if (rel instanceof Project project) {
      List<Integer> inputKeys = new ArrayList<>();
      for (int k : keys) {
        if (project.getProjects().get(k) instanceof RexInputRef ref) {
          inputKeys.add(ref.getIndex());  // a subset of the key columns repeats at least as often
        }
      }
      return inputKeys.isEmpty() ? Double.POSITIVE_INFINITY : multiplicity(project.getInput(), inputKeys);
    }
    if (rel instanceof Join join && !join.getJoinType().projectsRight()) {
      return multiplicity(join.getLeft(), keys);
    }
    SpillwayJoinGraph join = SpillwayJoinGraph.of(rel);
    return join == null ? Double.POSITIVE_INFINITY : join.multiplicity(this, keys);
  }

  /** The slack when one of the key columns has nearly as many distinct values as non-NULL rows, else +infinity. */
  private static double statisticalMultiplicity(SpillwayTableScan scan, List<Integer> keys) {
    long rows = scan.spillwayTable().stored().rowCount();
    for (int key : keys) {
      ColumnStatistics stats = scan.spillwayTable().stored().statistics().column(scan.fields()[key]);
      if (stats.distinctCount() >= SpillwayStatistics.UNIQUE_SHARE * (rows - stats.nullCount())) {
        return STATISTICAL_KEY_SLACK;
      }
    }
    return Double.POSITIVE_INFINITY;
  }

  /**
   * A subset's (or vertex's) original member, which the planner never replaces, so that every question about one
   * subset gets the same answer while planning; equivalent members bound it too, where the original cannot.
   */
  private static double bestOfMembers(RelNode rel, ToDoubleFunction<RelNode> bound) {
    RelNode member = member(rel);
    double best = member == rel ? Double.POSITIVE_INFINITY : bound.applyAsDouble(member);
    if (rel instanceof RelSubset subset) {
      for (int i = 0; Double.isInfinite(best) && i < subset.getRelList().size(); i++) {
        best = bound.applyAsDouble(subset.getRelList().get(i));
      }
    }
    return best;
  }

  /** The node a subset or vertex stands for (its original member, the vertex's current one), else itself. */
  static RelNode member(RelNode rel) {
    if (rel instanceof RelSubset subset && subset.getOriginal() != null) {
      return subset.getOriginal();
    }
    return rel instanceof HepRelVertex vertex ? vertex.getCurrentRel() : rel;
  }

  /** Calcite's own bound (a global aggregate, a LIMIT, VALUES), or +infinity. */
  private double calciteMaxRows(RelNode rel) {
    if (rel instanceof RelSubset || rel instanceof HepRelVertex) {
      return Double.POSITIVE_INFINITY;  // their members are asked
    }
    Double max = mq.getMaxRowCount(rel);
    return max == null ? Double.POSITIVE_INFINITY : max;
  }
}
