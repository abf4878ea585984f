package org.spillway.storage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The arrays a thread's collectors observe text in are reused from batch to batch: a batch observed after a larger
 * one (whose bytes, bounds and hashes are still in the arrays past the smaller one's end) gets the statistics a
 * fresh thread gives it; arrays up to the kept size stay with the thread, larger ones are not kept.
 */
class StatisticsScratchTest {
  private static final ColumnDef TEXT = ColumnDef.of("s", "VARCHAR");

  @AfterEach
  void allocatorBackToZero() {
    StorageLeaks.assertNone();
  }

  @Test
  void aBatchAfterALargerOneGetsTheStatisticsOfAFreshThread() throws Exception {
    List<String> large = new ArrayList<>();
    for (int i = 0; i < 20_000; i++) {
      large.add(i % 7 == 0 ? null : "zz large value number " + i);
    }
    List<String> small = new ArrayList<>();
    for (int i = 0; i < 300; i++) {
      small.add(i % 5 == 0 ? null : "b" + (i % 40));
    }
    ExecutorService fresh = Executors.newSingleThreadExecutor();
    try {
      for (int maxDistinct : new int[] {10, 1_000}) {
        ColumnStatistics alone = fresh.submit(() -> observed(small, maxDistinct).toStatistics()).get();
        observed(large, maxDistinct);
        ColumnStatisticsCollector after = observed(small, maxDistinct);
        assertEquals(alone, after.toStatistics(), "limit " + maxDistinct);
        if (maxDistinct == 1_000) {
          assertEquals(40 - 8, after.toStatistics().distinctCount());  // exact; "b0", "b5", ... are NULL rows
        }
      }
    } finally {
      fresh.shutdown();
    }
  }

  @Test
  void arraysUpToTheKeptSizeStayWithTheThread() {
    StatisticsScratch scratch = StatisticsScratch.ofThread();
    assertSame(scratch, StatisticsScratch.ofThread());
    byte[] text = scratch.text(1_000);
    assertSame(text, scratch.text(500), "a smaller batch reuses the array");
    byte[] larger = scratch.text(text.length + 1);
    assertNotSame(text, larger);
    assertSame(larger, scratch.text(10), "the grown array is kept");
    int beyond = (int) StatisticsScratch.KEPT_BYTES + 1;
    byte[] once = scratch.text(beyond);
    assertEquals(beyond, once.length);
    assertSame(larger, scratch.text(10), "an array beyond the kept size is used once");
    long[] hashes = scratch.hashes(100);
    assertSame(hashes, scratch.hashes(100));
    assertNotSame(hashes, scratch.hashes((int) (StatisticsScratch.KEPT_BYTES / Long.BYTES) + 1));
    assertSame(hashes, scratch.hashes(100));
  }

  private static ColumnStatisticsCollector observed(List<String> values, int maxDistinct) {
    return TextStatisticsTest.observed(values, maxDistinct, true, null);
  }
}
