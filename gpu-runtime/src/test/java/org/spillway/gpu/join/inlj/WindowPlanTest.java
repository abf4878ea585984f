package org.spillway.gpu.join.inlj;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.SplittableRandom;
import java.util.function.Consumer;
import java.util.stream.LongStream;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.Test;
import org.spillway.gpu.index.SortedKeyColumn;

/**
 * What the GPU join plans on the host, without a device: its tumbling windows, the radix plan its kernels
 * partition by (with the key it looks up in place of keys that cannot match), the validity bitmap it streams, and the
 * translation slices its lookups run in.
 */
class WindowPlanTest {
  @Test
  void windowsComeFromTheBudgetInWholeWarpsOnTheGpu() {
    assertEquals(1 << 22, TumblingWindows.tuplesFor(32L << 20, Long.BYTES, 1));
    assertEquals(1 << 23, TumblingWindows.tuplesFor(32L << 20, Integer.BYTES, 32));
    assertEquals(32, TumblingWindows.tuplesFor(1, Long.BYTES, 32));
    assertEquals(64, TumblingWindows.tuplesFor(33 * Long.BYTES, Long.BYTES, 32));
    assertEquals(3, TumblingWindows.tuplesFor(3 * Long.BYTES + 7, Long.BYTES, 1));
    assertEquals(TumblingWindows.MAX_TUPLES, TumblingWindows.tuplesFor(Long.MAX_VALUE, Long.BYTES, 32));
    assertTrue(assertThrows(IllegalArgumentException.class, () -> TumblingWindows.tuplesFor(0, Long.BYTES, 32))
        .getMessage().contains("at least one key"));
  }

  /** Windows cover the probe once, in order, the last one shorter when the window does not divide it. */
  @Test
  void windowsTileTheProbe() {
    SplittableRandom random = new SplittableRandom();
    for (int trial = 0; trial < 200; trial++) {
      long rows = random.nextInt(5000);
      int tuples = 1 + random.nextInt(700);
      TumblingWindows windows = new TumblingWindows(rows, tuples);
      long next = 0;
      for (int w = 0; w < windows.count(); w++) {
        assertEquals(next, windows.first(w), rows + " rows, windows of " + tuples);
        assertTrue(windows.size(w) >= 1 && windows.size(w) <= tuples);
        assertTrue(w == windows.count() - 1 || windows.size(w) == tuples);
        next += windows.size(w);
      }
      assertEquals(rows, next, rows + " rows, windows of " + tuples);
    }
    assertEquals(0, new TumblingWindows(0, 32).count());
  }

  /**
   * The CPU's windows keep every worker busy: a probe within one budget window is cut into a window per worker, and
   * the count is a multiple of the workers (up to one window per row), each window within the budget.
   */
  @Test
  void balancedWindowsAreAMultipleOfTheWorkersWithinTheBudget() {
    assertEquals(16, TumblingWindows.balanced(429_497, 1 << 22, 16).count());
    assertEquals(16, TumblingWindows.balanced(42_949_673, 1 << 22, 16).count());
    assertEquals(64, TumblingWindows.balanced(214_748_365, 1 << 22, 16).count());
    assertEquals(3, TumblingWindows.balanced(3, 1 << 22, 16).count());
    assertEquals(0, TumblingWindows.balanced(0, 100, 4).count());
    SplittableRandom random = new SplittableRandom();
    for (int trial = 0; trial < 200; trial++) {
      long rows = 1 + random.nextInt(100_000);
      int budget = 1 + random.nextInt(5000);
      int workers = 1 + random.nextInt(32);
      TumblingWindows windows = TumblingWindows.balanced(rows, budget, workers);
      String what = rows + " rows, budget " + budget + ", " + workers + " workers";
      assertTrue(windows.tuples() <= budget, what);
      long byBudget = (rows + budget - 1) / budget;
      assertTrue(windows.count() >= Math.min(rows, byBudget), what);
      // windows of one size reach the workers' count exactly for large probes; for a few rows per worker, ceil(rows /
      // ceil(rows / target)) may fall short of the target, never below half of it (59 rows for 21 workers: 20 of 3)
      long target = Math.min(rows, (byBudget + workers - 1) / workers * workers);
      assertTrue(windows.count() >= (Math.min(rows, workers) + 1) / 2 && windows.count() >= Math.min(byBudget, rows),
          what);
      if (rows >= 64L * target) {
        assertTrue(windows.count() >= Math.min(rows, workers), what);
      }
      assertTrue(windows.count() <= Math.min(rows, (byBudget + workers - 1) / workers * workers), what);
      assertEquals(rows, windows.first(windows.count() - 1) + windows.size(windows.count() - 1), what);
    }
  }

