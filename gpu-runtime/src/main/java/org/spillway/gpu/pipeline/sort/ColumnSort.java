package org.spillway.gpu.pipeline.sort;

import org.spillway.gpu.pipeline.BatchGather;
import org.spillway.gpu.pipeline.ColumnBatch;
import org.spillway.gpu.vector.ColumnVector;
import org.spillway.gpu.vector.ExprType;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.function.BooleanSupplier;
import java.util.stream.IntStream;

/**
 * The sort sink of a pipeline (ORDER BY, LIMIT and OFFSET): orders the rows of columnar batches by several keys
 * into a permutation of row ids, then gathers every column once at the ids of the rows kept. Large inputs are
 * split among workers, each of which sorts its rows into a run (a merge sort; with a fetch, a bounded heap of the
 * best {@code offset + fetch} rows, the top-N), and the runs are merged pairwise; small inputs are sorted on one
 * thread, and inputs of up to {@link #RADIX_ROWS} rows with one key of the long lane by a radix sort
 * ({@link RadixOrder}), as are those whose keys pack into one word per row ({@link NormalizedKeys}) where most rows
 * are kept. Ties keep the input order (the comparator's last key is the row id), so the result does not depend on
 * the number of workers.
 */
public final class ColumnSort {
  /** Rows below which one thread sorts: splitting would cost more than it saves. */
  static final int PARALLEL_ROWS = 1 << 13;
  /** Rows up to which a sort by one key of the long lane is a radix sort on one thread ({@link RadixOrder}). */
  static final int RADIX_ROWS = 1 << 17;
  /** Runs shorter than this are sorted by insertion. */
  private static final int INSERTION_ROWS = 24;

  private final List<ExprType> types;
  private final List<SortKey> keys;
  private final long offset;
  private final long fetch;

  /**
   * A sort of rows of the given column types by {@code keys} (none: the rows keep their order), that skips
   * {@code offset} rows and then keeps {@code fetch} (negative: all the rest).
   */
  public ColumnSort(List<ExprType> types, List<SortKey> keys, long offset, long fetch) {
    this.types = List.copyOf(types);
    this.keys = List.copyOf(keys);
    if (offset < 0) {
      throw new IllegalArgumentException("OFFSET " + offset + " is negative");
    }
    for (SortKey key : this.keys) {
      if (key.column() >= this.types.size()) {
        throw new IllegalArgumentException("sort key " + key + " outside the input's " + this.types.size()
            + " columns");
      }
    }
    this.offset = offset;
    this.fetch = fetch;
  }

  public List<ExprType> types() {
    return types;
  }

  /** The sorted rows of the batches, as one batch (none when no row is kept). */
  public List<ColumnBatch> run(List<ColumnBatch> batches, int threads, BooleanSupplier cancelled) {
    return run(batches, threads, cancelled, new long[PHASES]);
  }

  /**
   * How many phases {@link #run(List, int, BooleanSupplier, long[])} times: laying out, preparing the keys, ordering,
   * gathering.
   */
  public static final int PHASES = 4;

  /**
   * As {@link #run(List, int, BooleanSupplier)}, adding to {@code phaseNanos} the time it spent laying the columns
   * end to end, preparing the keys for comparison, ordering the rows and gathering the rows kept (a trace tells where
   * a slow sort's time went).
   */
  public List<ColumnBatch> run(List<ColumnBatch> batches, int threads, BooleanSupplier cancelled,
      long[] phaseNanos) {
    long start = System.nanoTime();
    long total = 0;
    for (ColumnBatch b : batches) {
      total += b.rows();
    }
    if (total > Integer.MAX_VALUE - 8) {
      throw new IllegalArgumentException("a sort of " + total + " rows does not fit one column vector");
    }
    int n = (int) total;
    int limit = (int) Math.min(n, fetch < 0 ? n : Math.min((long) n, offset + fetch));
    if (offset >= limit) {
      return List.of();
    }
    // A top-N of many rows lays only its key columns end to end; the others are read at the rows it keeps (Q10's
    // text columns over every customer group, for 20 rows).
    boolean few = (long) limit * 8 < n;
    ColumnVector[] columns = new ColumnVector[types.size()];
    for (int c = 0; c < columns.length; c++) {
      columns[c] = few && !isKey(c) ? null : whole(batches, c);
    }
    long laid = System.nanoTime();
    RowComparator comparator = keys.isEmpty() ? null : new RowComparator(columns, keys);
    long prepared = System.nanoTime();
    int[] ids = keys.isEmpty() ? identity(limit) : order(comparator, n, limit, threads, cancelled);
    long ordered = System.nanoTime();
    int from = (int) offset;
    int count = limit - from;
    int[] kept = new int[count];
    System.arraycopy(ids, from, kept, 0, count);
    ColumnVector[] out = new ColumnVector[columns.length];
    for (int c = 0; c < out.length; c++) {
      out[c] = columns[c] != null ? columns[c].gather(kept, count) : gatherAcross(batches, c, kept, count);
    }
    phaseNanos[0] += laid - start;
    phaseNanos[1] += prepared - laid;
    phaseNanos[2] += ordered - prepared;
    phaseNanos[3] += System.nanoTime() - ordered;
    return List.of(new ColumnBatch(out, count));
  }

  private boolean isKey(int column) {
    for (SortKey key : keys) {
      if (key.column() == column) {
        return true;
      }
    }
    return false;
  }

