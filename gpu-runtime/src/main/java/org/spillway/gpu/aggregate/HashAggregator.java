package org.spillway.gpu.aggregate;

import org.spillway.gpu.expr.AggCall;
import org.spillway.gpu.pipeline.Morsel;
import org.spillway.gpu.pipeline.PipelineStage;
import org.spillway.gpu.vector.ColumnVector;
import org.spillway.gpu.vector.ExprType;
import java.util.Arrays;
import java.util.List;

/**
 * The aggregation sink of the CPU backend: a {@link GroupTable} plus one accumulator array per call. Each
 * worker thread fills its own aggregator from its morsels; the partial aggregators are merged at the end.
 * Plain-text keys are grouped by their numbers in a {@link TextGroupKeys}.
 */
public final class HashAggregator {
  private final List<ExprType> inputTypes;
  private final int[] keyColumns;
  private final List<AggCall> calls;
  private final GroupTable table;
  /** Per key: the numbering of its strings when it is TEXT, else null. */
  private final TextGroupKeys[] textKeys;
  private long[][] longAcc;
  /** Per wide sum (null for other calls): the wrap-arounds of its 64-bit partial sums in longAcc ({@link WideSums}). */
  private long[][] wraps;
  private double[][] doubleAcc;
  /** Per call and group: whether a non-null value was seen (COUNT keeps its count in longAcc). */
  private boolean[][] seen;
  /** Length of every accumulator array. */
  private int capacity;

  public HashAggregator(List<ExprType> inputTypes, PipelineStage.Aggregate stage) {
    this(inputTypes, stage, 16);
  }

  /** An aggregator sized to hold {@code expectedGroups} groups without growing (a merge's known bound). */
  public HashAggregator(List<ExprType> inputTypes, PipelineStage.Aggregate stage, int expectedGroups) {
    this.inputTypes = inputTypes;
    this.keyColumns = stage.groupKeys();
    this.calls = stage.calls();
    this.capacity = Math.max(16, expectedGroups);
    this.table = new GroupTable(keyColumns.length, capacity);
    this.textKeys = new TextGroupKeys[keyColumns.length];
    for (int k = 0; k < keyColumns.length; k++) {
      textKeys[k] = inputTypes.get(keyColumns[k]).kind() == ExprType.Kind.TEXT ? new TextGroupKeys() : null;
    }
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
    if (keyColumns.length == 0) {
      group(new long[] {0});  // the one group of a global aggregate exists even over no rows
    }
  }