  @Test
  void radixTakesTheTopElevenBitsOfTheKeyRange() {
    withColumn(new long[] {-1000, 1L << 20}, column -> {
      WindowRadix radix = WindowRadix.of(column);
      assertEquals(21 - WindowRadix.RADIX_BITS, radix.shift());
      assertEquals((((1L << 20) + 1000) >>> radix.shift()) + 1, radix.fanout());
      assertEquals(0, radix.partitionOf(-1000));
      assertEquals(radix.fanout() - 1, radix.partitionOf(1L << 20));
      assertFalse(radix.matchable(-1001));
      assertFalse(radix.matchable((1L << 20) + 1));
      assertFalse(radix.matchable(radix.rejectKey()));
    });
    withColumn(new long[] {5, 6, 9}, column -> {
      WindowRadix radix = WindowRadix.of(column);
      assertEquals(0, radix.shift());  // a range narrower than the fanout: one key a partition
      assertEquals(5, radix.fanout());
      assertEquals(4, radix.rejectKey());
    });
    // the whole 64-bit range: the unsigned range keeps the fanout at 2^11
    withColumn(new long[] {Long.MIN_VALUE, 0, Long.MAX_VALUE}, column -> {
      WindowRadix radix = WindowRadix.of(column);
      assertEquals(64 - WindowRadix.RADIX_BITS, radix.shift());
      assertEquals(1 << WindowRadix.RADIX_BITS, radix.fanout());
      assertEquals(0, radix.partitionOf(Long.MIN_VALUE));
      assertEquals(radix.fanout() - 1, radix.partitionOf(Long.MAX_VALUE));
      assertEquals(Long.MIN_VALUE, radix.rejectKey());  // no key outside: its lookup's row is ignored
    });
    withColumn(new long[] {Long.MIN_VALUE, 7}, column -> assertEquals(8, WindowRadix.of(column).rejectKey()));
    withColumn(new long[0], column -> {
      WindowRadix radix = WindowRadix.of(column);
      assertTrue(radix.empty());
      assertEquals(1, radix.fanout());
      assertFalse(radix.matchable(0));
      assertFalse(radix.matchable(Long.MIN_VALUE));
    });
  }

  @Test
  void nullFlagsBecomeAnArrowValidityBitmap() {
    boolean[] nulls = {true, false, false, true, false, false, false, false, false, true, true};
    try (BufferAllocator allocator = new RootAllocator(); ArrowBuf bitmap = allocator.buffer(2)) {
      GpuWindowedIndexJoin.writeValidity(nulls, nulls.length, bitmap.memoryAddress());
      for (int row = 0; row < nulls.length; row++) {
        boolean valid = (bitmap.getByte(row / 8) >> (row % 8) & 1) != 0;
        assertEquals(!nulls[row], valid, "row " + row);
      }
      assertEquals(0, bitmap.getByte(1) >> 3 & 0x1f, "bits past the last row stay clear");
    }
  }

  /** A partition's first row is the first whose key falls into it, as a scan with the radix's partitionOf finds. */
  @Test
  void translationSlicesFindEveryPartitionsFirstRow() {
    long seed = System.nanoTime();
    SplittableRandom random = new SplittableRandom(seed);
    long[][] columns = {
        LongStream.concat(LongStream.of(Long.MIN_VALUE, Long.MAX_VALUE), random.longs(5000)).distinct().sorted()
            .toArray(),
        LongStream.range(0, 20_000).map(i -> 4 * i).toArray(),
        random.longs(3000, 0, 1 << 16).distinct().sorted().toArray(),  // fewer keys than partitions: empty ones
        {42}};
    for (long[] keys : columns) {
      withColumn(keys, column -> {
        WindowRadix radix = WindowRadix.of(column);
        long[] first = firstRows(column, radix);
        assertEquals(radix.fanout() + 1, first.length);
        assertEquals(keys.length, first[radix.fanout()]);
        int row = 0;
        for (int p = 0; p < radix.fanout(); p++) {
          while (row < keys.length && radix.partitionOf(keys[row]) < p) {
            row++;
          }
          assertEquals(row, first[p], "partition " + p + " of " + radix + ", seed=" + seed);
        }
      });
    }
    withColumn(new long[0], column -> assertArrayEquals(new long[] {0, 0},
        firstRows(column, WindowRadix.of(column))));
  }

