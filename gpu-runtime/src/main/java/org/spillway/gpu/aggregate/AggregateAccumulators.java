package org.spillway.gpu.aggregate;

import org.spillway.gpu.expr.AggCall;
import org.spillway.gpu.pipeline.Morsel;
import org.spillway.gpu.vector.ColumnVector;
import org.spillway.gpu.vector.ExprType;
import java.util.Arrays;
import java.util.List;

/**
 * The accumulators of an aggregation's calls, one slot per group: what each function keeps of a group and how rows
 * and partial results fold into it, whatever assigns the rows to groups (a {@link GroupTable} in
 * {@link HashAggregator}, runs of equal keys in {@link SortedRunAggregation}). Wide sums keep 128 bits
 * ({@link WideSums}); SUM over 64 bits fails on overflow, as SQL's does.
 */
final class AggregateAccumulators {
  private final List<ExprType> inputTypes;
  private final List<AggCall> calls;
  private final long[][] longAcc;
  /** Per wide sum (null for other calls): the wrap-arounds of its 64-bit partial sums in longAcc ({@link WideSums}). */
  private final long[][] wraps;
  private final double[][] doubleAcc;
  /** Per call and group: whether a non-null value was seen (COUNT keeps its count in longAcc). */
  private final boolean[][] seen;
  /** Length of every accumulator array. */
  private int capacity;

  /** Empty accumulators of {@code calls} over input columns of {@code inputTypes}, room for {@code capacity} groups. */
  AggregateAccumulators(List<ExprType> inputTypes, List<AggCall> calls, int capacity) {
    this.inputTypes = inputTypes;
    this.calls = calls;
    this.capacity = capacity;
    int c = calls.size();
    longAcc = new long[c][capacity];
    doubleAcc = new double[c][];
    wraps = new long[c][];
    seen = new boolean[c][capacity];
    for (int i = 0; i < c; i++) {
      AggCall call = calls.get(i);
      wraps[i] = call.isWideSum() ? new long[capacity] : null;
      if (call.argument() >= 0) {
        call.checkArgument(inputTypes.get(call.argument()));
        if (!inputTypes.get(call.argument()).isLong() && call.kind() != AggCall.Kind.COUNT) {
          doubleAcc[i] = new double[capacity];
        }
      }
    }
  }

  /** A copy of the given groups of {@code source} in that order. */
  private AggregateAccumulators(AggregateAccumulators source, int[] order) {
    this.inputTypes = source.inputTypes;
    this.calls = source.calls;
    this.capacity = order.length;
    int c = calls.size();
    longAcc = new long[c][];
    doubleAcc = new double[c][];
    wraps = new long[c][];
    seen = new boolean[c][];
    for (int i = 0; i < c; i++) {
      longAcc[i] = gather(source.longAcc[i], order);
      seen[i] = new boolean[order.length];
      for (int g = 0; g < order.length; g++) {
        seen[i][g] = source.seen[i][order[g]];
      }
      wraps[i] = source.wraps[i] == null ? null : gather(source.wraps[i], order);
      if (source.doubleAcc[i] != null) {
        doubleAcc[i] = new double[order.length];
        for (int g = 0; g < order.length; g++) {
          doubleAcc[i][g] = source.doubleAcc[i][order[g]];
        }
      }
    }
  }

  /** The groups {@code order[0], order[1], ...} of these accumulators as groups 0, 1, ... of new ones. */
  AggregateAccumulators gathered(int[] order) {
    return new AggregateAccumulators(this, order);
  }

  private static long[] gather(long[] values, int[] order) {
    long[] out = new long[order.length];
    for (int g = 0; g < order.length; g++) {
      out[g] = values[order[g]];
    }
    return out;
  }

  /** Makes room for groups {@code 0 .. groups-1}, doubling so that growing one group at a time stays linear. */
  void ensureCapacity(int groups) {
    if (groups <= capacity) {
      return;
    }
    capacity = Math.max(groups, capacity * 2);
    for (int c = 0; c < calls.size(); c++) {
      longAcc[c] = Arrays.copyOf(longAcc[c], capacity);
      seen[c] = Arrays.copyOf(seen[c], capacity);
      if (wraps[c] != null) {
        wraps[c] = Arrays.copyOf(wraps[c], capacity);
      }
      if (doubleAcc[c] != null) {
        doubleAcc[c] = Arrays.copyOf(doubleAcc[c], capacity);
      }
    }
  }

