package org.spillway.gpu.plan;

import org.spillway.gpu.pipeline.ColumnBatch;
import org.spillway.gpu.vector.ColumnVector;
import org.spillway.gpu.vector.ExprType;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;

/** Columns a pipeline computed, as its batches; a column is laid end to end over the batches when read whole. */
public final class BatchOutput implements NodeOutput {
  private final List<ColumnBatch> batches;
  private final List<ExprType> types;
  private final int rows;
  private final ColumnVector[] whole;

  public BatchOutput(List<ColumnBatch> batches, List<ExprType> types) {
    this.batches = List.copyOf(batches);
    this.types = List.copyOf(types);
    long total = 0;
    for (ColumnBatch b : batches) {
      total += b.rows();
    }
    if (total > Integer.MAX_VALUE - 8) {
      throw new IllegalStateException("a pipeline output of " + total + " rows does not fit one column vector");
    }
    this.rows = (int) total;
    this.whole = new ColumnVector[types.size()];
  }

  @Override public int rows() {
    return rows;
  }

  @Override public List<ExprType> types() {
    return types;
  }

  @Override public synchronized ColumnVector column(int c) {
    if (whole[c] == null) {
      List<ColumnVector> parts = new ArrayList<>();
      for (ColumnBatch b : batches) {
        parts.add(b.columns()[c].slice(0, b.rows()));
      }
      whole[c] = parts.isEmpty() ? ColumnVector.constant(types.get(c), null, 0)
          : ColumnVector.concat(types.get(c), parts);
    }
    return whole[c];
  }

  @Override public ColumnVector gather(int c, int[] ids, int count) {
    return column(c).gatherOrNull(ids, count);
  }

  @Override public List<ColumnBatch> batches() {
    return batches;
  }

  /** The batches as computed: their columns exist already, so leaving some out would save nothing. */
  @Override public List<ColumnBatch> batches(BitSet read) {
    return batches;
  }
}
