package org.spillway.gpu.index;

import java.util.Arrays;
import java.util.SplittableRandom;
import java.util.stream.LongStream;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.spillway.gpu.join.ZipfDistribution;

/** Sorted unique key columns of several shapes in Arrow buffers, and probe keys against them, for index tests. */
final class SortedKeyColumns {
  /** Columns up to this many keys are probed with every key. */
  private static final int EVERY_KEY = 8192;

  /** How the keys of a column spread. */
  enum Shape {
    /** Consecutive keys from a negative start. */
    DENSE,
    /** Random keys over the whole 64-bit range, both extremes included. */
    SPARSE,
    /** Runs of consecutive keys with gaps of up to 2^40 between them. */
    GAPS,
    /** Random negative keys only. */
    NEGATIVE,
    /** Keys whose gaps double, the hardest case for a spline. */
    EXPONENTIAL
  }

  private SortedKeyColumns() {
  }

  /** {@code rows} sorted unique keys of {@code shape} (fewer for EXPONENTIAL, which runs out of range at 63). */
  static long[] keys(Shape shape, int rows, boolean ints, SplittableRandom random) {
    long lo = ints ? Integer.MIN_VALUE : Long.MIN_VALUE;
    long hi = ints ? Integer.MAX_VALUE : Long.MAX_VALUE;
    long[] keys = switch (shape) {
      case DENSE -> LongStream.range(0, rows).map(i -> i - rows / 3 - 5).toArray();
      case SPARSE -> distinct(LongStream.generate(() -> random.nextLong(lo, hi)).limit(rows + 2L), rows, lo, hi);
      case GAPS -> {
        long[] k = new long[rows];
        long at = lo / 2;
        for (int i = 0; i < rows; i++) {
          at += random.nextInt(8) == 0 ? 1 + random.nextLong(ints ? 1L << 16 : 1L << 40) : 1;
          k[i] = at;
        }
        yield k;
      }
      case NEGATIVE -> distinct(LongStream.generate(() -> random.nextLong(lo, 0)).limit(rows), rows, lo, -1);
      case EXPONENTIAL -> LongStream.range(0, Math.min(rows, ints ? 31 : 63)).map(i -> (1L << i) - 1).toArray();
    };
    return keys;
  }

  /** The first {@code rows} distinct values, sorted, with both extremes in when asked for. */
  private static long[] distinct(LongStream values, int rows, long lo, long hi) {
    long[] sorted = values.distinct().limit(rows).sorted().toArray();
    if (sorted.length >= 2 && lo != hi) {
      sorted[0] = lo;
      sorted[sorted.length - 1] = hi;
    }
    return LongStream.of(sorted).distinct().sorted().toArray();
  }

  /** Writes {@code keys} into a buffer of {@code allocator}, 4 or 8 bytes each. */
  static ArrowBuf write(BufferAllocator allocator, long[] keys, boolean ints) {
    ArrowBuf buf = allocator.buffer(Math.max(8, (long) keys.length * (ints ? 4 : 8)));
    for (int i = 0; i < keys.length; i++) {
      if (ints) {
        buf.setInt(4L * i, Math.toIntExact(keys[i]));
      } else {
        buf.setLong(8L * i, keys[i]);
      }
    }
    return buf;
  }

  static SortedKeyColumn column(ArrowBuf buf, long rows, boolean ints) {
    return ints ? SortedKeyColumn.ofInts(buf.memoryAddress(), rows) : SortedKeyColumn.ofLongs(buf.memoryAddress(),
        rows);
  }

  /**
   * Probe keys against {@code keys}: every key, its neighbours, keys below the smallest and above the greatest,
   * the type's extremes, keys 2^32 away from a key (a 4-byte column must not match them), random keys, and
   * Zipf-skewed draws of keys at exponent 1.75 (many duplicates).
   */
  static long[] probes(long[] keys, SplittableRandom random) {
    LongStream.Builder probes = LongStream.builder();
    for (long key : new long[] {Long.MIN_VALUE, Long.MIN_VALUE + 1, -1, 0, 1, Long.MAX_VALUE - 1, Long.MAX_VALUE,
        Integer.MIN_VALUE, Integer.MAX_VALUE, (long) Integer.MAX_VALUE + 1, (long) Integer.MIN_VALUE - 1}) {
      probes.add(key);
    }
    // every key of a small column; of a large one, its ends and keys at random
    boolean every = keys.length <= EVERY_KEY;
    for (int i = 0; i < (every ? keys.length : EVERY_KEY); i++) {
      int row = every || i < 64 ? i : i < 128 ? keys.length - i + 63 : random.nextInt(keys.length);
      long key = keys[row];
      probes.add(key).add(key - 1).add(key + 1).add(key + (1L << 32));
    }
    if (keys.length > 0) {
      probes.add(keys[0] - 1).add(keys[0] - 1000).add(keys[keys.length - 1] + 1)
          .add(keys[keys.length - 1] + 1000);
      ZipfDistribution zipf = new ZipfDistribution(keys.length, 1.75);
      for (int i = 0; i < Math.min(EVERY_KEY, Math.max(100, keys.length / 4)); i++) {
        probes.add(keys[zipf.sample(random)]);
      }
    }
    for (int i = 0; i < 200 + Math.min(EVERY_KEY, keys.length / 8); i++) {
      probes.add(random.nextLong());
    }
    return probes.build().toArray();
  }

  /** The row of {@code key} in {@code keys}, or -1: what every index must answer. */
  static long reference(long[] keys, long key) {
    int row = Arrays.binarySearch(keys, key);
    return row >= 0 ? row : -1;
  }
}
