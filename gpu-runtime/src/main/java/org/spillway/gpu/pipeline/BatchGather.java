package org.spillway.gpu.pipeline;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.IntStream;
import org.spillway.gpu.vector.ColumnVector;
import org.spillway.gpu.vector.ExprType;

/**
 * A column's values at some rows of batches laid end to end, gathered from each batch in place: a one-off read of
 * a few rows (the top-N of a sort, the rows a mark join keeps) need not copy the whole column into one vector first.
 */
public final class BatchGather {
  /** Ids from which the batches copy in parallel. */
  static final int PARALLEL_IDS = 1 << 16;

  private BatchGather() {}

  /**
   * Column {@code c} (of {@code type}) at rows {@code ids[0 .. count-1]} (valid row numbers, in any order) of the
   * batches laid end to end, in that order. Ascending ids copy straight from each batch into the result
   * ({@link #gatherAscending}); others are grouped by batch, each batch gathers its rows, the parts are
   * concatenated, and one more gather puts them in the order asked.
   */
  public static ColumnVector gather(List<ColumnBatch> batches, int c, ExprType type, int[] ids, int count) {
    int[] starts = new int[batches.size() + 1];
    for (int b = 0; b < batches.size(); b++) {
      starts[b + 1] = starts[b] + batches.get(b).rows();
    }
    if (ascending(ids, count) && sameType(batches, c, type)) {
      return gatherAscending(batches, c, type, ids, count, starts);
    }
    int[] batchOf = new int[count];
    int[] perBatch = new int[batches.size()];
    for (int i = 0; i < count; i++) {
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
    int[] order = new int[count];
    for (int i = 0; i < count; i++) {
      int b = batchOf[i];
      order[i] = partStart[b] + filled[b];
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
    return laid.gather(order, count);
  }

  /**
   * Ascending ids (a mark join's kept build rows, the usual case): each batch's ids are one run of them and its
   * values one range of the result, so the batches copy straight into the result, in parallel when there are many,
   * with no search per id and no concatenation.
   */
  private static ColumnVector gatherAscending(List<ColumnBatch> batches, int c, ExprType type, int[] ids, int count,
      int[] starts) {
    int[] first = new int[batches.size() + 1];  // batch b's ids are ids[first[b] .. first[b + 1] - 1]
    boolean anyNull = false;
    for (int i = 0, b = 0; b < batches.size(); b++) {
      first[b] = i;
      while (i < count && ids[i] < starts[b + 1]) {
        i++;
      }
      anyNull |= batches.get(b).columns()[c].nulls != null;
    }
    first[batches.size()] = count;
    long[] l = type.isLong() ? new long[count] : null;
    double[] d = type.kind() == ExprType.Kind.FLOAT64 ? new double[count] : null;
    Object[] o = type.isObject() ? new Object[count] : null;
    boolean[] nulls = anyNull ? new boolean[count] : null;
    IntStream copies = IntStream.range(0, batches.size());
    (count >= PARALLEL_IDS ? copies.parallel() : copies).forEach(b -> {
      ColumnVector v = batches.get(b).columns()[c];
      int start = starts[b];
      for (int i = first[b], end = first[b + 1]; i < end; i++) {
        int r = ids[i] - start;
        if (v.nulls != null && v.nulls[r]) {
          nulls[i] = true;
        } else if (l != null) {
          l[i] = v.longs[r];
        } else if (d != null) {
          d[i] = v.doubles[r];
        } else {
          o[i] = v.objects[r];
        }
      }
    });
    boolean flagged = false;
    for (int i = 0; nulls != null && i < count && !flagged; i++) {
      flagged = nulls[i];
    }
    return l != null ? ColumnVector.ofLongs(type, l, flagged ? nulls : null, count)
        : d != null ? ColumnVector.ofDoubles(d, flagged ? nulls : null, count)
        : ColumnVector.ofObjects(type, o, flagged ? nulls : null, count);
  }

  /** Whether column {@code c} of every batch is of {@code type}, so that its lanes are the result's. */
  private static boolean sameType(List<ColumnBatch> batches, int c, ExprType type) {
    for (ColumnBatch b : batches) {
      if (!b.columns()[c].type.equals(type)) {
        return false;
      }
    }
    return true;
  }

  private static boolean ascending(int[] ids, int count) {
    for (int i = 1; i < count; i++) {
      if (ids[i - 1] > ids[i]) {
        return false;
      }
    }
    return true;
  }
}
