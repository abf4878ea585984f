package org.spillway.adapter;

import org.apache.calcite.plan.RelOptUtil;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.core.Aggregate;
import org.apache.calcite.rel.core.JoinInfo;
import org.apache.calcite.rel.core.JoinRelType;
import org.apache.calcite.rel.metadata.RelMetadataQuery;
import org.apache.calcite.rel.type.RelDataTypeField;
import org.apache.calcite.rex.RexInputRef;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.rex.RexShuttle;
import org.apache.calcite.tools.Program;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;

/**
 * Lets an inner join read the rows of a semi join that the plan computes anyway, after Volcano chose the plan: where a
 * semi join {@code S = X ⋉ K} reduces an input {@code X} by keys, and elsewhere an inner join {@code X ⋈ Y} joins the
 * same input on the same columns to rows {@code Y} whose keys {@code K} holds, the join becomes {@code S ⋈ Y}, the same
 * rows. The implementor runs a semi join the plan holds twice once and both joins read its rows
 * ({@link SpillwayJoin#noteSharedInputs}), so the second join streams the reduced rows instead of {@code X} again.
 *
 * <p>The magic-set rule ({@link SpillwayMagicSetRule}) makes such pairs: TPC-H Q2's minimum cost per part is computed
 * over {@code partsupp ⋉ (keys of the filtered parts)}, and the query joins {@code partsupp} with those filtered parts
 * again; without this rewrite both stream all of {@code partsupp}, one pass after the other (the second probes the
 * minimum the first computes).
 *
 * <p>{@code K} holds every key of {@code Y} where both are filters, projections and distinct groupings over the same
 * table, the keys are the same table columns, and each of {@code K}'s conditions is one of {@code Y}'s: every table row
 * {@code Y} keeps, {@code K} keeps too. The rows of {@code X} that the semi join drops then have no partner in {@code
 * Y}. Only a semi join that keeps few of its input's rows ({@link #FEW_ROWS}) is read this way: its rows are made once
 * in host memory, where a pipeline over {@code X} would have streamed them.
 */
final class SpillwaySharedSemiJoins {
  /** A semi join is shared only where it keeps at most this share of its input's estimated rows. */
  static final double FEW_ROWS = 0.1;

  private SpillwaySharedSemiJoins() {}

  /** The program step that rewrites the physical plan. */
  static Program program() {
    return (planner, rel, traits, materializations, lattices) -> share(rel);
  }

  /** {@code root} with every inner join that can read a reducing semi join's rows reading them. */
  static RelNode share(RelNode root) {
    List<Reducer> reducers = new ArrayList<>();
    collectReducers(root, reducers, Collections.newSetFromMap(new IdentityHashMap<>()));
    if (reducers.isEmpty()) {
      return root;
    }
    return rewrite(root, reducers, Collections.newSetFromMap(new IdentityHashMap<>()));
  }

  /** A semi join that reduces its left input by keys of a table's rows: its left input's text, keys and key rows. */
  private record Reducer(SpillwayJoin join, String reducedText, int[] leftKeys, int[] rightKeys, TableChain keyRows) {}

  private static void collectReducers(RelNode rel, List<Reducer> out, Set<RelNode> seen) {
    if (!seen.add(rel)) {
      return;
    }
    if (rel instanceof SpillwayJoin join && join.getJoinType() == JoinRelType.SEMI) {
      JoinInfo info = join.analyzeCondition();
      TableChain keyRows = TableChain.of(join.getRight());
      if (!info.leftKeys.isEmpty() && info.isEqui() && keyRows != null && fewRows(join)) {
        out.add(new Reducer(join, SpillwayJoin.subtreeText(join.getLeft()), info.leftKeys.toIntArray(),
            info.rightKeys.toIntArray(), keyRows));
      }
    }
    for (RelNode input : rel.getInputs()) {
      collectReducers(input, out, seen);
    }
  }

  private static boolean fewRows(SpillwayJoin join) {
    RelMetadataQuery mq = join.getCluster().getMetadataQuery();
    Double kept = mq.getRowCount(join);
    Double all = mq.getRowCount(join.getLeft());
    return kept != null && all != null && kept <= FEW_ROWS * all;
  }

