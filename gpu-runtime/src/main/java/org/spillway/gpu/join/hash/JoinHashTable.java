package org.spillway.gpu.join.hash;

import org.spillway.gpu.pipeline.scheduler.MorselScheduler;
import java.lang.invoke.MethodHandles;
import org.spillway.gpu.join.KeyRange;
import java.lang.invoke.VarHandle;
import java.util.Arrays;
import java.util.function.BooleanSupplier;

/**
 * The hash table of the morsel-driven pipelined hash join (Leis et al., "Morsel-driven parallelism", as HyPer and
 * DuckDB build it): made once from the build side's keys on all cores, then probed by every morsel of the probe
 * side's pipeline, read-only and without locks. Build rows are row ids into the build side's columns.
 *
 * <p>Unique keys over a dense range (primary keys: most TPC-H build sides) go into a direct array indexed by
 * {@code key - min}, one load per probe. Anything else goes into the unchained hash table of Birler, Schmidt, Fent
 * and Neumann ("Simple, Efficient, and Robust Hash Tables for Join Processing", DaMoN 2024): a directory of 2^b
 * 64-bit entries, each the end offset of its bucket's tuples above a 16-bit Bloom filter of the bucket's keys, and
 * the tuples (key, build row) stored contiguously in bucket order. A probe loads one directory entry, which rejects
 * most keys without a match by the Bloom filter alone, and otherwise scans one contiguous run of keys; the matches of
 * a key are positions of that run. The build partitions the tuples by their hash's top bits, then per partition
 * counts the tuples per bucket, turns the counts into offsets by a prefix sum and scatters the tuples to them, each
 * step on all cores.
 *
 * <p>Each bucket's tuples are sorted by key (stably: equal keys stay in build-row order), so the matches of a key are
 * one run of consecutive positions: {@link #next} compares one neighbouring key instead of scanning the bucket
 * again, and a table whose build found no two equal keys ({@link #uniqueKeys}) spares the probe that step.
 *
 * <p>Keys spread evenly over a range of at most {@link #MAX_RANGE_PER_KEY} values per key (an order key of a
 * filtered lineitem) are placed in the buckets by range instead of by hash ({@link #place}): a probe side in key order
 * then walks the directory and the tuples in order. The build checks how evenly the keys fill the buckets and places
 * them by hash where they crowd some.
 *
 * <p>A probe addresses matches by position ({@link #first}, {@link #next}); {@link #row} turns a position into the
 * build row.
 */
public final class JoinHashTable {
  private static final VarHandle INTS = MethodHandles.arrayElementVarHandle(int[].class);
  /** Build rows per build task. */
  private static final int BUILD_TASK_ROWS = 1 << 16;
  /** log2 of the number of partitions of the unchained table's build (fewer for a small table). */
  private static final int PARTITION_BITS = 8;
  /** Fibonacci hashing's multiplier: the product's high bits depend on every key bit. */
  static final long HASH_MULTIPLIER = 0x9E37_79B9_7F4A_7C15L;
  /** Low bits of a directory entry: the Bloom filter of its bucket's keys; the bits above are the bucket's end. */
  private static final int TAG_BITS = 16;
  private static final long TAG_MASK = (1L << TAG_BITS) - 1;
  /** Hash bits (those just below the bucket's) that pick a key's tag. */
  private static final int TAG_INDEX_BITS = 11;
  /** Bits set in each tag: four of sixteen keep a lightly loaded bucket's false positives rare. */
  private static final int TAG_WEIGHT = 4;
  /** The tags a key's hash picks from: every way to set {@link #TAG_WEIGHT} of the 16 bits, repeated to fill. */
  private static final char[] TAGS = tags();
  /** The most tuples an unchained table holds (two longs each in one array). */
  private static final long MAX_TUPLES = (Integer.MAX_VALUE - 8) / 2;
  /**
   * Keys spread over at most this many values per key may be placed by range: sparser ones (several columns packed
   * into one long) would crowd a few buckets.
   */
  private static final long MAX_RANGE_PER_KEY = 1 << 10;
  /**
   * A range placement is kept while a probe of a build key scans at most this many tuples of its bucket on average
   * (the sum of the buckets' squared sizes over the tuples); a hash's is below two at the unchained table's load.
   */
  private static final int MAX_RANGE_SCAN = 3;
  /** Buckets up to this many tuples are sorted by insertion; longer ones (skewed keys) by merging. */
  private static final int INSERTION_SORT_TUPLES = 16;

