package org.spillway.gpu.plan;

import org.spillway.gpu.device.HostCopy;
import org.spillway.gpu.pipeline.BatchGather;
import org.spillway.gpu.pipeline.ColumnBatch;
import org.spillway.gpu.vector.ColumnVector;
import org.spillway.gpu.vector.ExprType;

import java.util.ArrayList;
import java.util.Arrays;
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

  /**
   * Writes a column of long values without NULLs straight from its batches into native memory (a GPU build side's
   * upload), so that it is not first laid end to end in a Java array; null where a batch holds NULLs or other values.
   */
  @Override public LongWriter longWriter(int c) {
    int[] starts = new int[batches.size() + 1];
    for (int b = 0; b < batches.size(); b++) {
      ColumnVector v = batches.get(b).columns()[c];
      if (v.longs == null || v.nulls != null) {
        return null;
      }
      starts[b + 1] = starts[b] + batches.get(b).rows();
    }
    return (from, n, address) -> {
      int b = Arrays.binarySearch(starts, from);
      b = b >= 0 ? b : -b - 2;
      for (int done = 0; done < n; b++) {
        int at = from + done;
        if (at >= starts[b + 1]) {
          continue;  // an empty batch
        }
        int length = Math.min(n - done, starts[b + 1] - at);
        HostCopy.put(address + done * 8L, batches.get(b).columns()[c].longs, at - starts[b], length);
        done += length;
      }
    };
  }

  @Override public ColumnVector gather(int c, int[] ids, int count) {
    return column(c).gatherOrNull(ids, count);
  }

  /** Gathered from the batches in place, unless the column is laid out already or is one batch. */
  @Override public ColumnVector gatherOnce(int c, int[] ids, int count) {
    synchronized (this) {
      if (whole[c] != null || batches.size() <= 1) {
        return column(c).gatherOrNull(ids, count);
      }
    }
    return BatchGather.gather(batches, c, types.get(c), ids, count);
  }

  @Override public List<ColumnBatch> batches() {
    return batches;
  }

  /** The batches as computed: their columns exist already, so leaving some out would save nothing. */
  @Override public List<ColumnBatch> batches(BitSet read) {
    return batches;
  }
}
