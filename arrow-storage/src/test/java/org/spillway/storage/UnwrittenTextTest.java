package org.spillway.storage;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.apache.arrow.vector.VarCharVector;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Text put only as its declared values and rows ({@link BatchBuilder#putDeclaredUtf8}) gives the table of the same
 * text written: byte for byte the same files and statistics, whether the column becomes a dictionary (its text never
 * written) or is kept plain at commit (beside an encoded column, or in a table without any), staged in memory or in
 * files; a value set afterwards, or the vector taken for bulk writes, first gets the text written.
 */
class UnwrittenTextTest {
  private static final byte[][] MODES = Stream.of("TRUCK", "AIR", "é-SHIP", "MAIL")
      .map(s -> s.getBytes(StandardCharsets.UTF_8)).toArray(byte[][]::new);
  /** More distinct values than a dictionary of the table's rows is worth: the column stays plain. */
  private static final byte[][] WORDS = IntStream.range(0, 900)
      .mapToObj(i -> ("word " + i + (i % 7 == 0 ? " ü" : "")).getBytes(StandardCharsets.UTF_8)).toArray(byte[][]::new);
  private static final int ROWS = 1_000;
  private static final int BATCHES = 3;

  @TempDir Path dir;

  @AfterEach
  void allocatorBackToZero() {
    StorageLeaks.assertNone();
  }

  /** The text columns of a table: modes and words, or words alone. */
  private static TableSchema schema(boolean withModes) {
    return withModes
        ? TableSchema.of(ColumnDef.of("k", "INTEGER NOT NULL"), ColumnDef.of("mode", "VARCHAR"),
            ColumnDef.of("word", "VARCHAR"))
        : TableSchema.of(ColumnDef.of("k", "INTEGER NOT NULL"), ColumnDef.of("word", "VARCHAR"));
  }

  /** Row i's index into the column's values; -1 for NULL. */
  private static int valueOf(byte[][] values, int batch, int row) {
    return row % 11 == 3 ? -1 : (row * 7 + batch * 13) % values.length;
  }

  @Test
  void unwrittenTextGivesTheTableOfWrittenText() throws IOException {
    for (boolean withModes : new boolean[] {true, false}) {
      for (long staging : new long[] {Long.MAX_VALUE, 0}) {
        List<byte[]> written;
        TableStatistics writtenStatistics;
        try (Catalog catalog = Catalog.create(dir.resolve("written-" + withModes + staging))) {
          StoredTable table = table(catalog, withModes, staging, false);
          written = arrowFiles(table);
          writtenStatistics = table.statistics();
        }
        try (Catalog catalog = Catalog.create(dir.resolve("unwritten-" + withModes + staging))) {
          StoredTable table = table(catalog, withModes, staging, true);
          assertEquals(withModes, table.isDictionaryEncoded(1));
          assertEquals(false, table.isDictionaryEncoded(withModes ? 2 : 1));
          assertEquals(writtenStatistics, table.statistics());
          List<byte[]> files = arrowFiles(table);
          for (int f = 0; f < BATCHES; f++) {
            assertArrayEquals(written.get(f), files.get(f),
                "modes " + withModes + ", staging " + staging + ", file " + f);
          }
          assertRows(table, withModes);
        }
      }
    }
  }

  @Test
  void aValueSetAfterwardsOrTheVectorTakenGetsTheTextFirst() {
    try (Catalog catalog = Catalog.create(dir); TableWriter writer = catalog.createTable("t", schema(true))) {
      BatchBuilder batch = writer.newBatch(ROWS);
      for (int row = 0; row < ROWS; row++) {
        batch.setInt(0, row, row);
      }
      fill(batch, 1, MODES, 0, true);
      fill(batch, 2, WORDS, 0, true);
      batch.setString(1, ROWS - 1, "RAIL");  // a variable-width vector takes a value set anew only at its end
      VarCharVector words = (VarCharVector) batch.vector(2);
      assertArrayEquals(WORDS[valueOf(WORDS, 0, 5)], words.get(5));
      batch.setRowCount(ROWS);
      writer.append(batch);
      List<List<Object>> rows = TestTables.rows(writer.commit());
      for (int row = 0; row < ROWS; row++) {
        int mode = valueOf(MODES, 0, row);
        assertEquals(row == ROWS - 1 ? "RAIL" : mode < 0 ? null : new String(MODES[mode], StandardCharsets.UTF_8),
            rows.get(row).get(1), "row " + row);
        int word = valueOf(WORDS, 0, row);
        assertEquals(word < 0 ? null : new String(WORDS[word], StandardCharsets.UTF_8), rows.get(row).get(2));
      }
    }
  }

  private static StoredTable table(Catalog catalog, boolean withModes, long staging, boolean unwritten) {
    try (TableWriter writer = catalog.createTable("t", schema(withModes))) {
      writer.stageInMemoryUpTo(staging);
      for (int b = 0; b < BATCHES; b++) {
        BatchBuilder batch = writer.newBatch(ROWS);
        for (int row = 0; row < ROWS; row++) {
          batch.setInt(0, row, row);
        }
        if (withModes) {
          fill(batch, 1, MODES, b, unwritten);
        }
        fill(batch, withModes ? 2 : 1, WORDS, b, unwritten);
        batch.setRowCount(ROWS);
        writer.append(batch);
      }
      return writer.commit();
    }
  }

  /** Column {@code col}'s rows of batch {@code b}: put as declared values and rows, or as text then declared. */
  private static void fill(BatchBuilder batch, int col, byte[][] values, int b, boolean unwritten) {
    boolean[] nulls = new boolean[ROWS];
    char[] valueOfRow = new char[ROWS];
    byte[] offsets = new byte[(ROWS + 1) * 4];
    java.io.ByteArrayOutputStream text = new java.io.ByteArrayOutputStream();
    for (int row = 0; row < ROWS; row++) {
      int value = valueOf(values, b, row);
      nulls[row] = value < 0;
      if (value >= 0) {
        valueOfRow[row] = (char) value;
        text.writeBytes(values[value]);
      }
      int end = text.size();
      for (int i = 0; i < 4; i++) {
        offsets[(row + 1) * 4 + i] = (byte) (end >>> (8 * i));
      }
    }
    if (unwritten) {
      batch.putDeclaredUtf8(col, values, valueOfRow, nulls, ROWS);
    } else {
      batch.putUtf8(col, offsets, text.toByteArray(), nulls, ROWS);
      batch.declareDistinct(col, values, valueOfRow);
    }
  }

  private static void assertRows(StoredTable table, boolean withModes) {
    List<List<Object>> rows = TestTables.rows(table);
    assertEquals(ROWS * BATCHES, rows.size());
    for (int b = 0; b < BATCHES; b++) {
      for (int row = 0; row < ROWS; row++) {
        List<Object> actual = rows.get(b * ROWS + row);
        if (withModes) {
          int mode = valueOf(MODES, b, row);
          assertEquals(mode < 0 ? null : new String(MODES[mode], StandardCharsets.UTF_8), actual.get(1));
        }
        int word = valueOf(WORDS, b, row);
        assertEquals(word < 0 ? null : new String(WORDS[word], StandardCharsets.UTF_8), actual.get(withModes ? 2 : 1),
            "batch " + b + ", row " + row);
      }
    }
  }

  private static List<byte[]> arrowFiles(StoredTable table) throws IOException {
    return ArrowFilesOfTable.read(table, BATCHES);
  }
}
