package org.spillway.gpu.pipeline;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.spillway.gpu.vector.ColumnVector;
import org.spillway.gpu.vector.ExprType;

/**
 * A column's values at some rows of batches laid end to end, gathered from each batch in place: a one-off read of
 * a few rows (the top-N of a sort, the rows a mark join keeps) need not copy the whole column into one vector first.
 */
public final class BatchGather {
  private BatchGather() {}

  /**
   * Column {@code c} (of {@code type}) at rows {@code ids[0 .. count-1]} (valid row numbers, in any order) of the
   * batches laid end to end, in that order: each batch gathers its rows, the parts are concatenated, and, unless the
   * ids ascend, one more gather puts them in the order asked.
   */
  public static ColumnVector gather(List<ColumnBatch> batches, int c, ExprType type, int[] ids, int count) {
    int[] starts = new int[batches.size() + 1];
    for (int b = 0; b < batches.size(); b++) {
      starts[b + 1] = starts[b] + batches.get(b).rows();
    }
    int[] batchOf = new int[count];
    int[] perBatch = new int[batches.size()];
    boolean ascending = true;
    for (int i = 0; i < count; i++) {
      ascending &= i == 0 || ids[i - 1] <= ids[i];
      int b = Arrays.binarySearch(starts, ids[i]);
      b = b >= 0 ? b : -b - 2;
      while (starts[b + 1] <= ids[i]) {
        b++;  // past empty batches
      }
      batchOf[i] = b;
      perBatch[b]++;
    }
    int[][] rows = new int[batches.size()][];
    int[] partStart = new int[batches.size()];
    for (int b = 0, at = 0; b < batches.size(); at += perBatch[b], b++) {
      rows[b] = new int[perBatch[b]];
      partStart[b] = at;
    }
    int[] filled = new int[batches.size()];
    int[] order = ascending ? null : new int[count];
    for (int i = 0; i < count; i++) {
      int b = batchOf[i];
      if (order != null) {
        order[i] = partStart[b] + filled[b];
      }
      rows[b][filled[b]++] = ids[i] - starts[b];
    }
    List<ColumnVector> parts = new ArrayList<>();
    for (int b = 0; b < batches.size(); b++) {
      if (perBatch[b] > 0) {
        parts.add(batches.get(b).columns()[c].gather(rows[b], perBatch[b]));
      }
    }
    if (parts.isEmpty()) {
      return ColumnVector.constant(type, null, 0);
    }
    ColumnVector laid = parts.size() == 1 ? parts.get(0) : ColumnVector.concat(type, parts);
    return order == null ? laid : laid.gather(order, count);
  }
}
