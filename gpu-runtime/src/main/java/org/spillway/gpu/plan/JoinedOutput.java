package org.spillway.gpu.plan;

import org.spillway.gpu.device.MemoryGuard;
import org.spillway.gpu.vector.ColumnVector;
import org.spillway.gpu.vector.ExprType;

import java.util.ArrayList;
import java.util.List;

/**
 * A join's output, kept as row ids into its two inputs: the left input's columns, then (unless it is a semi-
 * or anti-join) the right input's. Reading a column gathers it from its input at the paired row ids, so a
 * column passed through several joins is read from its table once, at the composed row ids; row id -1 (the
 * missing side of an outer join's unmatched row) reads as NULL.
 */
public final class JoinedOutput implements NodeOutput {
  private final NodeOutput left;
  private final NodeOutput right;
  private final int[] leftRows;
  private final int[] rightRows;
  private final List<ExprType> types;

  /** {@code right} and {@code rightRows} are null for a semi- or anti-join. */
  public JoinedOutput(NodeOutput left, NodeOutput right, int[] leftRows, int[] rightRows) {
    this.left = left;
    this.right = right;
    this.leftRows = leftRows;
    this.rightRows = rightRows;
    List<ExprType> all = new ArrayList<>(left.types());
    if (right != null) {
      all.addAll(right.types());
    }
    this.types = List.copyOf(all);
  }

  @Override public int rows() {
    return leftRows.length;
  }

  @Override public List<ExprType> types() {
    return types;
  }

  @Override public ColumnVector column(int c) {
    int leftColumns = left.types().size();
    requireMemory(c, leftRows.length);
    return c < leftColumns ? left.gather(c, leftRows, leftRows.length)
        : right.gather(c - leftColumns, rightRows, rightRows.length);
  }

  /** A gathered value takes its 8-byte lane (or reference) and a null flag. */
  private void requireMemory(int c, int count) {
    MemoryGuard.require(count * (Long.BYTES + 1L),
        () -> "gathering column " + c + " (" + types.get(c) + ") of a join's output at " + count + " rows");
  }

  @Override public ColumnVector gather(int c, int[] ids, int count) {
    requireMemory(c, count);
    int leftColumns = left.types().size();
    boolean fromLeft = c < leftColumns;
    int[] sideRows = fromLeft ? leftRows : rightRows;
    int[] composed = new int[count];
    for (int i = 0; i < count; i++) {
      composed[i] = ids[i] < 0 ? -1 : sideRows[ids[i]];
    }
    return fromLeft ? left.gather(c, composed, count) : right.gather(c - leftColumns, composed, count);
  }
}
