package org.spillway.gpu.join.triton;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import org.spillway.gpu.join.radix.RadixPartitioner;
import java.util.Arrays;

/**
 * The CPU reference of the radix partitioners (HierarchicalPartitioner, SharedPartitioner): the same hash
 * bits ({@link RadixPartitioner#digit}), the same chunking of rows over blocks and the same padded layout
 * ({@link PartitionLayout}), written sequentially. The GPU writes a region's tuples in an order its warps
 * race for, so a region compares as a multiset; padding slots a flush writes must hold the pad tuple, and
 * every other slot must keep the poison the array held before the pass.
 */
final class PartitionReference {
  static final byte POISON_BYTE = 0x5A;
  static final long POISON = 0x5A5A5A5A5A5A5A5AL;

  private PartitionReference() {}

  /** The expected array: its layout and content ({key, value} per tuple, POISON where nothing is written). */
  record Expected(PartitionLayout layout, long[] tuples) {}

  /**
   * Partitions the non-NULL rows ({@code nulls} may be null) of {key, value} over {@code blocks} blocks on
   * hash bits {@code [shift, shift + bits)} with {@code padTuples} of padding per region.
   */
  static Expected partition(long[] keys, long[] values, boolean[] nulls, int blocks, int shift, int bits,
      int padTuples) {
    int fanout = 1 << bits;
    long chunk = PartitionLayout.chunkRows(keys.length, blocks);
    long[] counts = new long[blocks * fanout];
    for (int row = 0; row < keys.length; row++) {
      if (nulls == null || !nulls[row]) {
        counts[(int) (row / chunk) * fanout + RadixPartitioner.digit(keys[row], shift, bits)]++;
      }
    }
    PartitionLayout layout = PartitionLayout.of(counts, blocks, fanout, padTuples);
    long[] tuples = new long[(int) (2 * layout.totalTuples())];
    Arrays.fill(tuples, POISON);
    long[] cursor = layout.blockMajorOffsets();
    for (int row = 0; row < keys.length; row++) {
      if (nulls == null || !nulls[row]) {
        int region = (int) (row / chunk) * fanout + RadixPartitioner.digit(keys[row], shift, bits);
        int at = (int) cursor[region]++;
        tuples[2 * at] = keys[row];
        tuples[2 * at + 1] = values[row];
      }
    }
    for (int b = 0; b < blocks; b++) {
      for (int p = 0; p < fanout; p++) {
        for (long at = layout.flushStart(b, p); at < layout.offset(b, p); at++) {
          tuples[(int) (2 * at)] = PartitionLayout.PAD_KEY;
          tuples[(int) (2 * at + 1)] = PartitionLayout.PAD_VALUE;
        }
      }
    }
    return new Expected(layout, tuples);
  }

  /**
   * Checks {@code actual} (the GPU's array, {key, value} per tuple, at least the layout's length) against
   * the expectation: region by region as sorted multisets, then every slot outside the regions' data.
   */
  static void assertMatches(Expected expected, long[] actual, String where) {
    PartitionLayout layout = expected.layout();
    for (int p = 0; p < layout.fanout(); p++) {
      for (int b = 0; b < layout.blocks(); b++) {
        int from = (int) layout.offset(b, p);
        int count = (int) layout.count(b, p);
        assertArrayEquals(sortedRegion(expected.tuples(), from, count), sortedRegion(actual, from, count),
            where + ": region (block " + b + ", partition " + p + ") of " + count + " tuples at " + from);
      }
    }
    boolean[] data = new boolean[(int) layout.totalTuples()];
    for (int b = 0; b < layout.blocks(); b++) {
      for (int p = 0; p < layout.fanout(); p++) {
        Arrays.fill(data, (int) layout.offset(b, p), (int) (layout.offset(b, p) + layout.count(b, p)), true);
      }
    }
    for (int at = 0; at < data.length; at++) {
      if (!data[at]) {
        assertEquals(expected.tuples()[2 * at], actual[2 * at], where + ": key of non-data slot " + at);
        assertEquals(expected.tuples()[2 * at + 1], actual[2 * at + 1], where + ": value of non-data slot " + at);
      }
    }
  }

  /** Tuples {@code [from, from + count)} as {key, value} pairs sorted by key, then value. */
  private static long[] sortedRegion(long[] tuples, int from, int count) {
    long[][] pairs = new long[count][];
    for (int i = 0; i < count; i++) {
      pairs[i] = new long[] {tuples[2 * (from + i)], tuples[2 * (from + i) + 1]};
    }
    Arrays.sort(pairs, (x, y) -> x[0] != y[0] ? Long.compare(x[0], y[0]) : Long.compare(x[1], y[1]));
    long[] out = new long[2 * count];
    for (int i = 0; i < count; i++) {
      out[2 * i] = pairs[i][0];
      out[2 * i + 1] = pairs[i][1];
    }
    return out;
  }
}