  /** Column {@code c} at rows {@code ids[0 .. count-1]} of the batches laid end to end, in that order. */
  private ColumnVector gatherAcross(List<ColumnBatch> batches, int c, int[] ids, int count) {
    return BatchGather.gather(batches, c, types.get(c), ids, count);
  }

  /** The ids of the first {@code limit} rows in sorted order. */
  int[] order(RowComparator comparator, int n, int limit, int threads, BooleanSupplier cancelled) {
    if (keys.size() == 1 && n <= RADIX_ROWS && RadixOrder.sorts(comparator.keyColumn(0))) {
      int[] all = RadixOrder.order(comparator.keyColumn(0), keys.get(0), n);
      return limit < n ? Arrays.copyOf(all, limit) : all;
    }
    long[] words = n <= RADIX_ROWS && (long) limit * 8 >= n ? NormalizedKeys.words(comparator, keys, n) : null;
    if (words != null) {
      int[] all = RadixOrder.orderWords(words, n);
      return limit < n ? Arrays.copyOf(all, limit) : all;
    }
    int workers = n < PARALLEL_ROWS ? 1 : Math.max(1, Math.min(threads, n / (PARALLEL_ROWS / 2)));
    int[][] runs = new int[workers][];
    IntStream parts = IntStream.range(0, workers);
    (workers > 1 ? parts.parallel() : parts).forEach(w -> {
      checkCancelled(cancelled);
      int from = (int) ((long) n * w / workers);
      int to = (int) ((long) n * (w + 1) / workers);
      runs[w] = sortedRun(comparator, from, to, limit);
    });
    List<int[]> level = List.of(runs);
    while (level.size() > 1) {
      checkCancelled(cancelled);
      List<int[]> current = level;
      int pairs = current.size() / 2;
      int[][] merged = new int[(current.size() + 1) / 2][];
      IntStream.range(0, merged.length).parallel().forEach(p -> merged[p] = p < pairs
          ? merge(comparator, current.get(2 * p), current.get(2 * p + 1), limit)
          : current.get(2 * p));
      level = List.of(merged);
    }
    return level.get(0);
  }

  /**
   * Rows {@code from .. to - 1} sorted, at most {@code limit} of them: a bounded heap when few rows of many are
   * kept (top-N), else a merge sort of all of them.
   */
  private static int[] sortedRun(RowComparator comparator, int from, int to, int limit) {
    int rows = to - from;
    if ((long) limit * 8 < rows) {
      return BoundedHeap.best(comparator, from, to, limit);
    }
    int[] ids = new int[rows];
    for (int i = 0; i < rows; i++) {
      ids[i] = from + i;
    }
    mergeSort(comparator, ids, new int[rows], 0, rows);
    if (limit < rows) {
      int[] best = new int[limit];
      System.arraycopy(ids, 0, best, 0, limit);
      return best;
    }
    return ids;
  }

  /** Sorts {@code ids[from .. to - 1]} (a top-down merge sort over {@code scratch}). */
  static void mergeSort(RowComparator comparator, int[] ids, int[] scratch, int from, int to) {
    if (to - from <= INSERTION_ROWS) {
      for (int i = from + 1; i < to; i++) {
        int id = ids[i];
        int j = i - 1;
        while (j >= from && comparator.compare(ids[j], id) > 0) {
          ids[j + 1] = ids[j];
          j--;
        }
        ids[j + 1] = id;
      }
      return;
    }
    int mid = (from + to) >>> 1;
    mergeSort(comparator, ids, scratch, from, mid);
    mergeSort(comparator, ids, scratch, mid, to);
    if (comparator.compare(ids[mid - 1], ids[mid]) <= 0) {
      return;  // already in order
    }
    System.arraycopy(ids, from, scratch, from, to - from);
    int a = from;
    int b = mid;
    for (int i = from; i < to; i++) {
      if (b >= to || a < mid && comparator.compare(scratch[a], scratch[b]) <= 0) {
        ids[i] = scratch[a++];
      } else {
        ids[i] = scratch[b++];
      }
    }
  }

  /** The first {@code limit} rows of two sorted runs. */
  private static int[] merge(RowComparator comparator, int[] left, int[] right, int limit) {
    int count = Math.min(limit, left.length + right.length);
    int[] out = new int[count];
    int a = 0;
    int b = 0;
    for (int i = 0; i < count; i++) {
      if (b >= right.length || a < left.length && comparator.compare(left[a], right[b]) <= 0) {
        out[i] = left[a++];
      } else {
        out[i] = right[b++];
      }
    }
    return out;
  }

  private ColumnVector whole(List<ColumnBatch> batches, int c) {
    List<ColumnVector> parts = new ArrayList<>();
    for (ColumnBatch b : batches) {
      ColumnVector column = b.columns()[c];
      if (column == null) {
        throw new IllegalArgumentException("a sort reads every column; column " + c + " is missing");
      }
      parts.add(column.slice(0, b.rows()));
    }
    return ColumnVector.concat(types.get(c), parts);
  }

  private static int[] identity(int n) {
    int[] ids = new int[n];
    for (int i = 0; i < n; i++) {
      ids[i] = i;
    }
    return ids;
  }

  private static void checkCancelled(BooleanSupplier cancelled) {
    if (cancelled.getAsBoolean()) {
      throw new CancellationException("query cancelled");
    }
  }
}