  /**
   * Slices tile the partitions in order; each spans at most the reach of the column's bytes unless it is a single
   * partition, and takes every partition that fits (the next one would pass the reach). A reach below a partition's
   * bytes gives a slice per partition, one of the column's bytes or more a single slice, the unlimited reach none.
   */
  @Test
  void translationSlicesSpanAtMostTheReach() {
    long seed = System.nanoTime();
    SplittableRandom random = new SplittableRandom(seed);
    long[] skewed = LongStream.concat(LongStream.range(0, 30_000), random.longs(10_000, 1L << 30, 1L << 40))
        .distinct().sorted().toArray();
    for (long[] keys : new long[][] {LongStream.range(0, 100_000).map(i -> 4 * i).toArray(), skewed}) {
      withColumn(keys, column -> {
        WindowRadix radix = WindowRadix.of(column);
        long[] first = firstRows(column, radix);
        long columnBytes = keys.length * 8L;
        for (long reach : new long[] {4, 8, 1000, 4096, columnBytes / 7, columnBytes / 2, columnBytes - 8,
            columnBytes, 1L << 40}) {
          TranslationSlices slices = TranslationSlices.of(column, radix, reach);
          String what = "reach " + reach + " over " + columnBytes + " bytes, seed=" + seed;
          assertEquals(0, slices.firstPartition(0), what);
          assertEquals(radix.fanout(), slices.endPartition(slices.count() - 1), what);
          for (int s = 0; s < slices.count(); s++) {
            int from = slices.firstPartition(s);
            int to = slices.endPartition(s);
            assertTrue(to > from, what);
            assertTrue(s == 0 || slices.endPartition(s - 1) == from, what);
            long bytes = (first[to] - first[from]) * 8;
            assertTrue(to - from == 1 || bytes <= reach, what + ": slice " + s + " spans " + bytes);
            assertTrue(to == radix.fanout() || (first[to + 1] - first[from]) * 8 > reach, what + ": slice " + s
                + " leaves out a partition that fits");
          }
          if (reach >= columnBytes) {
            assertEquals(1, slices.count(), what);
          }
        }
        if (LongStream.range(0, radix.fanout()).allMatch(p -> first[(int) p + 1] > first[(int) p])) {
          assertEquals(radix.fanout(), TranslationSlices.of(column, radix, 8).count(), "a partition per slice");
        }
        assertNull(TranslationSlices.of(column, radix, TranslationSlices.UNLIMITED));
      });
    }
  }

  /** The reach reads "unlimited" or a byte count, from the system property when one is set, else unlimited. */
  @Test
  void translationReachReadsFromTheProperty() {
    assertEquals(TranslationSlices.UNLIMITED, TranslationSlices.parseReach(" Unlimited "));
    assertEquals(16L << 30, TranslationSlices.parseReach("16g"));
    assertEquals(512L << 20, TranslationSlices.parseReach("512m"));
    assertThrows(IllegalArgumentException.class, () -> TranslationSlices.parseReach("0"));
    assertEquals("unlimited", TranslationSlices.describe(TranslationSlices.UNLIMITED));
    assertEquals("16g", TranslationSlices.describe(16L << 30));
    assertEquals("1536m", TranslationSlices.describe(1536L << 20));
    assertEquals("1000", TranslationSlices.describe(1000));
    String before = System.getProperty(TranslationSlices.PROPERTY);
    try {
      System.clearProperty(TranslationSlices.PROPERTY);
      assertEquals(TranslationSlices.DEFAULT_REACH, TranslationSlices.configuredReach());
      System.setProperty(TranslationSlices.PROPERTY, "4g");
      assertEquals(4L << 30, TranslationSlices.configuredReach());
    } finally {
      if (before == null) {
        System.clearProperty(TranslationSlices.PROPERTY);
      } else {
        System.setProperty(TranslationSlices.PROPERTY, before);
      }
    }
  }

  /** Every partition's first row, and the column's rows after the last partition. */
  private static long[] firstRows(SortedKeyColumn column, WindowRadix radix) {
    return LongStream.rangeClosed(0, radix.fanout())
        .map(p -> TranslationSlices.firstRow(column, radix, (int) p)).toArray();
  }

  private static void withColumn(long[] keys, Consumer<SortedKeyColumn> body) {
    try (BufferAllocator allocator = new RootAllocator();
         ArrowBuf buf = allocator.buffer(Math.max(8, 8L * keys.length))) {
      for (int i = 0; i < keys.length; i++) {
        buf.setLong(8L * i, keys[i]);
      }
      body.accept(SortedKeyColumn.ofLongs(buf.memoryAddress(), keys.length));
    }
  }
}