  /** Folds the morsel's first {@code n} rows into the groups {@code groups[row]} (which must have room). */
  void accumulate(Morsel morsel, int[] groups, int n) {
    for (int c = 0; c < calls.size(); c++) {
      AggCall call = calls.get(c);
      // COUNT of a column without NULLs in the morsel counts its rows, without loading the column
      boolean rowsOnly = call.argument() < 0 || call.kind() == AggCall.Kind.COUNT
          && !morsel.mayHaveNulls(call.argument());
      ColumnVector arg = rowsOnly ? null : morsel.column(call.argument());
      accumulate(c, call.kind(), arg, groups, n);
    }
  }

  private void accumulate(int c, AggCall.Kind kind, ColumnVector arg, int[] groups, int n) {
    long[] acc = longAcc[c];
    boolean[] seenAcc = seen[c];
    if (kind == AggCall.Kind.COUNT) {
      for (int i = 0; i < n; i++) {
        acc[groups[i]] += arg == null || !arg.isNull(i) ? 1 : 0;
      }
      return;
    }
    boolean[] nulls = arg.nulls;
    if (arg.longs != null) {
      long[] v = arg.longs;
      // One loop per function, so that each stays a tight primitive loop.
      switch (kind) {
        case SUM, SUM0 -> {
          if (wraps[c] != null) {
            WideSums.add(acc, wraps[c], seenAcc, v, nulls, groups, n);
            return;
          }
          try {
            for (int i = 0; i < n; i++) {
              if (nulls == null || !nulls[i]) {
                acc[groups[i]] = Math.addExact(acc[groups[i]], v[i]);
                seenAcc[groups[i]] = true;
              }
            }
          } catch (ArithmeticException e) {
            throw overflow(c);
          }
        }
        case MIN -> {
          for (int i = 0; i < n; i++) {
            int g = groups[i];
            if ((nulls == null || !nulls[i]) && (!seenAcc[g] || v[i] < acc[g])) {
              acc[g] = v[i];
              seenAcc[g] = true;
            }
          }
        }
        default -> {
          for (int i = 0; i < n; i++) {
            int g = groups[i];
            if ((nulls == null || !nulls[i]) && (!seenAcc[g] || v[i] > acc[g])) {
              acc[g] = v[i];
              seenAcc[g] = true;
            }
          }
        }
      }
    } else {
      double[] d = doubleAcc[c];
      for (int i = 0; i < n; i++) {
        if (nulls != null && nulls[i]) {
          continue;
        }
        int g = groups[i];
        double x = arg.doubles[i];
        d[g] = !seenAcc[g] ? x : kind == AggCall.Kind.MIN ? Math.min(d[g], x) : Math.max(d[g], x);
        seenAcc[g] = true;
      }
    }
  }

  private long addExact(long a, long b, int call) {
    try {
      return Math.addExact(a, b);
    } catch (ArithmeticException e) {
      throw overflow(call);
    }
  }

  private ArithmeticException overflow(int call) {
    return HashAggregator.sumOverflow(calls.get(call), inputTypes.get(calls.get(call).argument()));
  }

  /**
   * Folds groups {@code from .. from+targets.length-1} of {@code other} (accumulators of the same calls) into
   * groups {@code targets[0], targets[1], ...} of these, call by call in tight loops.
   */
  void merge(AggregateAccumulators other, int from, int[] targets) {
    int[] sources = new int[targets.length];
    for (int i = 0; i < sources.length; i++) {
      sources[i] = from + i;
    }
    merge(other, sources, targets, targets.length);
  }

  /** Folds groups {@code sources[i]} of {@code other} into groups {@code targets[i]} of these, i < n. */
  void merge(AggregateAccumulators other, int[] sources, int[] targets, int n) {
    for (int c = 0; c < calls.size(); c++) {
      mergeCall(c, other, sources, targets, n);
    }
  }

