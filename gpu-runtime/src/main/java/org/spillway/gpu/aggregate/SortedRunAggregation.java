package org.spillway.gpu.aggregate;

import org.spillway.gpu.expr.AggCall;
import org.spillway.gpu.pipeline.Morsel;
import org.spillway.gpu.pipeline.PipelineStage;
import org.spillway.gpu.pipeline.scheduler.MorselScheduler;
import org.spillway.gpu.vector.ColumnVector;
import org.spillway.gpu.vector.ExprType;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.function.UnaryOperator;

/**
 * Aggregation of an input clustered on its one group key (non-decreasing in input order, NULLs aside): the
 * sort-based aggregation of Graefe ("Query evaluation techniques for large databases", 1993) over input that is
 * sorted already, run morsel by morsel. Each morsel folds its runs of equal keys straight into an output of its own
 * (keys in order, one slot of {@link AggregateAccumulators} per run): no hashing, no table. The result concatenates
 * the morsels' outputs in morsel order ({@link Morsel#index}) and folds each morsel's first run into the previous
 * morsel's last where their keys are equal (a run crosses a morsel boundary). Rows with a NULL key form one group
 * wherever they are, after the others.
 *
 * <p>Clustering is a promise of the catalog's statistics, so it is checked on the way, at one compare per row: keys
 * that fall inside a morsel, or a morsel that starts below the one before it, throw {@link OutOfOrder}, and the
 * caller aggregates by hashing instead. A wrong statistic costs time, never a wrong answer.
 */
public final class SortedRunAggregation {
  private final List<ExprType> inputTypes;
  private final List<AggCall> calls;
  private final int key;
  private final ExprType keyType;
  /** Per morsel index: its output, made by the worker that ran it; null for a morsel that had no rows. */
  private final Runs[] morsels;

  /** An aggregation of {@code stage} (one key, input {@code inputTypes}) over {@code morsels} numbered morsels. */
  public SortedRunAggregation(List<ExprType> inputTypes, PipelineStage.Aggregate stage, int morsels) {
    if (stage.groupKeys().length != 1 || !PipelineStage.Aggregate.sortedRunsKey(inputTypes.get(stage.groupKeys()[0]))) {
      throw new IllegalArgumentException("an aggregation over sorted runs groups by one integral key, not "
          + Arrays.toString(stage.groupKeys()) + " of " + inputTypes);
    }
    this.inputTypes = inputTypes;
    this.calls = stage.calls();
    this.key = stage.groupKeys()[0];
    this.keyType = inputTypes.get(key);
    this.morsels = new Runs[morsels];
  }

  /** Thrown where the keys are not clustered after all. */
  public static final class OutOfOrder extends RuntimeException {
    OutOfOrder(String message) {
      super(message, null, false, false);
    }
  }

  /** One morsel's output: its runs' keys in order and their accumulators, and its NULL-key group if it had one. */
  private final class Runs {
    long[] keys = new long[16];
    int size;
    final AggregateAccumulators runs = new AggregateAccumulators(inputTypes, calls, 16);
    /** The group of the rows with a NULL key (one slot), null while there were none. */
    AggregateAccumulators nullKey;
  }