  private final int rows;
  /** Direct array: entry {@code key - min} is 1 + the row of that key, 0 for none; null for the unchained table. */
  private final int[] direct;
  private final long min;
  /**
   * Unchained table: entry {@code b + 1} is bucket b's end offset in {@link #tuples} (shifted above the tag) and its
   * Bloom filter tag; entry 0 is 0, so bucket b's tuples start at entry b's end.
   */
  private final long[] directory;
  /**
   * Unchained table: tuple i's key at {@code 2i}, its build row at {@code 2i + 1}, buckets one after the other, each
   * sorted by key; never empty (a table without tuples holds one unused tuple that a rejected probe may read).
   */
  private final long[] tuples;
  /** The tuples in {@link #tuples} (without the unused one of an empty table). */
  private final int tupleCount;
  private final int shift;
  /** Unchained table placed by range: the smallest key, and the shift that puts its range's top bit at bit 63. */
  private final long rangeLow;
  /** -1 where a key's bucket comes from its hash. */
  private final int rangeShift;
  /** Whether no two build rows share a key: a key has at most one match. */
  private final boolean uniqueKeys;

  private JoinHashTable(int rows, int[] direct, long min, long[] directory, long[] tuples, int tupleCount, int shift,
      long rangeLow, int rangeShift, boolean uniqueKeys) {
    this.rows = rows;
    this.direct = direct;
    this.min = min;
    this.directory = directory;
    this.tuples = tuples;
    this.tupleCount = tupleCount;
    this.shift = shift;
    this.rangeLow = rangeLow;
    this.rangeShift = rangeShift;
    this.uniqueKeys = uniqueKeys;
  }

  /**
   * The table over the first {@code rows} keys; rows whose bit in the Arrow-layout {@code validity} bitmap is clear
   * are left out (a NULL key matches nothing; null validity: no NULL).
   */
  public static JoinHashTable build(long[] keys, long[] validity, int rows, int threads, BooleanSupplier cancelled) {
    int tasks = (rows + BUILD_TASK_ROWS - 1) / BUILD_TASK_ROWS;
    KeyRange[] parts = new KeyRange[tasks];
    MorselScheduler.forEach(tasks, threads, cancelled, (w, t) -> parts[t] = KeyRange.ofRows(t * BUILD_TASK_ROWS,
        Math.min(rows, (t + 1) * BUILD_TASK_ROWS), r -> valid(validity, r), r -> keys[r]));
    KeyRange range = KeyRange.combine(parts);
    long lo = range.min();
    long hi = range.max();
    long count = range.rows();
    if (count > 0 && hi - lo >= 0 && hi - lo < Math.max(1024, denseRangeLimit(count)) && hi - lo < Integer.MAX_VALUE - 8) {
      int[] direct = buildDirect(keys, validity, rows, lo, (int) (hi - lo + 1), tasks, threads, cancelled);
      if (direct != null) {
        return new JoinHashTable(rows, direct, lo, null, null, 0, 0, 0, -1, true);
      }
    }
    // more rows than values in their range: duplicates crowd the buckets whatever places them
    if (count > 1 && hi - lo >= count && (hi - lo) / count <= MAX_RANGE_PER_KEY) {
      JoinHashTable byRange = buildUnchained(keys, validity, rows, count, tasks, threads, cancelled, lo,
          Long.numberOfLeadingZeros(hi - lo));
      if (byRange != null) {
        return byRange;
      }
    }
    return buildUnchained(keys, validity, rows, count, tasks, threads, cancelled, 0, -1);
  }

  /**
   * The 64 bits whose top ones pick a key's bucket (and partition): its hash, or, placed by range
   * ({@code rangeShift >= 0}), its offset from the smallest build key scaled to the top bit. Placed by range, keys in
   * order go to buckets in order: a probe side in key order (TPC-H's lineitem and orders by order key) reads the
   * directory and the tuples in order too, instead of one random cache line per row. A key outside the range lands
   * in some bucket, where its compare fails. The Bloom filter tags always come from the hash.
   */
  private static long place(long key, long rangeLow, int rangeShift) {
    return rangeShift < 0 ? key * HASH_MULTIPLIER : (key - rangeLow) << rangeShift;
  }

