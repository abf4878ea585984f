package org.spillway.storage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A batch whose text has more distinct values than the exact set keeps drops the set at once, told by its hashes:
 * the statistics stay those of observing every row, the set is kept exactly where the values are few enough (NULL
 * rows and repeats not counted), and the count of distinct hashes itself is exact.
 */
class DistinctHashesTest {
  private static final ColumnDef TEXT = ColumnDef.of("s", "VARCHAR(40)");
  private static final int LIMIT = 100;

  @AfterEach
  void allocatorBackToZero() {
    StorageLeaks.assertNone();
  }

  @Test
  void tablesHaveRoomForTwiceTheLimit() {
    assertEquals(2, DistinctHashes.tableSlots(0));
    assertEquals(4, DistinctHashes.tableSlots(1));
    assertEquals(256, DistinctHashes.tableSlots(100));
    assertEquals(262_144, DistinctHashes.tableSlots(65_536));
    for (int limit = 0; limit < 1_000; limit++) {
      int slots = DistinctHashes.tableSlots(limit);
      assertEquals(1, Integer.bitCount(slots), "limit " + limit);
      assertTrue(slots >= 2 * (limit + 1) && slots < 4 * (limit + 1), "limit " + limit);
    }
  }

  @Test
  void countsDistinctHashesOfTheRowsNotNull() {
    long[] table = new long[DistinctHashes.tableSlots(4)];
    Arrays.fill(table, 42);  // what an earlier batch left: cleared first
    long[] hashes = {7, 7, 0, 42, 0, 9, 7, 42};
    assertFalse(DistinctHashes.exceed(hashes, null, hashes.length, 4, table));  // 7, 0, 42, 9
    assertTrue(DistinctHashes.exceed(hashes, null, hashes.length, 3, table));
    // colliding slots (same low bits) still count apart
    long[] colliding = {1, 1 + (1L << 40), 1 + (2L << 40), 1 + (3L << 40)};
    assertTrue(DistinctHashes.exceed(colliding, null, 4, 3, new long[DistinctHashes.tableSlots(3)]));
    assertFalse(DistinctHashes.exceed(colliding, null, 3, 3, new long[DistinctHashes.tableSlots(3)]));
    // NULL rows (bits 2 and 5 clear: the two hashes seen only there) are not counted
    ByteBuffer validity = ByteBuffer.wrap(new byte[] {(byte) 0b1101_1011});
    long[] withNulls = {5, 6, 100, 5, 6, 200, 6, 5};
    assertFalse(DistinctHashes.exceed(withNulls, validity, 8, 2, table));
    assertTrue(DistinctHashes.exceed(withNulls, null, 8, 2, table));
    assertThrows(IllegalArgumentException.class, () -> DistinctHashes.exceed(hashes, null, 8, 4, new long[15]));
  }

  /** A collector that observed {@code values} (null: NULL) as one batch of a plain vector. */
  private static ColumnStatisticsCollector observed(List<String> values, boolean trackDistinct) {
    return TextStatisticsTest.observed(values, LIMIT, trackDistinct, null);
  }

  /**
   * {@code rows} values cycling through {@code distinct} ones (non-ASCII among them, an empty one if {@code empty}),
   * every 7th NULL.
   */
  private static List<String> values(int rows, int distinct, boolean empty) {
    List<String> values = new ArrayList<>();
    for (int row = 0; row < rows; row++) {
      int value = (row * 31) % distinct;
      values.add(row % 7 == 3 ? null : value == 0 && empty ? "" : value % 5 == 0 ? "é " + value : "comment " + value);
    }
    return values;
  }

  @Test
  void aBatchWithMoreDistinctValuesThanTheSetKeepsDropsItWithTheStatisticsOfEveryRow() {
    for (int distinct : new int[] {LIMIT + 1, LIMIT + 2, 3 * LIMIT}) {
      List<String> values = values(4 * LIMIT, distinct, true);
      assertTrue(values.stream().filter(Objects::nonNull).distinct().count() > LIMIT);
      ColumnStatisticsCollector tracked = observed(values, true);
      assertFalse(tracked.tracksDistinct(), "distinct " + distinct);
      assertNull(tracked.exactDistinct());
      assertEquals(observed(values, false).toStatistics(), tracked.toStatistics(), "distinct " + distinct);
      // the same rows as batches too small for the check, whose sets overflow as they merge
      ColumnStatisticsCollector table = new ColumnStatisticsCollector(TEXT, LIMIT);
      for (int from = 0, position = 0; from < values.size(); from += LIMIT, position++) {
        table.merge(observed(values.subList(from, from + LIMIT), true), position);
      }
      assertNull(table.exactDistinct());
      assertEquals(table.toStatistics(), tracked.toStatistics(), "distinct " + distinct);
    }
  }

  @Test
  void aBatchWithAsManyDistinctValuesAsTheSetKeepsKeepsItExactly() {
    for (int distinct : new int[] {LIMIT, LIMIT - 1, 3, -LIMIT}) {
      // more rows than the limit, and NULL rows (whose hash is the empty text's) with and without an empty value:
      // neither counts as a value of its own
      List<String> values = values(5 * LIMIT, Math.abs(distinct), distinct > 0);
      ColumnStatisticsCollector tracked = observed(values, true);
      assertTrue(tracked.tracksDistinct(), "distinct " + distinct);
      assertNotNull(tracked.exactDistinct());
      assertEquals(new HashSet<>(values.stream().filter(Objects::nonNull).toList()), tracked.exactDistinct());
      assertEquals(Math.abs(distinct), tracked.toStatistics().distinctCount());
    }
  }
}