  /** A copy of the given groups of {@code source} in that order, to be merged from; it takes no lookups or rows. */
  private HashAggregator(HashAggregator source, int[] order) {
    this.inputTypes = source.inputTypes;
    this.keyColumns = source.keyColumns;
    this.calls = source.calls;
    this.textKeys = source.textKeys;
    this.table = source.table.inOrder(order);
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

  private static long[] gather(long[] values, int[] order) {
    long[] out = new long[order.length];
    for (int g = 0; g < order.length; g++) {
      out[g] = values[order[g]];
    }
    return out;
  }

  /** Adds the rows of a morsel (whose columns are this stage's input). */
  public void add(Morsel morsel) {
    int n = morsel.rows();
    int[] groups = new int[n];
    if (keyColumns.length > 0) {
      ColumnVector[] keys = new ColumnVector[keyColumns.length];
      for (int k = 0; k < keys.length; k++) {
        keys[k] = morsel.column(keyColumns[k]);
        keys[k] = textKeys[k] == null ? keys[k] : textKeys[k].ids(keys[k]);
      }
      table.findOrInsert(keys, n, groups);
      ensureCapacity(table.size());
    }
    for (int c = 0; c < calls.size(); c++) {
      AggCall call = calls.get(c);
      ColumnVector arg = call.argument() < 0 ? null : morsel.column(call.argument());
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
    return sumOverflow(calls.get(call), inputTypes.get(calls.get(call).argument()));
  }

  /** The error of a SUM whose value does not fit in 64 bits; the GPU backend reports it the same way. */
  public static ArithmeticException sumOverflow(AggCall call, ExprType argumentType) {
    return new ArithmeticException("overflow of " + call.kind() + " of column $" + call.argument() + " ("
        + argumentType + "): the sum does not fit in 64 bits");
  }

  /** Fails if an INT32 result does not fit an int, as SQL's INTEGER SUM must. */
  public static void checkResultRange(AggCall call, long[] values) {
    if (call.resultType().kind() == ExprType.Kind.INT32) {
      for (long v : values) {
        if (v != (int) v) {
          throw new ArithmeticException("INTEGER overflow (" + v + ") of " + call.kind() + " of $" + call.argument());
        }
      }
    }
  }

  /** Whether this aggregator groups by keys (a global aggregate has one group). */
  boolean keyed() {
    return keyColumns.length > 0;
  }

  /** The number of groups so far. */
  int groupCount() {
    return table.size();
  }

  /** An aggregator's groups in the order of their radix partitions; partition p holds groups starts[p] .. starts[p+1]-1. */
  record Partitioned(HashAggregator groups, int[] starts) {
    int size(int partition) {
      return starts[partition + 1] - starts[partition];
    }
  }

  /**
   * This aggregator's groups reordered into {@code 1 << bits} partitions by the high bits of their keys' hashes (the
   * low bits pick slots inside a table, so a partition's table still spreads its keys): equal keys of different
   * partial aggregators fall into the same partition, so partitions merge independently, one per thread, each
   * reading its groups of every partial in sequence.
   */
  Partitioned partitioned(int bits) {
    int n = table.size();
    int[] partition = new int[n];
    int[] starts = new int[(1 << bits) + 1];
    for (int g = 0; g < n; g++) {
      partition[g] = (partitionHash(g) * 0x9E3779B9) >>> (32 - bits);
      starts[partition[g] + 1]++;
    }
    for (int p = 0; p < 1 << bits; p++) {
      starts[p + 1] += starts[p];
    }
    int[] next = Arrays.copyOf(starts, 1 << bits);
    int[] order = new int[n];
    for (int g = 0; g < n; g++) {
      order[next[partition[g]]++] = g;
    }
    return new Partitioned(new HashAggregator(this, order), starts);
  }

  /**
   * A hash of a group's key that equal keys share across partial aggregators: the table's own hash, unless a key
   * is text, whose word is a number private to this aggregator ({@link TextGroupKeys}); then the string's hash.
   */
  private int partitionHash(int group) {
    if (!hasTextKeys()) {
      return table.hash(group);
    }
    long nullFlags = table.keyWord(group, keyColumns.length);
    int h = Long.hashCode(nullFlags);
    for (int k = 0; k < keyColumns.length; k++) {
      long word = table.keyWord(group, k);
      boolean isText = textKeys[k] != null && (nullFlags & (1L << k)) == 0;
      h = h * 31 + (isText ? textKeys[k].string(word).hashCode() : Long.hashCode(word));
    }
    return h ^ (h >>> 16);
  }

  /** Folds another partial aggregator of the same stage into this one. */
  void merge(HashAggregator other) {
    merge(other, 0, other.table.size());
  }

  /**
   * Folds groups {@code from .. to-1} of another partial aggregator of the same stage into this one: first finds
   * (or makes) the group of each key, then folds the accumulators call by call in tight loops. Keys without text
   * keep the other table's hashes, so merging rehashes no key.
   */
  void merge(HashAggregator other, int from, int to) {
    int[] targets = new int[to - from];
    long[] word = new long[keyColumns.length + 1];
    boolean text = hasTextKeys();
    for (int i = 0; i < targets.length; i++) {
      int og = from + i;
      for (int w = 0; w < word.length; w++) {
        word[w] = other.table.keyWord(og, w);
      }
      if (text) {
        long nullFlags = word[keyColumns.length];
        for (int k = 0; k < keyColumns.length; k++) {
          if (textKeys[k] != null && (nullFlags & (1L << k)) == 0) {
            word[k] = textKeys[k].id(other.textKeys[k].string(word[k]));
          }
        }
        targets[i] = table.findOrInsert(word);
      } else {
        targets[i] = table.findOrInsert(word, other.table.hash(og));
      }
    }
    ensureCapacity(table.size());
    for (int c = 0; c < calls.size(); c++) {
      mergeCall(c, other, from, targets);
    }
  }

  private void mergeCall(int c, HashAggregator other, int from, int[] targets) {
    AggCall.Kind kind = calls.get(c).kind();
    long[] acc = longAcc[c];
    long[] values = other.longAcc[c];
    boolean[] seenAcc = seen[c];
    boolean[] seenFrom = other.seen[c];
    int n = targets.length;
    if (kind == AggCall.Kind.COUNT) {
      for (int i = 0; i < n; i++) {
        acc[targets[i]] += values[from + i];
      }
      return;
    }
    if (kind == AggCall.Kind.SUM || kind == AggCall.Kind.SUM0) {
      long[] wrapAcc = wraps[c];
      for (int i = 0; i < n; i++) {
        int og = from + i;
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
      int og = from + i;
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

  private boolean hasTextKeys() {
    for (TextGroupKeys t : textKeys) {
      if (t != null) {
        return true;
      }
    }
    return false;
  }

  private int group(long[] word) {
    int g = table.findOrInsert(word);
    ensureCapacity(table.size());
    return g;
  }

  private void ensureCapacity(int groups) {
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

  /** The output columns: the group keys, then one column per call. */
  public ColumnVector[] result() {
    int n = table.size();
    ColumnVector[] out = new ColumnVector[keyColumns.length + calls.size()];
    for (int k = 0; k < keyColumns.length; k++) {
      ExprType type = inputTypes.get(keyColumns[k]);
      boolean[] nulls = null;
      long[] words = new long[n];
      for (int g = 0; g < n; g++) {
        words[g] = table.keyWord(g, k);
        if ((table.keyWord(g, keyColumns.length) & (1L << k)) != 0) {
          nulls = nulls == null ? new boolean[n] : nulls;
          nulls[g] = true;
        }
      }
      if (textKeys[k] != null) {
        out[k] = textKeys[k].strings(words, nulls, n);
      } else if (type.isLong()) {
        out[k] = ColumnVector.ofLongs(type, words, nulls, n);
      } else {
        double[] d = new double[n];
        for (int g = 0; g < n; g++) {
          d[g] = Double.longBitsToDouble(words[g]);
        }
        out[k] = ColumnVector.ofDoubles(d, nulls, n);
      }
    }
    for (int c = 0; c < calls.size(); c++) {
      out[keyColumns.length + c] = callResult(c, n);
    }
    return out;
  }

  private ColumnVector callResult(int c, int n) {
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
    checkResultRange(call, values);
    return ColumnVector.ofLongs(call.resultType(), values, nulls, n);
  }
}