  /**
   * The widest key range that gets the direct array for {@code count} unique keys: 16 to 24 slots (4 bytes each) per
   * key, 8 plus 8 per directory bucket, since a probe of the direct array waits for one cache miss and one of the
   * unchained table for two. (Twice the unchained table's bytes when it had two to four buckets per key: the range
   * stayed where the TPC-H plans were measured when the directory shrank, so that a build side such as Q9's part
   * keeps its direct array.)
   */
  private static long denseRangeLimit(long count) {
    return 8 * count + 8 * (1L << bucketBits(count));
  }

  /**
   * log2 of the unchained table's buckets for {@code count} keys: one or two buckets per key. Four of a tag's sixteen
   * bits still rarely pass a missing key at that load, and a probe that mostly misses (most do: a join's build side
   * is usually filtered) reads only the directory, which this keeps at 8 to 16 bytes per key, so that more of it
   * stays in the cache than with more buckets.
   */
  private static int bucketBits(long count) {
    return Math.max(4, 64 - Long.numberOfLeadingZeros(Math.max(1, count - 1)));
  }

  /** The direct array, or null as soon as a duplicate key shows the keys are not unique. */
  private static int[] buildDirect(long[] keys, long[] validity, int rows, long min, int range, int tasks,
      int threads, BooleanSupplier cancelled) {
    int[] direct = new int[range];
    boolean[] duplicate = new boolean[1];
    MorselScheduler.forEach(tasks, threads, cancelled, (w, t) -> {
      for (int r = t * BUILD_TASK_ROWS, end = Math.min(rows, r + BUILD_TASK_ROWS); r < end && !duplicate[0]; r++) {
        if (valid(validity, r) && !INTS.compareAndSet(direct, (int) (keys[r] - min), 0, r + 1)) {
          duplicate[0] = true;
        }
      }
    });
    return duplicate[0] ? null : direct;
  }

