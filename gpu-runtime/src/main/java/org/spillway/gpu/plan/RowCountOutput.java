package org.spillway.gpu.plan;

import org.spillway.gpu.pipeline.ColumnBatch;
import org.spillway.gpu.vector.ColumnVector;
import org.spillway.gpu.vector.ExprType;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;

/**
 * The output of a node that only counted its rows because its consumer reads none of its columns (see
 * {@link PlanNode#run(RunContext, BitSet)}): batches of that many rows whose columns are all absent.
 */
final class RowCountOutput implements NodeOutput {
  /** Rows per batch, so that a count beyond one Java array still runs. */
  static final int BATCH_ROWS = 1 << 30;

  private final long rows;
  private final List<ExprType> types;

  RowCountOutput(long rows, List<ExprType> types) {
    this.rows = rows;
    this.types = List.copyOf(types);
  }

  @Override public int rows() {
    if (rows > Integer.MAX_VALUE) {
      throw new IllegalStateException(rows + " rows counted; read them as batches");
    }
    return (int) rows;
  }

  @Override public List<ExprType> types() {
    return types;
  }

  @Override public ColumnVector column(int c) {
    throw new IllegalStateException("column " + c + " was not computed: only the rows were counted");
  }

  @Override public ColumnVector gather(int c, int[] ids, int count) {
    return column(c);
  }

  @Override public List<ColumnBatch> batches(BitSet read) {
    if (!read.isEmpty()) {
      column(read.nextSetBit(0));
    }
    List<ColumnBatch> out = new ArrayList<>();
    for (long done = 0; done < rows; done += BATCH_ROWS) {
      out.add(new ColumnBatch(new ColumnVector[types.size()], (int) Math.min(BATCH_ROWS, rows - done)));
    }
    return out;
  }
}