  /** {@code rel} rewritten; {@code above} holds its ancestors (a join never reads a semi join above it). */
  private static RelNode rewrite(RelNode rel, List<Reducer> reducers, Set<RelNode> above) {
    RelNode node = rel;
    if (rel instanceof SpillwayJoin join && join.getJoinType() == JoinRelType.INNER) {
      for (int side = 0; side < 2 && node == rel; side++) {
        for (Reducer reducer : reducers) {
          if (!above.contains(reducer.join()) && reducer.join() != rel && reduces(reducer, join, side)) {
            List<RelNode> inputs = new ArrayList<>(join.getInputs());
            inputs.set(side, reducer.join());
            node = join.copy(join.getTraitSet(), inputs);
            break;
          }
        }
      }
    }
    above.add(rel);
    List<RelNode> inputs = new ArrayList<>();
    boolean changed = node != rel;
    for (RelNode input : node.getInputs()) {
      RelNode next = input instanceof SpillwayJoin j && reducers.stream().anyMatch(r -> r.join() == j)
          ? input : rewrite(input, reducers, above);
      changed |= next != input;
      inputs.add(next);
    }
    above.remove(rel);
    return changed ? node.copy(node.getTraitSet(), inputs) : rel;
  }

  /**
   * Whether {@code reducer} keeps every row of {@code join}'s input {@code side} that has a partner on the other side:
   * the same input, each of the reducer's keys one of the join's, paired with the same table column of the same rows.
   */
  private static boolean reduces(Reducer reducer, SpillwayJoin join, int side) {
    RelNode reduced = join.getInput(side);
    if (!SpillwayJoin.subtreeText(reduced).equals(reducer.reducedText())) {
      return false;
    }
    TableChain other = TableChain.of(join.getInput(1 - side));
    TableChain keys = reducer.keyRows();
    if (other == null || !other.scan().getTable().getQualifiedName().equals(keys.scan().getTable().getQualifiedName())
        || !other.conditions().containsAll(keys.conditions())) {
      return false;
    }
    JoinInfo info = join.analyzeCondition();
    List<Integer> ownKeys = side == 0 ? info.leftKeys : info.rightKeys;
    List<Integer> otherKeys = side == 0 ? info.rightKeys : info.leftKeys;
    for (int k = 0; k < reducer.leftKeys().length; k++) {
      int at = ownKeys.indexOf(reducer.leftKeys()[k]);
      int column = keys.tableColumn(reducer.rightKeys()[k]);
      if (at < 0 || column < 0 || other.tableColumn(otherKeys.get(at)) != column) {
        return false;
      }
    }
    return true;
  }

  /**
   * Rows of one table's scan under filters, projections and distinct groupings: each column as an expression of the
   * table's columns ({@code $i} is table column i), and the filters' conjuncts over the table's columns.
   */
  record TableChain(SpillwayTableScan scan, List<RexNode> columns, Set<String> conditions) {
    /** The chain that {@code rel} is, or null where it is something else. */
    static TableChain of(RelNode rel) {
      if (rel instanceof SpillwayTableScan scan) {
        List<RexNode> columns = new ArrayList<>();
        List<RelDataTypeField> fields = scan.getRowType().getFieldList();
        for (int i = 0; i < fields.size(); i++) {
          columns.add(new RexInputRef(scan.fields()[i], fields.get(i).getType()));
        }
        return new TableChain(scan, columns, Set.of());
      }
      if (rel instanceof SpillwayFilter filter) {
        TableChain below = of(filter.getInput());
        if (below == null) {
          return null;
        }
        Set<String> conditions = new HashSet<>(below.conditions());
        for (RexNode conjunct : RelOptUtil.conjunctions(below.over(filter.getCondition()))) {
          conditions.add(conjunct.toString());
        }
        return new TableChain(below.scan(), below.columns(), conditions);
      }
      if (rel instanceof SpillwayProject project) {
        TableChain below = of(project.getInput());
        return below == null ? null
            : new TableChain(below.scan(), project.getProjects().stream().map(below::over).toList(), below.conditions());
      }
      if (rel instanceof SpillwayAggregate aggregate && aggregate.getAggCallList().isEmpty()
          && aggregate.getGroupType() == Aggregate.Group.SIMPLE) {
        TableChain below = of(aggregate.getInput());
        return below == null ? null : new TableChain(below.scan(),
            aggregate.getGroupSet().asList().stream().map(below.columns()::get).toList(), below.conditions());
      }
      return null;
    }

    /** {@code e}, over this chain's columns, as an expression of the table's columns. */
    RexNode over(RexNode e) {
      return e.accept(new RexShuttle() {
        @Override public RexNode visitInputRef(RexInputRef ref) {
          return columns.get(ref.getIndex());
        }
      });
    }

    /** The table column that column {@code c} is, or -1 where it is computed. */
    int tableColumn(int c) {
      return columns.get(c) instanceof RexInputRef ref ? ref.getIndex() : -1;
    }

    /** The first column that is table column {@code column} itself, or -1 where none is. */
    int columnOf(int column) {
      for (int c = 0; c < columns.size(); c++) {
        if (tableColumn(c) == column) {
          return c;
        }
      }
      return -1;
    }
  }
}