  /**
   * Partition, then count, prefix sum and scatter per partition, without a shared write: the tasks count their rows
   * per partition (the top bits of the key's {@link #place}, so a partition is a range of buckets), copy them into a
   * staging array grouped by partition, and then each partition on its own counts its tuples per bucket (and sets
   * their Bloom filter bits) in its range of the directory, turns the counts into start offsets by a prefix sum, and
   * scatters its tuples there, moving each bucket's offset past every tuple it writes, which leaves the bucket's end
   * there; last it sorts each bucket of several tuples by key, noting whether two were equal. A partition's range of
   * the directory and tuples stays in the cache while it is built. Placed by range, the table is given up (null) once
   * the counts show the keys crowding some buckets. The staging keeps build-row order within a partition, and so the
   * scatter within a bucket, which the stable sort keeps for equal keys.
   */
  private static JoinHashTable buildUnchained(long[] keys, long[] validity, int rows, long count, int tasks,
      int threads, BooleanSupplier cancelled, long rangeLow, int rangeShift) {
    if (count > MAX_TUPLES) {
      throw new IllegalArgumentException("a join's build side of " + count + " keys exceeds the hash table's "
          + MAX_TUPLES);
    }
    int bits = bucketBits(count);
    int shift = 64 - bits;
    int partitionBits = Math.min(PARTITION_BITS, bits);
    int partitionShift = 64 - partitionBits;
    int partitions = 1 << partitionBits;
    int[] offsets = new int[tasks * partitions];
    MorselScheduler.forEach(tasks, threads, cancelled, (w, t) -> {
      for (int r = t * BUILD_TASK_ROWS, end = Math.min(rows, r + BUILD_TASK_ROWS); r < end; r++) {
        if (valid(validity, r)) {
          offsets[t * partitions + (int) (place(keys[r], rangeLow, rangeShift) >>> partitionShift)]++;
        }
      }
    });
    // Partition-major offsets: each task's share of a partition follows the earlier tasks' shares.
    int[] partitionStarts = new int[partitions + 1];
    int sum = 0;
    for (int p = 0; p < partitions; p++) {
      partitionStarts[p] = sum;
      for (int t = 0; t < tasks; t++) {
        int n = offsets[t * partitions + p];
        offsets[t * partitions + p] = sum;
        sum += n;
      }
    }
    partitionStarts[partitions] = sum;
    long[] staged = new long[(int) (2 * count)];
    MorselScheduler.forEach(tasks, threads, cancelled, (w, t) -> {
      int[] next = Arrays.copyOfRange(offsets, t * partitions, (t + 1) * partitions);
      for (int r = t * BUILD_TASK_ROWS, end = Math.min(rows, r + BUILD_TASK_ROWS); r < end; r++) {
        if (valid(validity, r)) {
          int at = next[(int) (place(keys[r], rangeLow, rangeShift) >>> partitionShift)]++;
          staged[2 * at] = keys[r];
          staged[2 * at + 1] = r;
        }
      }
    });
    long[] directory = new long[(1 << bits) + 1];
    long[] tuples = new long[Math.max(2, staged.length)];
    int bucketsPerPartition = 1 << (bits - partitionBits);
    boolean[] duplicates = new boolean[partitions];
    long[] scans = new long[partitions];
    MorselScheduler.forEach(partitions, threads, cancelled, (w, p) -> {
      for (int i = partitionStarts[p]; i < partitionStarts[p + 1]; i++) {
        long key = staged[2 * i];
        int entry = (int) (place(key, rangeLow, rangeShift) >>> shift) + 1;
        directory[entry] = directory[entry] + (1L << TAG_BITS) | tag(key * HASH_MULTIPLIER, shift);
      }
      for (int e = 1 + p * bucketsPerPartition, end = e + bucketsPerPartition; e < end; e++) {
        long size = directory[e] >>> TAG_BITS;
        scans[p] += size * size;
      }
    });
    if (rangeShift >= 0 && Arrays.stream(scans).sum() > MAX_RANGE_SCAN * count) {
      return null;  // the keys crowd some ranges: a hash spreads them
    }
    MorselScheduler.forEach(partitions, threads, cancelled, (w, p) -> {
      int from = partitionStarts[p];
      int to = partitionStarts[p + 1];
      long start = from;
      for (int e = 1 + p * bucketsPerPartition, end = e + bucketsPerPartition; e < end; e++) {
        long entry = directory[e];
        directory[e] = start << TAG_BITS | entry & TAG_MASK;
        start += entry >>> TAG_BITS;
      }
      for (int i = from; i < to; i++) {
        long key = staged[2 * i];
        int entry = (int) (place(key, rangeLow, rangeShift) >>> shift) + 1;
        int at = (int) (directory[entry] >>> TAG_BITS);
        directory[entry] += 1L << TAG_BITS;
        tuples[2 * at] = key;
        tuples[2 * at + 1] = staged[2 * i + 1];
      }
      duplicates[p] = sortBuckets(directory, tuples, from, 1 + p * bucketsPerPartition, bucketsPerPartition);
    });
    boolean unique = true;
    for (boolean d : duplicates) {
      unique &= !d;
    }
    return new JoinHashTable(rows, null, 0, directory, tuples, (int) count, shift, rangeLow, rangeShift, unique);
  }

  /**
   * Sorts each of the {@code buckets} buckets whose end offsets are directory entries {@code entry ..} by key, the
   * first starting at tuple {@code from}; returns whether one holds a key twice.
   */
  private static boolean sortBuckets(long[] directory, long[] tuples, int from, int entry, int buckets) {
    boolean duplicates = false;
    long[] scratch = null;
    int start = from;
    for (int e = entry; e < entry + buckets; e++) {
      int end = (int) (directory[e] >>> TAG_BITS);
      int n = end - start;
      if (n > INSERTION_SORT_TUPLES && (scratch == null || scratch.length < 2 * n)) {
        scratch = new long[2 * n];
      }
      duplicates |= n > 1 && sortBucket(tuples, start, end, scratch);
      start = end;
    }
    return duplicates;
  }