  private void mergeCall(int c, AggregateAccumulators other, int[] sources, int[] targets, int n) {
    AggCall.Kind kind = calls.get(c).kind();
    long[] acc = longAcc[c];
    long[] values = other.longAcc[c];
    boolean[] seenAcc = seen[c];
    boolean[] seenFrom = other.seen[c];
    if (kind == AggCall.Kind.COUNT) {
      for (int i = 0; i < n; i++) {
        acc[targets[i]] += values[sources[i]];
      }
      return;
    }
    if (kind == AggCall.Kind.SUM || kind == AggCall.Kind.SUM0) {
      long[] wrapAcc = wraps[c];
      for (int i = 0; i < n; i++) {
        int og = sources[i];
        int g = targets[i];
        if (seenFrom[og]) {
          if (wrapAcc != null) {
            acc[g] = WideSums.add(acc, wrapAcc, g, values[og]);
            wrapAcc[g] += other.wraps[c][og];
          } else {
            acc[g] = addExact(acc[g], values[og], c);
          }
          seenAcc[g] = true;
        }
      }
      return;
    }
    boolean min = kind == AggCall.Kind.MIN;
    double[] d = doubleAcc[c];
    for (int i = 0; i < n; i++) {
      int og = sources[i];
      int g = targets[i];
      if (!seenFrom[og]) {
        continue;
      }
      if (d != null) {
        double od = other.doubleAcc[c][og];
        d[g] = !seenAcc[g] ? od : min ? Math.min(d[g], od) : Math.max(d[g], od);
      } else {
        long o = values[og];
        acc[g] = !seenAcc[g] ? o : min ? Math.min(acc[g], o) : Math.max(acc[g], o);
      }
      seenAcc[g] = true;
    }
  }

  /** Empties group {@code g}, as if no row had reached it. */
  void clear(int g) {
    for (int c = 0; c < calls.size(); c++) {
      longAcc[c][g] = 0;
      seen[c][g] = false;
      if (wraps[c] != null) {
        wraps[c][g] = 0;
      }
      if (doubleAcc[c] != null) {
        doubleAcc[c][g] = 0;
      }
    }
  }

  /** Empties groups {@code 0 .. groups-1}, as if no row had reached them, keeping the arrays for reuse. */
  void clearAll(int groups) {
    for (int c = 0; c < calls.size(); c++) {
      Arrays.fill(longAcc[c], 0, groups, 0);
      Arrays.fill(seen[c], 0, groups, false);
      if (wraps[c] != null) {
        Arrays.fill(wraps[c], 0, groups, 0);
      }
      if (doubleAcc[c] != null) {
        Arrays.fill(doubleAcc[c], 0, groups, 0);
      }
    }
  }

  /** The column of call {@code c} over groups {@code 0 .. n-1}: NULL where no value reached a function needing one. */
  ColumnVector result(int c, int n) {
    AggCall call = calls.get(c);
    boolean nullWhenEmpty = call.kind() != AggCall.Kind.COUNT && call.kind() != AggCall.Kind.SUM0;
    boolean[] nulls = null;
    for (int g = 0; nullWhenEmpty && g < n; g++) {
      if (!seen[c][g]) {
        nulls = nulls == null ? new boolean[n] : nulls;
        nulls[g] = true;
      }
    }
    if (doubleAcc[c] != null) {
      return ColumnVector.ofDoubles(Arrays.copyOf(doubleAcc[c], n), nulls, n);
    }
    if (wraps[c] != null) {
      int scale = inputTypes.get(call.argument()).scale();
      Object[] sums = new Object[n];
      for (int g = 0; g < n; g++) {
        sums[g] = nulls != null && nulls[g] ? null : WideSums.value(longAcc[c][g], wraps[c][g], scale);
      }
      return ColumnVector.ofObjects(ExprType.BIG_DECIMAL, sums, nulls, n);
    }
    long[] values = Arrays.copyOf(longAcc[c], n);
    HashAggregator.checkResultRange(call, values);
    return ColumnVector.ofLongs(call.resultType(), values, nulls, n);
  }
}
