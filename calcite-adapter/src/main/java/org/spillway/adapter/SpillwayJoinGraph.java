package org.spillway.adapter;

import org.apache.calcite.plan.RelOptUtil;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.core.Join;
import org.apache.calcite.rel.core.JoinInfo;
import org.apache.calcite.rel.core.JoinRelType;
import org.apache.calcite.rel.rules.MultiJoin;
import org.apache.calcite.rex.RexCall;
import org.apache.calcite.rex.RexInputRef;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.sql.SqlKind;
import org.checkerframework.checker.nullness.qual.Nullable;

import java.util.ArrayList;
import java.util.List;

/**
 * A join, binary or a MultiJoin, as {@link SpillwayRowBounds} bounds it: its inputs (fields numbered across them, in
 * order), which of them an outer join may extend with NULLs, and the equalities between fields of two inputs. Its
 * rows are at most the rows of a root input times, for each other input joined in turn, the most rows of that input
 * one joined row matches: the multiplicity of its columns that equalities tie to the inputs joined so far (at least 1:
 * an outer join keeps an unmatched row). Inputs through a unique key are joined first; the smallest product over the
 * roots that no outer join extends with NULLs holds.
 */
record SpillwayJoinGraph(List<RelNode> inputs, List<Boolean> nullExtended, List<int[]> equalities) {
  /** The graph of an inner or one-sided outer join (binary or MultiJoin); null for anything else. */
  static @Nullable SpillwayJoinGraph of(RelNode rel) {
    if (rel instanceof Join join && join.getJoinType().projectsRight() && join.getJoinType() != JoinRelType.FULL) {
      JoinInfo info = join.analyzeCondition();
      int leftFields = join.getLeft().getRowType().getFieldCount();
      List<int[]> equalities = new ArrayList<>();
      for (int k = 0; k < info.leftKeys.size(); k++) {
        equalities.add(new int[] {info.leftKeys.get(k), leftFields + info.rightKeys.get(k)});
      }
      return new SpillwayJoinGraph(join.getInputs(), List.of(join.getJoinType() == JoinRelType.RIGHT,
          join.getJoinType() == JoinRelType.LEFT), equalities);
    }
    if (rel instanceof MultiJoin join && !join.isFullOuterJoin()) {
      List<RexNode> conditions = new ArrayList<>(RelOptUtil.conjunctions(join.getJoinFilter()));
      for (RexNode outer : join.getOuterJoinConditions()) {
        if (outer != null) {
          conditions.addAll(RelOptUtil.conjunctions(outer));
        }
      }
      return new SpillwayJoinGraph(join.getInputs(),
          join.getJoinTypes().stream().map(t -> t != JoinRelType.INNER).toList(), equalities(conditions));
    }
    return null;
  }

  /** The field equalities among the conjuncts. */
  private static List<int[]> equalities(List<RexNode> conjuncts) {
    List<int[]> out = new ArrayList<>();
    for (RexNode c : conjuncts) {
      if (c.getKind() == SqlKind.EQUALS && ((RexCall) c).getOperands().get(0) instanceof RexInputRef a
          && ((RexCall) c).getOperands().get(1) instanceof RexInputRef b) {
        out.add(new int[] {a.getIndex(), b.getIndex()});
      }
    }
    return out;
  }

  /**
   * This join's rows filtered by {@code condition}: its equalities join too where no input is NULL-extended (a cross
   * product under a filter of keys is a join on them); an outer join keeps its own.
   */
  SpillwayJoinGraph withConditions(RexNode condition) {
    if (nullExtended.contains(true)) {
      return this;
    }
    List<int[]> all = new ArrayList<>(equalities);
    all.addAll(equalities(RelOptUtil.conjunctions(condition)));
    return new SpillwayJoinGraph(inputs, nullExtended, all);
  }

  /** At most how many rows the join returns. */
  double maxRows(SpillwayRowBounds bounds) {
    double best = Double.POSITIVE_INFINITY;
    for (int root = 0; root < inputs.size(); root++) {
      if (!nullExtended.get(root)) {
        best = Math.min(best, bounds.maxRows(inputs.get(root)) * rowsPerRootRow(bounds, root));
      }
    }
    return best;
  }

  /**
   * At most how many rows share one value of the key fields: for the keys of one input, their multiplicity there
   * times the rows each of its rows becomes; the smallest over the inputs that hold key fields.
   */
  double multiplicity(SpillwayRowBounds bounds, List<Integer> keys) {
    int[] offsets = offsets();
    double best = Double.POSITIVE_INFINITY;
    for (int i = 0; i < inputs.size(); i++) {
      List<Integer> own = new ArrayList<>();
      for (int k : keys) {
        if (k >= offsets[i] && k < offsets[i + 1]) {
          own.add(k - offsets[i]);
        }
      }
      if (!own.isEmpty()) {
        best = Math.min(best, bounds.multiplicity(inputs.get(i), own) * rowsPerRootRow(bounds, i));
      }
    }
    return best;
  }

  /** The rows one row of input {@code root} becomes at most: the product of the matches of the inputs joined to it. */
  private double rowsPerRootRow(SpillwayRowBounds bounds, int root) {
    int n = inputs.size();
    int[] offsets = offsets();
    boolean[] joined = new boolean[n];
    joined[root] = true;
    double product = 1;
    for (int added = 1; added < n; added++) {
      int next = -1;
      double matches = Double.POSITIVE_INFINITY;
      for (int j = 0; j < n; j++) {
        if (!joined[j]) {
          double m = Math.min(bounds.maxRows(inputs.get(j)),
              bounds.multiplicity(inputs.get(j), keysOf(j, joined, offsets)));
          if (next < 0 || m < matches) {
            next = j;
            matches = m;
          }
        }
      }
      joined[next] = true;
      product *= Math.max(1, matches);
    }
    return product;
  }

  /** The fields of input {@code j} (in its own numbering) that an equality ties to a joined input. */
  private List<Integer> keysOf(int j, boolean[] joined, int[] offsets) {
    List<Integer> keys = new ArrayList<>();
    for (int[] e : equalities) {
      for (int side = 0; side < 2; side++) {
        int mine = e[side];
        if (mine >= offsets[j] && mine < offsets[j + 1] && joined[inputOf(e[1 - side], offsets)]
            && !keys.contains(mine - offsets[j])) {
          keys.add(mine - offsets[j]);
        }
      }
    }
    keys.sort(null);
    return keys;
  }

  private int[] offsets() {
    int[] offsets = new int[inputs.size() + 1];
    for (int i = 0; i < inputs.size(); i++) {
      offsets[i + 1] = offsets[i] + inputs.get(i).getRowType().getFieldCount();
    }
    return offsets;
  }

  private static int inputOf(int field, int[] offsets) {
    int i = 0;
    while (i + 1 < offsets.length - 1 && field >= offsets[i + 1]) {
      i++;
    }
    return i;
  }
}