  /**
   * Sorts tuples {@code from .. to-1} by key, stably; returns whether two keys are equal. {@code scratch} holds at
   * least the tuples of a bucket too long for insertion.
   */
  static boolean sortBucket(long[] tuples, int from, int to, long[] scratch) {
    if (to - from > INSERTION_SORT_TUPLES) {
      mergeSort(tuples, from, to, scratch);
    } else {
      insertionSort(tuples, from, to);
    }
    for (int i = from + 1; i < to; i++) {
      if (tuples[2 * i] == tuples[2 * i - 2]) {
        return true;
      }
    }
    return false;
  }

  private static void insertionSort(long[] tuples, int from, int to) {
    for (int i = from + 1; i < to; i++) {
      long key = tuples[2 * i];
      long row = tuples[2 * i + 1];
      int j = i - 1;
      for (; j >= from && tuples[2 * j] > key; j--) {
        tuples[2 * j + 2] = tuples[2 * j];
        tuples[2 * j + 3] = tuples[2 * j + 1];
      }
      tuples[2 * j + 2] = key;
      tuples[2 * j + 3] = row;
    }
  }

  /** Sorts tuples {@code from .. to-1} by key, stably, top-down, through {@code scratch} (two longs a tuple). */
  private static void mergeSort(long[] tuples, int from, int to, long[] scratch) {
    if (to - from <= INSERTION_SORT_TUPLES) {
      insertionSort(tuples, from, to);
      return;
    }
    int mid = (from + to) >>> 1;
    mergeSort(tuples, from, mid, scratch);
    mergeSort(tuples, mid, to, scratch);
    if (tuples[2 * mid - 2] <= tuples[2 * mid]) {
      return;  // already in order
    }
    int n = 2 * (to - from);
    int leftEnd = 2 * (mid - from);
    System.arraycopy(tuples, 2 * from, scratch, 0, n);
    int left = 0;
    int right = leftEnd;
    for (int out = 2 * from; out < 2 * to; out += 2) {
      // Equal keys take the left run's tuple first: stable.
      boolean takeLeft = right >= n || left < leftEnd && scratch[left] <= scratch[right];
      int take = takeLeft ? left : right;
      tuples[out] = scratch[take];
      tuples[out + 1] = scratch[take + 1];
      if (takeLeft) {
        left += 2;
      } else {
        right += 2;
      }
    }
  }

  /** The Bloom filter bits of the key with this hash: picked by the hash bits just below the bucket number's. */
  private static long tag(long hash, int shift) {
    return TAGS[(int) (hash >>> (shift - TAG_INDEX_BITS)) & (TAGS.length - 1)];
  }

  private static char[] tags() {
    char[] weighted = new char[1 << TAG_BITS];
    int n = 0;
    for (int bits = 0; bits < 1 << TAG_BITS; bits++) {
      if (Integer.bitCount(bits) == TAG_WEIGHT) {
        weighted[n++] = (char) bits;
      }
    }
    char[] tags = new char[1 << TAG_INDEX_BITS];
    for (int i = 0; i < tags.length; i++) {
      tags[i] = weighted[i % n];
    }
    return tags;
  }

  static boolean valid(long[] validity, int r) {
    return validity == null || (validity[r >>> 6] & 1L << r) != 0;
  }

  /** The number of build rows (NULL keys included). */
  public int rows() {
    return rows;
  }

  /** Whether the unchained table places its keys by range rather than by hash. */
  boolean placedByRange() {
    return directory != null && rangeShift >= 0;
  }

  /** Whether the keys were unique over a dense range (at most one row per key). */
  public boolean direct() {
    return direct != null;
  }

  /** Whether no two build rows share a key (NULL keys aside): {@link #next} never finds a further match. */
  public boolean uniqueKeys() {
    return uniqueKeys;
  }

  /** The build row at a position that {@link #first}, {@link #firsts} or {@link #next} gave. */
  public int row(int position) {
    return direct != null ? position : (int) tuples[2 * position + 1];
  }

  /** The position of the first build row with this key, or -1. */
  public int first(long key) {
    if (direct != null) {
      long slot = key - min;
      return slot >= 0 && slot < direct.length ? direct[(int) slot] - 1 : -1;
    }
    int bucket = (int) (place(key, rangeLow, rangeShift) >>> shift);
    long end = directory[bucket + 1];
    long tag = tag(key * HASH_MULTIPLIER, shift);
    return (tag & ~end) == 0 ? scan(key, (int) (directory[bucket] >>> TAG_BITS), (int) (end >>> TAG_BITS)) : -1;
  }

