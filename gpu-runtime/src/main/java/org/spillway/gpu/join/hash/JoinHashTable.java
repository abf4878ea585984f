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
  private static final long HASH_MULTIPLIER = 0x9E37_79B9_7F4A_7C15L;
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

  private final int rows;
  /** Direct array: entry {@code key - min} is 1 + the row of that key, 0 for none; null for the unchained table. */
  private final int[] direct;
  private final long min;
  /**
   * Unchained table: entry {@code b + 1} is bucket b's end offset in {@link #tuples} (shifted above the tag) and its
   * Bloom filter tag; entry 0 is 0, so bucket b's tuples start at entry b's end.
   */
  private final long[] directory;
  /** Unchained table: tuple i's key at {@code 2i}, its build row at {@code 2i + 1}, buckets one after the other. */
  private final long[] tuples;
  private final int shift;

  private JoinHashTable(int rows, int[] direct, long min, long[] directory, long[] tuples, int shift) {
    this.rows = rows;
    this.direct = direct;
    this.min = min;
    this.directory = directory;
    this.tuples = tuples;
    this.shift = shift;
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
        return new JoinHashTable(rows, direct, lo, null, null, 0);
      }
    }
    return buildUnchained(keys, validity, rows, count, tasks, threads, cancelled);
  }

  /**
   * The widest key range that gets the direct array for {@code count} unique keys: one whose array (4 bytes a slot)
   * takes at most twice the unchained table's bytes (a 16-byte tuple per key, an 8-byte directory entry per bucket),
   * since a probe of the direct array waits for one cache miss and one of the unchained table for two.
   */
  private static long denseRangeLimit(long count) {
    return 2 * (16 * count + 8 * (1L << bucketBits(count))) / 4;
  }

  /**
   * log2 of the unchained table's buckets for {@code count} keys: at least two buckets per key, so that a probe
   * rarely compares keys of other buckets' worth (each a mispredicted branch) and four of a tag's sixteen bits
   * rarely pass a missing key.
   */
  private static int bucketBits(long count) {
    return Math.max(4, 65 - Long.numberOfLeadingZeros(Math.max(1, count - 1)));
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
   * per partition (the hash's top bits, so a partition is a range of buckets), copy them into a staging array grouped
   * by partition, and then each partition on its own counts its tuples per bucket (and sets their Bloom filter bits)
   * in its range of the directory, turns the counts into start offsets by a prefix sum, and scatters its tuples
   * there, moving each bucket's offset past every tuple it writes, which leaves the bucket's end there. A partition's
   * range of the directory and tuples stays in the cache while it is built.
   */
  private static JoinHashTable buildUnchained(long[] keys, long[] validity, int rows, long count, int tasks,
      int threads, BooleanSupplier cancelled) {
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
          offsets[t * partitions + (int) ((keys[r] * HASH_MULTIPLIER) >>> partitionShift)]++;
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
          int at = next[(int) ((keys[r] * HASH_MULTIPLIER) >>> partitionShift)]++;
          staged[2 * at] = keys[r];
          staged[2 * at + 1] = r;
        }
      }
    });
    long[] directory = new long[(1 << bits) + 1];
    long[] tuples = new long[staged.length];
    int bucketsPerPartition = 1 << (bits - partitionBits);
    MorselScheduler.forEach(partitions, threads, cancelled, (w, p) -> {
      int from = partitionStarts[p];
      int to = partitionStarts[p + 1];
      for (int i = from; i < to; i++) {
        long hash = staged[2 * i] * HASH_MULTIPLIER;
        int entry = (int) (hash >>> shift) + 1;
        directory[entry] = directory[entry] + (1L << TAG_BITS) | tag(hash, shift);
      }
      long start = from;
      for (int e = 1 + p * bucketsPerPartition, end = e + bucketsPerPartition; e < end; e++) {
        long entry = directory[e];
        directory[e] = start << TAG_BITS | entry & TAG_MASK;
        start += entry >>> TAG_BITS;
      }
      for (int i = from; i < to; i++) {
        long key = staged[2 * i];
        int entry = (int) ((key * HASH_MULTIPLIER) >>> shift) + 1;
        int at = (int) (directory[entry] >>> TAG_BITS);
        directory[entry] += 1L << TAG_BITS;
        tuples[2 * at] = key;
        tuples[2 * at + 1] = staged[2 * i + 1];
      }
    });
    return new JoinHashTable(rows, null, 0, directory, tuples, shift);
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

  /** Whether the keys were unique over a dense range (at most one row per key). */
  public boolean direct() {
    return direct != null;
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
    long hash = key * HASH_MULTIPLIER;
    int bucket = (int) (hash >>> shift);
    long end = directory[bucket + 1];
    long tag = tag(hash, shift);
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
   * {@link #first} of keys {@code from .. to-1} into {@code out[0 .. to-from-1]} (-1 for a NULL key or no match).
   * All directory entries are loaded first, then the surviving buckets' tuples: the loads of different rows do not
   * wait on one another, so the CPU keeps many cache misses in flight.
   */
  public void firsts(long[] probeKeys, long[] validity, int from, int to, int[] out) {
    if (direct != null) {
      for (int r = from; r < to; r++) {
        long slot = probeKeys[r] - min;
        out[r - from] = valid(validity, r) && slot >= 0 && slot < direct.length ? direct[(int) slot] - 1 : -1;
      }
      return;
    }
    for (int r = from; r < to; r++) {
      long hash = probeKeys[r] * HASH_MULTIPLIER;
      int bucket = (int) (hash >>> shift);
      boolean maybe = (tag(hash, shift) & ~directory[bucket + 1]) == 0;
      out[r - from] = maybe && valid(validity, r) ? bucket : -1;
    }
    for (int r = from; r < to; r++) {
      int bucket = out[r - from];
      if (bucket >= 0) {
        out[r - from] = scan(probeKeys[r], (int) (directory[bucket] >>> TAG_BITS),
            (int) (directory[bucket + 1] >>> TAG_BITS));
      }
    }
  }

  /** The position after {@code position} (one {@link #first} or this gave) with the same key, or -1. */
  public int next(int position) {
    if (direct != null) {
      return -1;
    }
    long key = tuples[2 * position];
    int end = (int) (directory[(int) ((key * HASH_MULTIPLIER) >>> shift) + 1] >>> TAG_BITS);
    return scan(key, position + 1, end);
  }
}
