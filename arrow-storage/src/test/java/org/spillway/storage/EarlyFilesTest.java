package org.spillway.storage;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.function.IntBinaryOperator;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Final files written when a batch is appended ({@link DictionaryGuess}): the commit keeps those whose guess was its
 * own choice and writes the others again, and either way the table is byte for byte the one written at the commit
 * alone: its files, statistics and checksums. A writer that ends without a commit leaves none of them behind.
 */
class EarlyFilesTest {
  private static final TableSchema SCHEMA = TableSchema.of(ColumnDef.of("k", "INTEGER NOT NULL"),
      ColumnDef.of("s", "VARCHAR"));
  private static final int BATCHES = 12;
  private static final int ROWS = 400;

  @TempDir
  Path dir;

  @AfterEach
  void allocatorBackToZero() {
    StorageLeaks.assertNone();
  }

  /** A table whose column s holds value {@code value(batch, row)} as text "v<value>" (negative: NULL). */
  private static StoredTable table(Catalog catalog, String name, boolean early, IntBinaryOperator value,
      boolean declared, long[] kept) {
    try (TableWriter writer = catalog.createTable(name, SCHEMA)) {
      writer.writeFilesEarly(early);
      for (int b = 0; b < BATCHES; b++) {
        BatchBuilder batch = writer.newBatch(ROWS);
        for (int row = 0; row < ROWS; row++) {
          batch.setInt(0, row, b * ROWS + row);
        }
        fill(batch, b, value, declared);
        batch.setRowCount(ROWS);
        writer.append(batch);
      }
      StoredTable table = writer.commit();
      kept[0] = writer.earlyFilesKept();
      return table;
    }
  }

  /** Column s of batch {@code b}: value by value, or as its distinct values and each row's index (unwritten text). */
  private static void fill(BatchBuilder batch, int b, IntBinaryOperator value, boolean declared) {
    if (!declared) {
      for (int row = 0; row < ROWS; row++) {
        int v = value.applyAsInt(b, row);
        batch.setString(1, row, v < 0 ? null : "v" + v);
      }
      return;
    }
    int[] distinct = java.util.stream.IntStream.range(0, ROWS).map(row -> value.applyAsInt(b, row)).filter(v -> v >= 0)
        .distinct().toArray();
    byte[][] values = new byte[distinct.length][];
    java.util.Map<Integer, Integer> index = new java.util.HashMap<>();
    for (int i = 0; i < distinct.length; i++) {
      values[i] = ("v" + distinct[i]).getBytes(StandardCharsets.UTF_8);
      index.put(distinct[i], i);
    }
    boolean[] nulls = new boolean[ROWS];
    char[] valueOfRow = new char[ROWS];
    for (int row = 0; row < ROWS; row++) {
      int v = value.applyAsInt(b, row);
      nulls[row] = v < 0;
      valueOfRow[row] = v < 0 ? 0 : (char) (int) index.get(v);
    }
    batch.putDeclaredUtf8(1, values, valueOfRow, nulls, ROWS);
  }

  /**
   * The table written with early files equals the one written at the commit alone, whose files are its batches; the
   * commit kept {@code expectedKept} early files. Returns the early table.
   */
  private StoredTable assertSameTable(Catalog catalog, String name, IntBinaryOperator value, boolean declared,
      long expectedKept) throws IOException {
    long[] kept = new long[1];
    StoredTable atCommit = table(catalog, name + "_commit", false, value, declared, kept);
    assertEquals(0, kept[0], "no early files when switched off");
    StoredTable early = table(catalog, name, true, value, declared, kept);
    assertEquals(expectedKept, kept[0], "early files kept");
    assertEquals(atCommit.statistics(), early.statistics());
    assertEquals(atCommit.isDictionaryEncoded(1), early.isDictionaryEncoded(1));
    List<byte[]> expected = ArrowFilesOfTable.read(atCommit, BATCHES);
    List<byte[]> actual = ArrowFilesOfTable.read(early, BATCHES);
    for (int f = 0; f < BATCHES; f++) {
      assertArrayEquals(expected.get(f), actual.get(f), name + ": file " + f);
    }
    assertEquals(Files.readString(atCommit.directory().resolve(TableMetadata.FILE_NAME)).replace(name + "_commit", name),
        Files.readString(early.directory().resolve(TableMetadata.FILE_NAME)), "checksums and metadata");
    try (Stream<Path> entries = Files.list(early.directory())) {
      assertEquals(List.of(), entries.filter(Files::isDirectory).toList(), "no staging or early directory left");
    }
    List<List<Object>> rows = TestTables.rows(early);
    for (int b = 0; b < BATCHES; b++) {
      for (int row = 0; row < ROWS; row++) {
        int v = value.applyAsInt(b, row);
        assertEquals(v < 0 ? null : "v" + v, rows.get(b * ROWS + row).get(1), "batch " + b + ", row " + row);
      }
    }
    return early;
  }

  @Test
  void aStableDictionaryKeepsEveryFile() throws IOException {
    for (boolean declared : new boolean[] {false, true}) {
      try (Catalog catalog = Catalog.create(dir.resolve("stable-" + declared))) {
        StoredTable table = assertSameTable(catalog, "t", (b, row) -> row % 7 == 3 ? -1 : row % 5, declared,
            BATCHES);
        assertTrue(table.isDictionaryEncoded(1));
      }
    }
  }

  /** Batch 6 brings a value new to the dictionary: the six files guessed before it are written again. */
  @Test
  void aValueNewLateRewritesTheFilesGuessedBefore() throws IOException {
    for (boolean declared : new boolean[] {false, true}) {
      try (Catalog catalog = Catalog.create(dir.resolve("late-" + declared))) {
        StoredTable table = assertSameTable(catalog, "t", (b, row) -> b == 6 && row == 100 ? 99 : row % 5, declared,
            BATCHES - 7);
        assertTrue(table.isDictionaryEncoded(1));
      }
    }
  }