  /** The position of the first tuple with this key in {@code from .. to-1}, or -1. */
  private int scan(long key, int from, int to) {
    for (int p = from; p < to; p++) {
      if (tuples[2 * p] == key) {
        return p;
      }
    }
    return -1;
  }

  /**
   * {@link #first} of keys {@code from .. to-1} (at most {@link ProbeScratch#rows}) into {@code out[0 .. to-from-1]}
   * (-1 for a NULL key or no match). The rows go through the table in phases, each a loop whose loads do not wait on
   * a branch over an earlier load, so that a mispredicted branch never discards the loads of the rows after it and
   * the CPU keeps many cache misses in flight: the directory entries of all rows, whose Bloom filters leave the
   * candidates (listed without a branch); then the first key of each candidate's bucket; and only then the
   * comparisons, from the cache, and the rare scans further into a bucket. A rejected row costs its first phase only.
   */
  public void firsts(long[] probeKeys, long[] validity, int from, int to, int[] out, ProbeScratch scratch) {
    if (direct != null) {
      directFirsts(probeKeys, validity, from, to, out);
      return;
    }
    int n = to - from;
    int[] candidates = scratch.candidates;
    long[] keysAt = scratch.keysAt;
    int count = 0;
    for (int i = 0; i < n; i++) {
      long key = probeKeys[from + i];
      int bucket = (int) (place(key, rangeLow, rangeShift) >>> shift);
      long rejected = tag(key * HASH_MULTIPLIER, shift) & ~directory[bucket + 1];  // 0 where the bucket may hold it
      // 1 where the bucket may hold the key and the key is not NULL, else 0
      long candidate = (rejected - 1) >>> 63 & validBit(validity, from + i);
      out[i] = (int) ((bucket + 1 & -candidate) - 1);
      candidates[count] = i;
      count += (int) candidate;
    }
    for (int c = 0; c < count; c++) {
      int i = candidates[c];
      int start = (int) (directory[out[i]] >>> TAG_BITS);
      out[i] = start;
      keysAt[c] = tuples[2 * start];
    }
    for (int c = 0; c < count; c++) {
      int i = candidates[c];
      long key = probeKeys[from + i];
      if (keysAt[c] != key) {
        int end = (int) (directory[(int) (place(key, rangeLow, rangeShift) >>> shift) + 1] >>> TAG_BITS);
        out[i] = scan(key, out[i] + 1, end);
      }
    }
  }

  /** What {@link #firsts} needs besides its output for a group of probe rows: one per probing thread. */
  public static final class ProbeScratch {
    private final int[] candidates;
    private final long[] keysAt;

    /** Scratch for groups of up to {@code rows} probe rows. */
    public ProbeScratch(int rows) {
      this.candidates = new int[rows];
      this.keysAt = new long[rows];
    }

    /** The most probe rows of one {@link #firsts} call. */
    public int rows() {
      return candidates.length;
    }
  }

  /** {@link #firsts} of the direct array: one load a row, independent of the other rows'. */
  private void directFirsts(long[] probeKeys, long[] validity, int from, int to, int[] out) {
    for (int r = from; r < to; r++) {
      long slot = probeKeys[r] - min;
      out[r - from] = valid(validity, r) && slot >= 0 && slot < direct.length ? direct[(int) slot] - 1 : -1;
    }
  }

  /** 1 if row {@code r}'s bit in {@code validity} is set or there is no bitmap, else 0. */
  private static long validBit(long[] validity, int r) {
    return validity == null ? 1 : validity[r >>> 6] >>> r & 1;
  }

  /** {@link #firsts} with scratch of its own. */
  public void firsts(long[] probeKeys, long[] validity, int from, int to, int[] out) {
    firsts(probeKeys, validity, from, to, out, new ProbeScratch(to - from));
  }

  /**
   * The position after {@code position} (one {@link #first}, {@link #firsts} or this gave) with the same key, or -1:
   * the next tuple, if it holds the same key (a bucket's equal keys are adjacent).
   */
  public int next(int position) {
    if (uniqueKeys) {
      return -1;
    }
    int p = position + 1;
    return p < tupleCount && tuples[2 * p] == tuples[2 * position] ? p : -1;
  }
}
