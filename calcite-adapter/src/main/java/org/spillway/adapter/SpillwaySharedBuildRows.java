package org.spillway.adapter;

import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.calcite.plan.RelOptUtil;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.core.JoinRelType;
import org.apache.calcite.rex.RexInputRef;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.rex.RexShuttle;
import org.apache.calcite.tools.Program;
import org.apache.calcite.util.ImmutableBitSet;
import org.spillway.adapter.SpillwaySharedSemiJoins.TableChain;

/**
 * Lets a semi or anti join build on rows that another join of the plan takes as an input anyway, after Volcano chose
 * the plan: where the join's right input filters a table ({@link TableChain}), and another join's input filters the
 * same table by the same conditions and holds every column the semi join reads, the semi join reads that input. The
 * implementor runs an input that two joins hold once ({@code SpillwayRel.Implementor#child}), so the table is filtered
 * once.
 *
 * <p>TPC-H Q2: the parts of one size and type are the build side of the join with {@code partsupp} (key and
 * manufacturer) and, as keys alone, the build side of the magic set's semi join over {@code partsupp} ({@link
 * SpillwayMagicSetRule}); each filtered all of {@code part}, one after the other.
 *
 * <p>A semi or anti join's rows are its left input's, so a wider right input changes neither its rows nor its type;
 * the right columns its condition reads are remapped to the same table columns of the shared input. The conditions
 * are the same set, so both inputs keep the same table rows (a distinct grouping of the right side changes nothing a
 * semi or anti join keeps). Only filtered inputs are shared: a bare scan is read where it is needed without a pass of
 * its own.
 */
final class SpillwaySharedBuildRows {
  private SpillwaySharedBuildRows() {}

  /** The program step that rewrites the physical plan. */
  static Program program() {
    return (planner, rel, traits, materializations, lattices) -> share(rel);
  }

  /** {@code root} with every semi and anti join that can build on another join's filtered input building on it. */
  static RelNode share(RelNode root) {
    List<Input> inputs = new ArrayList<>();
    collectInputs(root, inputs, Collections.newSetFromMap(new IdentityHashMap<>()));
    // the widest first, then by text: every semi join that two inputs could serve picks the same one, so that two
    // semi joins never trade their inputs and still filter twice
    inputs.sort(Comparator.comparingInt((Input input) -> -input.chain().columns().size()).thenComparing(Input::text));
    return inputs.isEmpty() ? root : rewrite(root, inputs, new IdentityHashMap<>());
  }

  /** A join's input that filters one table, with its text and its columns as the table's. */
  private record Input(RelNode rel, String text, TableChain chain) {}

  private static void collectInputs(RelNode rel, List<Input> out, Set<RelNode> seen) {
    if (!seen.add(rel)) {
      return;
    }
    if (rel instanceof SpillwayJoin join) {
      for (RelNode input : join.getInputs()) {
        TableChain chain = TableChain.of(input);
        if (chain != null && !chain.conditions().isEmpty()) {
          out.add(new Input(input, SpillwayJoin.subtreeText(input), chain));
        }
      }
    }
    for (RelNode input : rel.getInputs()) {
      collectInputs(input, out, seen);
    }
  }

  /** {@code rel} rewritten, its inputs first; a node the tree holds twice is rewritten once (the same copy). */
  private static RelNode rewrite(RelNode rel, List<Input> inputs, Map<RelNode, RelNode> done) {
    RelNode known = done.get(rel);
    if (known != null) {
      return known;
    }
    List<RelNode> rewritten = new ArrayList<>();
    boolean changed = false;
    for (RelNode input : rel.getInputs()) {
      RelNode next = rewrite(input, inputs, done);
      changed |= next != input;
      rewritten.add(next);
    }
    RelNode node = changed ? rel.copy(rel.getTraitSet(), rewritten) : rel;
    if (node instanceof SpillwayJoin join
        && (join.getJoinType() == JoinRelType.SEMI || join.getJoinType() == JoinRelType.ANTI)) {
      RelNode shared = buildOnShared(join, inputs);
      node = shared != null ? shared : node;
    }
    done.put(rel, node);
    return node;
  }

  /**
   * {@code join} reading the first of {@code inputs} with its right input's rows and the columns it reads, or null
   * where none has them or the first is the join's own right input.
   */
  private static RelNode buildOnShared(SpillwayJoin join, List<Input> inputs) {
    TableChain right = TableChain.of(join.getRight());
    if (right == null) {
      return null;
    }
    String rightText = SpillwayJoin.subtreeText(join.getRight());
    int leftColumns = join.getLeft().getRowType().getFieldCount();
    ImmutableBitSet read = RelOptUtil.InputFinder.bits(join.getCondition());
    for (Input input : inputs) {
      if (!input.chain().scan().getTable().getQualifiedName().equals(right.scan().getTable().getQualifiedName())
          || !input.chain().conditions().equals(right.conditions())) {
        continue;
      }
      int[] at = new int[right.columns().size()];
      boolean found = true;
      for (int c = read.nextSetBit(leftColumns); c >= 0 && found; c = read.nextSetBit(c + 1)) {
        int column = right.tableColumn(c - leftColumns);
        at[c - leftColumns] = column < 0 ? -1 : input.chain().columnOf(column);
        found = at[c - leftColumns] >= 0;
      }
      if (!found) {
        continue;
      }
      if (input.text().equals(rightText)) {
        return null;
      }
      RelNode rows = input.rel();
      RexNode condition = join.getCondition().accept(new RexShuttle() {
        @Override public RexNode visitInputRef(RexInputRef ref) {
          if (ref.getIndex() < leftColumns) {
            return ref;
          }
          int c = at[ref.getIndex() - leftColumns];
          return new RexInputRef(leftColumns + c, rows.getRowType().getFieldList().get(c).getType());
        }
      });
      return join.copy(join.getTraitSet(), condition, join.getLeft(), rows, join.getJoinType(), false);
    }
    return null;
  }
}