  /**
   * Adds the rows of a numbered morsel (columns: the stage's input). The parts of one morsel (a join probe's cuts)
   * arrive in order on one thread; different morsels may arrive at once on different threads.
   */
  public void add(Morsel morsel) {
    int n = morsel.rows();
    if (n == 0) {
      return;
    }
    int m = morsel.index();
    if (m < 0 || m >= morsels.length) {
      throw new IllegalStateException("morsel " + m + " of an aggregation over " + morsels.length + " morsels");
    }
    Runs out = morsels[m];
    if (out == null) {
      out = new Runs();
      morsels[m] = out;
    }
    ColumnVector column = morsel.column(key);
    long[] v = column.longs;
    boolean[] nulls = column.nulls;
    int[] groups = new int[n];
    int size = out.size;
    long[] keys = out.keys;
    boolean nullRows = false;
    for (int i = 0; i < n; i++) {
      if (nulls != null && nulls[i]) {
        groups[i] = -1;
        nullRows = true;
        continue;
      }
      long k = v[i];
      if (size == 0 || k != keys[size - 1]) {
        if (size > 0 && k < keys[size - 1]) {
          throw new OutOfOrder("key " + k + " after " + keys[size - 1] + " in morsel " + m);
        }
        if (size == keys.length) {
          keys = Arrays.copyOf(keys, size * 2);
        }
        keys[size++] = k;
      }
      groups[i] = size - 1;
    }
    out.keys = keys;
    // the NULL-key rows pass through a spare slot after the runs, which is then moved to the morsel's NULL group
    int spare = size;
    out.runs.ensureCapacity(nullRows ? size + 1 : size);
    if (nullRows) {
      for (int i = 0; i < n; i++) {
        groups[i] = groups[i] < 0 ? spare : groups[i];
      }
    }
    out.runs.accumulate(morsel, groups, n);
    out.size = size;
    if (nullRows) {
      if (out.nullKey == null) {
        out.nullKey = new AggregateAccumulators(inputTypes, calls, 1);
      }
      out.nullKey.merge(out.runs, spare, new int[] {0});
      out.runs.clear(spare);
    }
  }

  /**
   * As {@link #result(int, BooleanSupplier)}, keeping only the groups {@code keep} keeps of any part of them (a HAVING
   * filter: it returns the rows of the columns it is given that pass, in order). Each morsel's groups are complete once
   * the runs that cross into it are folded into the morsel that opened them, so they are filtered morsel by morsel, on
   * up to {@code threads} workers, and only the kept ones are laid end to end: TPC-H Q18's aggregation by order key
   * keeps a few thousand of 45 M groups at SF 30, which the unfiltered result first copied into one array each.
   */
  public ColumnVector[] result(int threads, BooleanSupplier cancelled, UnaryOperator<ColumnVector[]> keep) {
    boolean[] continues = new boolean[morsels.length];
    AggregateAccumulators nullGroup = null;
    int owner = -1;  // the morsel whose last slot holds the last group so far
    int ownerSlot = -1;
    for (int m = 0; m < morsels.length; m++) {
      Runs r = morsels[m];
      if (r == null) {
        continue;
      }
      if (r.nullKey != null) {
        nullGroup = nullGroup == null ? new AggregateAccumulators(inputTypes, calls, 1) : nullGroup;
        nullGroup.merge(r.nullKey, 0, new int[] {0});
      }
      if (r.size == 0) {
        continue;
      }
      if (owner >= 0) {
        long last = morsels[owner].keys[ownerSlot];
        if (r.keys[0] < last) {
          throw new OutOfOrder("morsel " + m + " starts at key " + r.keys[0] + ", below " + last + " of morsel "
              + owner);
        }
        continues[m] = r.keys[0] == last;
        if (continues[m]) {
          morsels[owner].runs.merge(r.runs, 0, new int[] {ownerSlot});
        }
      }
      if (!continues[m] || r.size > 1) {
        owner = m;
        ownerSlot = r.size - 1;
      }
    }
    ColumnVector[][] kept = new ColumnVector[morsels.length][];
    MorselScheduler.forEach(morsels.length, threads, cancelled, (worker, m) -> {
      Runs r = morsels[m];
      int first = continues[m] ? 1 : 0;  // a continued run's group belongs to an earlier morsel
      if (r != null && r.size > first) {
        kept[m] = keep.apply(groupColumns(r.keys, r.runs, first, r.size - first, null));
      }
    });
    List<ColumnVector[]> parts = new ArrayList<>();
    for (ColumnVector[] part : kept) {
      if (part != null) {
        parts.add(part);
      }
    }
    if (nullGroup != null) {
      parts.add(keep.apply(groupColumns(new long[1], nullGroup, 0, 1, new boolean[] {true})));
    }
    if (parts.isEmpty()) {
      parts.add(groupColumns(new long[0], new AggregateAccumulators(inputTypes, calls, 0), 0, 0, null));
    }
    ColumnVector[] result = new ColumnVector[1 + calls.size()];
    for (int k = 0; k < result.length; k++) {
      List<ColumnVector> column = new ArrayList<>(parts.size());
      for (ColumnVector[] part : parts) {
        column.add(part[k]);
      }
      result[k] = ColumnVector.concat(column.get(0).type, column);
    }
    return result;
  }

