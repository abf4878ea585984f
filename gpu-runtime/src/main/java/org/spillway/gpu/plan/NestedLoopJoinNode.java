package org.spillway.gpu.plan;

import org.spillway.gpu.vector.ColumnVector;
import org.spillway.gpu.expr.Expr;
import org.spillway.gpu.vector.ExprType;
import org.spillway.gpu.expr.VectorEvaluator;
import org.spillway.gpu.pipeline.scheduler.MorselScheduler;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/**
 * A nested-loop join for a non-equi condition against a small side: the big side in morsels on all cores; per morsel, the
 * condition is evaluated once per row of the small side, over the morsel's columns and that row's values
 * broadcast to the morsel's length. The output is the paired row ids (late materialization, as a hash join's).
 * A small side of at most one row (a scalar subquery's) runs first, and its row narrows the big side where the
 * condition allows ({@link ScalarSideFilter}).
 */
public final class NestedLoopJoinNode implements PlanNode {
  private final PlanNode left;
  private final PlanNode right;
  private final Expr condition;
  /** The columns of the join's output that the condition reads. */
  private final int[] read;
  /** A LEFT join: big left rows that match no small right row come out once, with NULLs. */
  private final boolean leftOuter;
  private final boolean smallLeft;
  private final List<ExprType> types;

  public NestedLoopJoinNode(PlanNode left, PlanNode right, Expr condition, int[] read, boolean leftOuter,
      boolean smallLeft) {
    if (leftOuter && smallLeft) {
      throw new IllegalArgumentException("a LEFT nested-loop join keeps its big left side; the small side is the right");
    }
    this.left = left;
    this.right = right;
    this.condition = condition;
    this.read = read.clone();
    this.leftOuter = leftOuter;
    this.smallLeft = smallLeft;
    List<ExprType> all = new ArrayList<>(left.types());
    all.addAll(right.types());
    this.types = List.copyOf(all);
  }

  @Override public List<ExprType> types() {
    return types;
  }

  @Override public boolean cpuOnly() {
    return left.cpuOnly() && right.cpuOnly();
  }

  @Override public NodeOutput run(RunContext context) {
    NodeOutput leftColumns;
    NodeOutput rightColumns;
    if (!leftOuter && !smallLeft && right.atMostOneRow()) {
      // the small side's one row first: it narrows the big side, whose GPU aggregate then brings back fewer groups
      rightColumns = right.run(context);
      Optional<Expr> filter = rightColumns.rows() == 1
          ? ScalarSideFilter.of(condition, left.types().size(), rightColumns) : Optional.empty();
      Optional<PlanNode> narrowed = filter.flatMap(left::filteredBy);
      RunContext.trace("nested-loop join: the small side's row %s", narrowed.isPresent()
          ? "filters the big side by " + filter.get() : "filters nothing of the big side");
      leftColumns = narrowed.orElse(left).run(context);
    } else {
      List<NodeOutput> inputs = IndependentRuns.run(context, IndependentRuns.sideBySide(List.of(left, right)),
          List.of(() -> left.run(context), () -> right.run(context)));
      leftColumns = inputs.get(0);
      rightColumns = inputs.get(1);
    }
    context.checkCancelled("before a nested-loop join");
    long start = System.nanoTime();
    NodeOutput big = smallLeft ? rightColumns : leftColumns;
    NodeOutput small = smallLeft ? leftColumns : rightColumns;
    int leftCount = left.types().size();
    // whole columns of what the condition reads, each side's own numbering
    ColumnVector[] bigColumns = new ColumnVector[big.types().size()];
    ColumnVector[] smallColumns = new ColumnVector[small.types().size()];
    for (int c : read) {
      boolean fromLeft = c < leftCount;
      int own = fromLeft ? c : c - leftCount;
      if (fromLeft == smallLeft) {
        smallColumns[own] = small.column(own);
      } else {
        bigColumns[own] = big.column(own);
      }
    }
    int morselRows = MorselScheduler.MORSEL_ROWS;
    int morsels = (big.rows() + morselRows - 1) / morselRows;
    int[][][] pairs = new int[morsels][][];
    // on the engine's workers (not the common fork-join pool), as many as the query may use
    MorselScheduler.forEach(morsels, context.threads(), context.cancelled(), (worker, m) -> {
      int offset = m * morselRows;
      pairs[m] = pairs(bigColumns, smallColumns, small.rows(), offset, Math.min(morselRows, big.rows() - offset),
          leftCount);
    });
    int total = 0;
    for (int[][] p : pairs) {
      total += p[0].length;
    }
    int[] bigIds = new int[total];
    int[] smallIds = new int[total];
    int at = 0;
    for (int[][] p : pairs) {
      System.arraycopy(p[0], 0, bigIds, at, p[0].length);
      System.arraycopy(p[1], 0, smallIds, at, p[1].length);
      at += p[0].length;
    }
    RunContext.trace("cpu nested-loop join (%d x %d rows): %.1f ms", big.rows(), small.rows(),
        (System.nanoTime() - start) / 1e6);
    context.report(this, OperatorReport.Execution.CPU, total, start);
    return smallLeft ? new JoinedOutput(leftColumns, rightColumns, smallIds, bigIds)
        : new JoinedOutput(leftColumns, rightColumns, bigIds, smallIds);
  }

  /** The matching pairs of big rows {@code offset .. offset + rows - 1}: big ids, then small ids (-1: none). */
  private int[][] pairs(ColumnVector[] bigColumns, ColumnVector[] smallColumns, int smallRows, int offset, int rows,
      int leftCount) {
    ColumnVector[] bigMorsel = new ColumnVector[bigColumns.length];
    for (int c = 0; c < bigColumns.length; c++) {
      bigMorsel[c] = bigColumns[c] == null ? null : bigColumns[c].slice(offset, rows);
    }
    int[] broadcast = new int[rows];
    int[] positions = new int[rows + 1];
    boolean[] matched = leftOuter ? new boolean[rows] : null;
    IntList bigIds = new IntList();
    IntList smallIds = new IntList();
    for (int s = 0; s < smallRows; s++) {
      Arrays.fill(broadcast, s);
      ColumnVector[] smallRow = new ColumnVector[smallColumns.length];
      for (int c = 0; c < smallColumns.length; c++) {
        smallRow[c] = smallColumns[c] == null ? null : smallColumns[c].gather(broadcast, rows);
      }
      ColumnVector predicate = VectorEvaluator.evaluate(condition, c -> {
        boolean fromLeft = c < leftCount;
        int own = fromLeft ? c : c - leftCount;
        return fromLeft == smallLeft ? smallRow[own] : bigMorsel[own];
      }, rows);
      int count = VectorEvaluator.selectTrue(predicate, positions);
      for (int i = 0; i < count; i++) {
        bigIds.add(offset + positions[i]);
        smallIds.add(s);
        if (matched != null) {
          matched[positions[i]] = true;
        }
      }
    }
    if (matched != null) {
      for (int i = 0; i < rows; i++) {
        if (!matched[i]) {
          bigIds.add(offset + i);
          smallIds.add(-1);
        }
      }
    }
    return new int[][] {bigIds.toArray(), smallIds.toArray()};
  }

  /** A growing array of ints. */
  private static final class IntList {
    private int[] values = new int[16];
    private int size;

    void add(int value) {
      if (size == values.length) {
        values = Arrays.copyOf(values, size * 2);
      }
      values[size++] = value;
    }

    int[] toArray() {
      return Arrays.copyOf(values, size);
    }
  }
}
