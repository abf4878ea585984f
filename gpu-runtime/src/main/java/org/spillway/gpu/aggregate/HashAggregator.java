package org.spillway.gpu.aggregate;

import org.spillway.gpu.expr.AggCall;
import org.spillway.gpu.pipeline.Morsel;
import org.spillway.gpu.pipeline.PipelineStage;
import org.spillway.gpu.vector.ColumnVector;
import org.spillway.gpu.vector.ExprType;
import java.util.Arrays;
import java.util.List;

/**
 * The aggregation sink of the CPU backend: a {@link GroupTable} plus {@link AggregateAccumulators}. Each
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
  /** One slot per group of the table. */
  private final AggregateAccumulators accumulators;
  /** The rows' groups of the morsel being added, kept for the next morsel (an aggregator serves one thread). */
  private int[] rowGroups = new int[0];
  private ColumnVector[] keyVectors;

  public HashAggregator(List<ExprType> inputTypes, PipelineStage.Aggregate stage) {
    this(inputTypes, stage, 16);
  }

  /** An aggregator sized to hold {@code expectedGroups} groups without growing (a merge's known bound). */
  public HashAggregator(List<ExprType> inputTypes, PipelineStage.Aggregate stage, int expectedGroups) {
    this(inputTypes, stage, expectedGroups, 0);
  }

  /**
   * An aggregator sized to hold {@code expectedGroups} groups without growing, that expects to take about
   * {@code expectedRows} rows (0: unknown; a worker's share of a pipeline's rows), by which it judges whether its
   * one integer key is dense enough to address directly ({@link GroupTable}).
   */
  public HashAggregator(List<ExprType> inputTypes, PipelineStage.Aggregate stage, int expectedGroups,
      long expectedRows) {
    this.inputTypes = inputTypes;
    this.keyColumns = stage.groupKeys();
    this.calls = stage.calls();
    int capacity = Math.max(16, expectedGroups);
    this.table = new GroupTable(keyColumns.length, capacity, expectedRows);
    this.textKeys = new TextGroupKeys[keyColumns.length];
    for (int k = 0; k < keyColumns.length; k++) {
      textKeys[k] = inputTypes.get(keyColumns[k]).kind() == ExprType.Kind.TEXT ? new TextGroupKeys() : null;
    }
    this.accumulators = new AggregateAccumulators(inputTypes, calls, capacity);
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
    this.accumulators = source.accumulators.gathered(order);
  }

  /** Adds the rows of a morsel (whose columns are this stage's input). */
  public void add(Morsel morsel) {
    int n = morsel.rows();
    if (rowGroups.length < n) {
      rowGroups = new int[Math.max(n, 2 * rowGroups.length)];  // all 0: a global aggregate's one group
    }
    int[] groups = rowGroups;
    if (keyColumns.length > 0) {
      if (keyVectors == null) {
        keyVectors = new ColumnVector[keyColumns.length];
      }
      ColumnVector[] keys = keyVectors;
      for (int k = 0; k < keys.length; k++) {
        keys[k] = morsel.column(keyColumns[k]);
        keys[k] = textKeys[k] == null ? keys[k] : textKeys[k].ids(keys[k]);
      }
      table.findOrInsert(keys, n, groups);
      Arrays.fill(keys, null);  // let the morsel's vectors go
      accumulators.ensureCapacity(table.capacity());  // grown as the table's arrays are, not group by group
    }
    accumulators.accumulate(morsel, groups, n);
  }

  /**
   * Empties this aggregator for reuse with its arrays (a flushed worker table whose groups were copied out by
   * {@link #partitioned}); text keys keep their numbers, which the copy still reads.
   */
  void clear() {
    if (keyColumns.length == 0) {
      throw new IllegalStateException("a global aggregate is not flushed");
    }
    accumulators.clearAll(table.size());
    table.clear();
  }

  /** Whether the table addresses its one integer key directly, so that its lookups stay cheap at any size. */
  boolean directlyAddressed() {
    return table.directlyAddressed();
  }

  /**
   * Whether this aggregator's groups can be merged with others' by ranges of key words: its one key is addressed
   * directly, and equal keys of different aggregators have equal words (not so for text, numbered per aggregator).
   */
  boolean mergesByKeyRange() {
    return keyColumns.length == 1 && !hasTextKeys() && table.directlyAddressed();
  }

  /** The range of the key words of an aggregator that {@link #mergesByKeyRange}, or null when it has none. */
  long[] keyRange() {
    return table.directRange();
  }

  /**
   * Readies an empty aggregator with one key for keys {@code low .. high} (a slice of a merge by key range), so that
   * its directory is made once at its size rather than grown key by key; no effect where they are too sparse.
   */
  void reserveKeyRange(long low, long high) {
    table.reserveKeyRange(low, high);
  }

  /** The groups of keys {@code from .. to} of a directly addressed aggregator, then the NULL key's if asked. */
  int[] groupsOfKeys(long from, long to, boolean withNullKey) {
    return table.directGroups(from, to, withNullKey);
  }

  /** The number of {@link #groupsOfKeys}. */
  int groupCountOfKeys(long from, long to, boolean withNullKey) {
    return table.directGroupCount(from, to, withNullKey);
  }

  /**
   * Folds the groups of keys {@code from .. to} (then the NULL key's if {@code withNullKey}) of another directly
   * addressed aggregator of the same stage into this one (a slice of a merge by key range): where this one
   * addresses those keys directly too ({@link #reserveKeyRange}), each key's group is found by its position in both
   * directories, else as {@link #merge(HashAggregator, int[])} finds it.
   */
  void mergeKeyRange(HashAggregator other, long from, long to, boolean withNullKey) {
    if (!table.coversDirectly(from, to)) {
      merge(other, other.groupsOfKeys(from, to, withNullKey));
      return;
    }
    int bound = other.groupCountOfKeys(from, to, withNullKey);
    int[] sources = new int[bound];
    int[] targets = new int[bound];
    int n = table.findOrInsertDirectGroups(other.table, from, to, withNullKey, sources, targets);
    accumulators.ensureCapacity(table.size());
    accumulators.merge(other.accumulators, sources, targets, n);
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
    int[] sources = new int[to - from];
    for (int i = 0; i < sources.length; i++) {
      sources[i] = from + i;
    }
    merge(other, sources);
  }

  /** Folds the groups {@code sources} of another partial aggregator of the same stage into this one. */
  void merge(HashAggregator other, int[] sources) {
    int[] targets = new int[sources.length];
    long[] word = new long[keyColumns.length + 1];
    boolean text = hasTextKeys();
    for (int i = 0; i < targets.length; i++) {
      int og = sources[i];
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
    accumulators.ensureCapacity(table.size());
    accumulators.merge(other.accumulators, sources, targets, targets.length);
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
    accumulators.ensureCapacity(table.size());
    return g;
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
      out[keyColumns.length + c] = accumulators.result(c, n);
    }
    return out;
  }
}