  /**
   * The result columns of {@code n} groups from slot {@code first} of {@code runs} whose keys are {@code keys} from
   * {@code first}; {@code keyNulls}: the keys' NULL flags (null: none is NULL).
   */
  private ColumnVector[] groupColumns(long[] keys, AggregateAccumulators runs, int first, int n, boolean[] keyNulls) {
    AggregateAccumulators groups = runs;
    if (first > 0) {
      int[] order = new int[n];
      for (int g = 0; g < n; g++) {
        order[g] = first + g;
      }
      groups = runs.gathered(order);
    }
    ColumnVector[] out = new ColumnVector[1 + calls.size()];
    out[0] = ColumnVector.ofLongs(keyType, Arrays.copyOfRange(keys, first, first + n), keyNulls, n);
    for (int c = 0; c < calls.size(); c++) {
      out[1 + c] = groups.result(c, n);
    }
    return out;
  }

  /**
   * The aggregate: the group keys, then one column per call. The morsels' outputs are copied into place on up to
   * {@code threads} workers; the runs that continue the previous morsel's last run and the NULL groups fold in after.
   * Throws {@link OutOfOrder} if a morsel starts below the key the one before it ended with.
   */
  public ColumnVector[] result(int threads, BooleanSupplier cancelled) {
    int[] offsets = new int[morsels.length];
    boolean[] continues = new boolean[morsels.length];
    int groups = 0;
    int previous = -1;
    boolean nullKey = false;
    for (int m = 0; m < morsels.length; m++) {
      Runs r = morsels[m];
      if (r == null) {
        continue;
      }
      nullKey |= r.nullKey != null;
      if (r.size == 0) {
        continue;
      }
      if (previous >= 0) {
        long last = morsels[previous].keys[morsels[previous].size - 1];
        if (r.keys[0] < last) {
          throw new OutOfOrder("morsel " + m + " starts at key " + r.keys[0] + ", below " + last + " of morsel "
              + previous);
        }
        continues[m] = r.keys[0] == last;
      }
      offsets[m] = continues[m] ? groups - 1 : groups;
      groups = offsets[m] + r.size;
      previous = m;
    }
    int total = nullKey ? groups + 1 : groups;
    long[] keys = new long[total];
    AggregateAccumulators out = new AggregateAccumulators(inputTypes, calls, total);
    MorselScheduler.forEach(morsels.length, threads, cancelled, (worker, m) -> {
      Runs r = morsels[m];
      if (r == null || r.size == 0) {
        return;
      }
      int first = continues[m] ? 1 : 0;  // a continued run's slot belongs to an earlier morsel
      int[] targets = new int[r.size - first];
      for (int g = 0; g < targets.length; g++) {
        targets[g] = offsets[m] + first + g;
      }
      System.arraycopy(r.keys, first, keys, offsets[m] + first, targets.length);
      out.merge(r.runs, first, targets);
    });
    for (int m = 0; m < morsels.length; m++) {
      Runs r = morsels[m];
      if (r != null && continues[m]) {
        out.merge(r.runs, 0, new int[] {offsets[m]});
      }
      if (r != null && r.nullKey != null) {
        out.merge(r.nullKey, 0, new int[] {groups});
      }
    }
    boolean[] keyNulls = null;
    if (nullKey) {
      keyNulls = new boolean[total];
      keyNulls[groups] = true;
    }
    ColumnVector[] result = new ColumnVector[1 + calls.size()];
    result[0] = ColumnVector.ofLongs(keyType, keys, keyNulls, total);
    for (int c = 0; c < calls.size(); c++) {
      result[1 + c] = out.result(c, total);
    }
    return result;
  }
}