  /**
   * 300 values, more than a dictionary takes regardless of the rows: plain while the table has fewer than 1,200 rows
   * (four per value), a dictionary from the third batch on. The first two batches' files, guessed plain (with their
   * declared text written for them), are written again encoded.
   */
  @Test
  void aColumnThatBecomesADictionaryLateRewritesTheFilesGuessedPlain() throws IOException {
    for (boolean declared : new boolean[] {false, true}) {
      try (Catalog catalog = Catalog.create(dir.resolve("flip-" + declared))) {
        StoredTable table = assertSameTable(catalog, "t", (b, row) -> row % 300, declared, BATCHES - 3);
        assertTrue(table.isDictionaryEncoded(1));
      }
    }
  }

  /**
   * Ten new values in every batch: the dictionary grows with every batch, so only the first batch's file is written
   * early (with its own values), and again at the commit.
   */
  @Test
  void aGrowingDictionaryWritesNoFileEarly() throws IOException {
    try (Catalog catalog = Catalog.create(dir)) {
      StoredTable table = assertSameTable(catalog, "t", (b, row) -> b * 10 + row % 10, false, 0);
      assertTrue(table.isDictionaryEncoded(1));
    }
  }

  /**
   * A value per row: too many for a dictionary from the first batch on, so every batch is guessed plain, rightly,
   * although the values grow.
   */
  @Test
  void aColumnTooVariedForADictionaryIsGuessedPlain() throws IOException {
    try (Catalog catalog = Catalog.create(dir)) {
      StoredTable table = assertSameTable(catalog, "t", (b, row) -> b * ROWS + row, false, BATCHES);
      assertEquals(false, table.isDictionaryEncoded(1));
    }
  }

  /**
   * A declared text column guessed plain gets its text written for its early file: the bytes that takes count against
   * the staging limit, as a batch appended with its text does.
   */
  @Test
  void declaredTextWrittenEarlyCountsAgainstTheStagingLimit() throws IOException {
    long[] staged = new long[2];
    byte[][] values = java.util.stream.IntStream.range(0, ROWS)
        .mapToObj(i -> ("value " + i + " " + "x".repeat(100)).getBytes(StandardCharsets.UTF_8)).toArray(byte[][]::new);
    char[] valueOfRow = new char[ROWS];
    for (int row = 0; row < ROWS; row++) {
      valueOfRow[row] = (char) row;
    }
    for (int early = 0; early < 2; early++) {
      try (Catalog catalog = Catalog.create(dir.resolve("budget-" + early));
          TableWriter writer = catalog.createTable("t", SCHEMA)) {
        writer.writeFilesEarly(early == 1);
        BatchBuilder batch = writer.newBatch(ROWS);
        for (int row = 0; row < ROWS; row++) {
          batch.setInt(0, row, row);
        }
        batch.putDeclaredUtf8(1, values, valueOfRow, null, ROWS);  // a value per row: plain
        batch.setRowCount(ROWS);
        writer.append(batch);
        staged[early] = writer.stagedInMemoryBytes();
      }
    }
    assertTrue(staged[1] >= staged[0] + ROWS * 100L, "text of " + ROWS * 100 + "+ bytes: " + staged[0] + " -> "
        + staged[1]);
  }

  @Test
  void aWriterClosedWithoutCommitLeavesNoEarlyFile() throws IOException {
    try (Catalog catalog = Catalog.create(dir)) {
      try (TableWriter writer = catalog.createTable("t", SCHEMA)) {
        appendThreeBatches(writer);
        try (Stream<Path> scratch = Files.list(dir)) {
          Path early = scratch.findFirst().orElseThrow().resolve("early");
          try (Stream<Path> files = Files.list(early)) {
            assertEquals(3, files.count(), "the batches' files, written early");
          }
        }
      }
      try (Stream<Path> entries = Files.list(dir)) {
        assertEquals(List.of(), entries.toList());
      }
      assertTrue(catalog.table("t").isEmpty());
    }
  }

  /** A file in the way of a kept early file fails the commit as a write would, and leaves nothing. */
  @Test
  void anEarlyFileThatCannotTakeItsNameFailsTheCommitAndLeavesNothing() throws IOException {
    try (Catalog catalog = Catalog.create(dir)) {
      try (TableWriter writer = catalog.createTable("t", SCHEMA)) {
        appendThreeBatches(writer);
        Path scratch;
        try (Stream<Path> entries = Files.list(dir)) {
          scratch = entries.findFirst().orElseThrow();
        }
        Path inTheWay = scratch.resolve("part-000002.arrow");
        Files.write(inTheWay, new byte[] {1});
        StorageException failure = assertThrows(StorageException.class, writer::commit);
        assertTrue(failure.getMessage().startsWith("cannot write Arrow file " + inTheWay + ": "), failure.getMessage());
      }
      try (Stream<Path> entries = Files.list(dir)) {
        assertEquals(List.of(), entries.toList());
      }
      assertTrue(catalog.table("t").isEmpty());
    }
  }

  /** Appends three batches of row numbers and five repeated text values: each written early. */
  private static void appendThreeBatches(TableWriter writer) {
    for (int b = 0; b < 3; b++) {
      BatchBuilder batch = writer.newBatch(ROWS);
      for (int row = 0; row < ROWS; row++) {
        batch.setInt(0, row, row);
      }
      fill(batch, b, (x, row) -> row % 5, false);
      batch.setRowCount(ROWS);
      writer.append(batch);
    }
  }
}
