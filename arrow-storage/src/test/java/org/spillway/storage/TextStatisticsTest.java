package org.spillway.storage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Text values taken as UTF-8 bytes where they are ASCII: the statistics' minimum and maximum still order as Java's
 * Strings do (which is not UTF-8's byte order beyond U+E000), a batch that skips its distinct set leaves the table
 * without one, and {@link BatchBuilder#setUtf8} stores what {@link BatchBuilder#setString} of the decoded text would.
 */
class TextStatisticsTest {
  private static final ColumnDef TEXT = ColumnDef.of("s", "VARCHAR(10)");

  @TempDir
  Path dir;

  /** A collector that observed {@code values} (null: NULL) as one batch. */
  private static ColumnStatisticsCollector observed(List<String> values, int maxDistinct, boolean trackDistinct) {
    return observed(values, maxDistinct, trackDistinct, null);
  }

  /**
   * A collector of text statistics (up to {@code maxDistinct} exact distinct values, tracked if {@code trackDistinct})
   * that observed {@code values} (null: NULL) as one batch of a plain vector, the batch's distinct values declared as
   * {@code distinct} where not null. The statistics tests of other parts share it.
   */
  static ColumnStatisticsCollector observed(List<String> values, int maxDistinct, boolean trackDistinct,
      List<String> distinct) {
    ColumnStatisticsCollector collector = new ColumnStatisticsCollector(TEXT, maxDistinct, trackDistinct);
    try (BufferAllocator allocator = StorageAllocator.root().newChildAllocator("test", 0, Long.MAX_VALUE);
        VarCharVector vector = new VarCharVector("s", allocator)) {
      vector.allocateNew();
      for (int row = 0; row < values.size(); row++) {
        if (values.get(row) == null) {
          vector.setNull(row);
        } else {
          vector.setSafe(row, values.get(row).getBytes(StandardCharsets.UTF_8));
        }
      }
      vector.setValueCount(values.size());
      collector.observe(vector, values.size(), distinct == null ? null
          : distinct.stream().map(v -> v.getBytes(StandardCharsets.UTF_8)).toArray(byte[][]::new));
    }
    return collector;
  }

  /**
   * A batch whose distinct values are declared (as a Parquet dictionary tells them) gets the statistics of observing
   * every row: counts, bounds, distinct set and sketch, below and above the distinct limit, with and without a set.
   */
  @Test
  void declaredDistinctValuesGiveTheStatisticsOfEveryRow() {
    List<String> values = new ArrayList<>();
    for (int i = 0; i < 3_000; i++) {
      values.add(i % 11 == 0 ? null : new String[] {"AIR", "MAIL", "é", "\uE000x", "SHIP", "a", "TRUCK"}[i % 7]
          + (i % 5 == 0 ? i % 40 : ""));
    }
    List<String> distinct = new ArrayList<>(values.stream().filter(Objects::nonNull).distinct().toList());
    Collections.reverse(distinct);
    for (int maxDistinct : new int[] {10, 1_000}) {
      for (boolean track : new boolean[] {true, false}) {
        ColumnStatisticsCollector rows = observed(values, maxDistinct, track);
        ColumnStatisticsCollector declared = observed(values, maxDistinct, track, distinct);
        assertEquals(rows.toStatistics(), declared.toStatistics(), "limit " + maxDistinct + ", set " + track);
        assertEquals(rows.exactDistinct(), declared.exactDistinct(), "limit " + maxDistinct + ", set " + track);
      }
    }
    ColumnStatistics all = observed(values, 1_000, true, distinct).toStatistics();
    assertEquals(values.stream().filter(Objects::isNull).count(), all.nullCount());
    assertEquals(distinct.size(), all.distinctCount());
  }

  @Test
  void minimumAndMaximumOrderAsStringsDo() {
    // U+E000 sorts above a surrogate pair as a String, below it as UTF-8 bytes; ASCII and non-ASCII mixed
    List<String> values = Arrays.asList("m", "\uD83D\uDE00", null, "\uE000", "Zebra", "é", "a long one", "Z");
    List<String> present = values.stream().filter(Objects::nonNull).toList();
    ColumnStatistics statistics = observed(values, 100, true).toStatistics();
    assertEquals(Collections.min(present), statistics.min());
    assertEquals("\uE000", statistics.max());
    assertEquals(1, statistics.nullCount());
    assertEquals(present.size(), statistics.distinctCount());

    List<String> ascii = List.of("delta", "alpha", "charlie", "bravo", "alphabet");
    ColumnStatistics asciiOnly = observed(ascii, 100, true).toStatistics();
    assertEquals("alpha", asciiOnly.min());
    assertEquals("delta", asciiOnly.max());
  }

  /**
   * A value strictly between the bounds by its first byte skips the compares with them: the bounds are still those
   * of every value, where values share the bounds' first bytes, are empty, are control characters or DEL, or are not
   * ASCII (which the shortcut leaves to the Strings' compare), with and without the distinct set.
   */
  @Test
  void boundsSkippedByTheFirstByteStillFollowEveryValue() {
    java.util.Random random = new java.util.Random(7);
    String alphabet = "\u0000\u0001 !AMZamz\u007f\u00e9\uE000";
    for (int round = 0; round < 200; round++) {
      List<String> values = new ArrayList<>();
      for (int i = 0; i < 1 + random.nextInt(40); i++) {
        StringBuilder value = new StringBuilder();
        for (int k = random.nextInt(4); k > 0; k--) {
          value.append(alphabet.charAt(random.nextInt(round % 2 == 0 ? 10 : alphabet.length())));
        }
        values.add(value.toString());
      }
      for (boolean track : new boolean[] {true, false}) {
        ColumnStatistics statistics = observed(values, 1_000, track).toStatistics();
        assertEquals(Collections.min(values), statistics.min(), values + ", set " + track);
        assertEquals(Collections.max(values), statistics.max(), values + ", set " + track);
      }
    }
  }

  @Test
  void mergedBatchesKeepTheOrderOfStrings() {
    ColumnStatisticsCollector table = new ColumnStatisticsCollector(TEXT, 100);
    table.merge(observed(List.of("b", "x"), 100, true), 0);
    table.merge(observed(List.of("\uE000", "a"), 100, true), 1);
    table.merge(observed(List.of("\uD83D\uDE00", "c"), 100, true), 2);
    ColumnStatistics statistics = table.toStatistics();
    assertEquals("a", statistics.min());
    assertEquals("\uE000", statistics.max());
    assertEquals(6, statistics.distinctCount());
  }

  /**
   * Values repeated within and across batches, NULLs between them, non-ASCII among them: the distinct set kept as
   * bytes is the set of the Strings, and a repeated value (which skips the minimum and maximum) leaves them as a
   * String-by-String pass finds them.
   */
  @Test
  void repeatedValuesCountOnceAndKeepTheBounds() {
    List<String> first = Arrays.asList("mm", null, "é", "mm", "\uE000", null, "é", "b", "b", "\uD83D\uDE00");
    List<String> second = Arrays.asList("b", "é", null, "zz", "mm", "", "", "\uE000", "a");
    ColumnStatisticsCollector table = new ColumnStatisticsCollector(TEXT, 100);
    table.merge(observed(first, 100, true), 0);
    table.merge(observed(second, 100, true), 1);
    List<String> present = new ArrayList<>(first);
    present.addAll(second);
    present.removeIf(Objects::isNull);
    assertEquals(new java.util.HashSet<>(present), table.exactDistinct());
    ColumnStatistics statistics = table.toStatistics();
    assertEquals(Collections.min(present), statistics.min());
    assertEquals(Collections.max(present), statistics.max());
    assertEquals(3, statistics.nullCount());
    assertEquals(new java.util.HashSet<>(present).size(), statistics.distinctCount());
  }

  @Test
  void aBatchWithoutItsDistinctSetLeavesTheTableWithoutOne() {
    ColumnStatisticsCollector table = new ColumnStatisticsCollector(TEXT, 3);
    table.merge(observed(List.of("a", "b"), 3, true), 0);
    assertTrue(table.tracksDistinct());
    table.merge(observed(List.of("c", "d"), 3, true), 1);
    assertFalse(table.tracksDistinct(), "four distinct values, three at most");
    ColumnStatisticsCollector untracked = observed(List.of("a"), 3, false);
    assertNull(untracked.exactDistinct());
    ColumnStatisticsCollector other = new ColumnStatisticsCollector(TEXT, 3);
    other.merge(untracked, 0);
    assertFalse(other.tracksDistinct(), "a batch that did not count cannot leave a dictionary behind");
  }

  @Test
  void setUtf8StoresWhatSetStringOfTheDecodedTextWould() {
    byte[] malformed = {'o', 'k', (byte) 0xC3};
    List<byte[]> inputs = List.of("plain".getBytes(StandardCharsets.UTF_8), "héé€".getBytes(StandardCharsets.UTF_8),
        malformed, new byte[0]);
    List<String> expected = new ArrayList<>();
    List<String> stored = new ArrayList<>();
    try (Catalog catalog = Catalog.create(dir); TableWriter writer = catalog.createTable("t", TableSchema.of(TEXT))) {
      BatchBuilder batch = writer.newBatch(2 * inputs.size());
      for (int i = 0; i < inputs.size(); i++) {
        byte[] bytes = inputs.get(i);
        // a heap buffer that starts inside its array, and a direct one
        byte[] padded = new byte[bytes.length + 3];
        System.arraycopy(bytes, 0, padded, 2, bytes.length);
        batch.setUtf8(0, 2 * i, ByteBuffer.wrap(padded, 2, bytes.length).slice());
        ByteBuffer direct = ByteBuffer.allocateDirect(bytes.length + 1);
        direct.position(1);
        direct.put(bytes);
        direct.position(1);
        batch.setUtf8(0, 2 * i + 1, direct);
        String decoded = new String(bytes, StandardCharsets.UTF_8);
        expected.add(decoded);
        expected.add(decoded);
      }
      batch.setRowCount(2 * inputs.size());
      try (VectorSchemaRoot root = batch.detach()) {
        VarCharVector vector = (VarCharVector) root.getVector(0);
        for (int row = 0; row < root.getRowCount(); row++) {
          stored.add(new String(vector.get(row), StandardCharsets.UTF_8));
        }
      }
    }
    assertEquals(expected, stored);
    assertEquals("ok\uFFFD", stored.get(4));
  }

  @Test
  void setUtf8CountsTheLengthInCharacters() {
    try (Catalog catalog = Catalog.create(dir);
        TableWriter writer = catalog.createTable("t", TableSchema.of(ColumnDef.of("s", "VARCHAR(3)")))) {
      try (BatchBuilder batch = writer.newBatch(2)) {
        batch.setUtf8(0, 0, ByteBuffer.wrap("héé".getBytes(StandardCharsets.UTF_8)));
        StorageException tooLong = assertThrows(StorageException.class,
            () -> batch.setUtf8(0, 1, ByteBuffer.wrap("abcd".getBytes(StandardCharsets.UTF_8))));
        assertTrue(tooLong.getMessage().contains("exceeds VARCHAR(3)"), tooLong.getMessage());
      }
    }
  }
}
