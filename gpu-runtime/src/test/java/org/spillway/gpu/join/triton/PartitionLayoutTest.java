package org.spillway.gpu.join.triton;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.spillway.gpu.join.radix.RadixPartitioner;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Pins the Triton partition layout on the CPU (CI): chunked, partition-major, private regions with 128-byte
 * padding, coarsened histograms and the CPU reference partitioner built on them; every seed is fresh and
 * printed in the failure message.
 */
class PartitionLayoutTest {
  private static final long SEED = System.nanoTime();

  @Test
  void paddedRegionsArePrivateAndTheirFlushesAligned() {
    SplittableRandom random = new SplittableRandom(SEED);
    int blocks = 7;
    int fanout = 16;
    long[] counts = new long[blocks * fanout];
    for (int i = 0; i < counts.length; i++) {
      counts[i] = random.nextInt(4) == 0 ? 0 : random.nextInt(100);
    }
    PartitionLayout layout = PartitionLayout.of(counts, blocks, fanout, PartitionLayout.PAD_TUPLES);
    long end = 0;
    long total = 0;
    for (int p = 0; p < fanout; p++) {
      long rows = 0;
      for (int b = 0; b < blocks; b++) {
        String where = "seed " + SEED + ", region (" + b + ", " + p + ")";
        assertEquals(end + PartitionLayout.PAD_TUPLES, layout.offset(b, p), where);
        assertEquals(0, layout.flushStart(b, p) % PartitionLayout.PAD_TUPLES, where + " flush start aligned");
        assertTrue(layout.flushStart(b, p) >= end, where + " flush start stays inside its own padding");
        assertTrue(layout.flushStart(b, p) <= layout.offset(b, p), where);
        end = layout.offset(b, p) + layout.count(b, p);
        rows += counts[b * fanout + p];
        total += counts[b * fanout + p];
      }
      assertEquals(rows, layout.partitionRows(p));
    }
    assertEquals(end, layout.totalTuples());
    assertEquals(total + (long) blocks * fanout * PartitionLayout.PAD_TUPLES, layout.totalTuples());
  }

  @Test
  void unpaddedRegionsAreContiguousPerPartition() {
    long[] counts = {3, 0, 5, 2, 1, 4};  // 3 blocks x 2 partitions, block-major
    PartitionLayout layout = PartitionLayout.of(counts, 3, 2, 0);
    assertArrayEquals(new long[] {0, 9, 3, 9, 8, 11}, layout.blockMajorOffsets());
    assertArrayEquals(new long[] {0, 3, 8, 9, 9, 11}, layout.partitionMajorOffsets());
    assertArrayEquals(new int[] {0, 3, 8, 9, 0, 0, 2, 6}, layout.regionPrefix());
    assertEquals(15, layout.totalTuples());
    assertEquals(9, layout.maxPartitionRows());
  }

  @ParameterizedTest
  @ValueSource(ints = {0, 1, 4, 10})
  void coarsenedHistogramsEqualHistogramsAtFewerBits(int bits) {
    SplittableRandom random = new SplittableRandom(SEED + bits);
    int blocks = 3;
    int histogramBits = HierarchicalPartitioner.HISTOGRAM_BITS;
    int[] histogram = new int[blocks << histogramBits];
    long[] direct = new long[blocks << bits];
    for (int i = 0; i < 20_000; i++) {
      long key = random.nextLong();
      int b = random.nextInt(blocks);
      histogram[(b << histogramBits) + RadixPartitioner.digit(key, 0, histogramBits)]++;
      direct[(b << bits) + RadixPartitioner.digit(key, 0, bits)]++;
    }
    assertArrayEquals(direct, PartitionLayout.coarsen(histogram, blocks, histogramBits, bits), "seed " + SEED);
    assertThrows(IllegalArgumentException.class, () -> PartitionLayout.coarsen(histogram, blocks, 4, 5));
  }

  @Test
  void referencePutsEveryRowIntoItsHashPartitionAndBlock() {
    SplittableRandom random = new SplittableRandom(SEED);
    int rows = 5000;
    long[] keys = new long[rows];
    long[] values = new long[rows];
    boolean[] nulls = new boolean[rows];
    for (int i = 0; i < rows; i++) {
      keys[i] = random.nextInt(3) == 0 ? random.nextLong() : random.nextInt(300) - 150;
      values[i] = i;
      nulls[i] = random.nextInt(10) == 0;
    }
    int blocks = 6;
    int bits1 = 3;
    int bits2 = 4;
    PartitionReference.Expected e = PartitionReference.partition(keys, values, nulls, blocks, bits1, bits2,
        PartitionLayout.PAD_TUPLES);
    PartitionLayout layout = e.layout();
    long chunk = PartitionLayout.chunkRows(rows, blocks);
    int seen = 0;
    for (int b = 0; b < blocks; b++) {
      for (int p = 0; p < layout.fanout(); p++) {
        for (long at = layout.offset(b, p); at < layout.offset(b, p) + layout.count(b, p); at++) {
          int row = (int) e.tuples()[(int) (2 * at + 1)];
          String where = "seed " + SEED + ", row " + row;
          assertEquals(keys[row], e.tuples()[(int) (2 * at)], where);
          assertEquals(p, RadixPartitioner.digit(keys[row], bits1, bits2), where);
          assertEquals(b, row / chunk, where);
          assertTrue(!nulls[row], where);
          seen++;
        }
        for (long at = layout.flushStart(b, p); at < layout.offset(b, p); at++) {
          assertEquals(PartitionLayout.PAD_KEY, e.tuples()[(int) (2 * at)]);
        }
      }
    }
    int valid = 0;
    for (boolean n : nulls) {
      valid += n ? 0 : 1;
    }
    assertEquals(valid, seen);
    PartitionReference.assertMatches(e, e.tuples().clone(), "reference against itself");
  }
}
