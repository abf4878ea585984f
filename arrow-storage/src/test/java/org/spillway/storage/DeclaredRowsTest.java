package org.spillway.storage;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A text column declared with its distinct values and each row's index into them
 * ({@link BatchBuilder#declareDistinct(int, byte[][], char[])}) is dictionary-encoded at commit from the declaration,
 * one lookup a value: the files are byte for byte those of the same rows undeclared, staged in memory or in files;
 * a value set afterwards drops the declaration.
 */
class DeclaredRowsTest {
  private static final TableSchema SCHEMA = TableSchema.of(ColumnDef.of("k", "INTEGER NOT NULL"),
      ColumnDef.of("mode", "VARCHAR"));
  private static final byte[][] MODES = Stream.of("TRUCK", "AIR", "MAIL", "é-SHIP")
      .map(s -> s.getBytes(StandardCharsets.UTF_8)).toArray(byte[][]::new);
  private static final int ROWS = 1_000;
  private static final int BATCHES = 3;

  @TempDir Path dir;

  @AfterEach
  void allocatorBackToZero() {
    StorageLeaks.assertNone();
  }

  /** Row i's index into {@link #MODES}; -1 for NULL. Batch 1 uses only two of the modes, in another order. */
  private static int mode(int batch, int row) {
    if (row % 9 == 4) {
      return -1;
    }
    return batch == 1 ? 2 - row % 2 : (row * 7 + batch) % MODES.length;
  }

  @Test
  void declaredRowsGiveTheFilesOfUndeclaredOnes() throws IOException {
    List<List<byte[]>> tables = new ArrayList<>();
    try (Catalog catalog = Catalog.create(dir)) {
      int table = 0;
      for (long staging : new long[] {Long.MAX_VALUE, 0}) {
        for (boolean declare : new boolean[] {false, true}) {
          try (TableWriter writer = catalog.createTable("t" + table++, SCHEMA)) {
            writer.stageInMemoryUpTo(staging);
            for (int b = 0; b < BATCHES; b++) {
              writer.append(batch(writer, b, declare, false));
            }
            StoredTable stored = writer.commit();
            assertTrue(stored.isDictionaryEncoded(1));
            assertRows(stored, false);
            tables.add(arrowFiles(stored));
          }
        }
      }
    }
    for (int t = 1; t < tables.size(); t++) {
      for (int f = 0; f < BATCHES; f++) {
        assertArrayEquals(tables.get(0).get(f), tables.get(t).get(f), "table " + t + ", file " + f);
      }
    }
  }

  @Test
  void aValueSetAfterTheDeclarationIsEncodedAsItIs() {
    try (Catalog catalog = Catalog.create(dir); TableWriter writer = catalog.createTable("t", SCHEMA)) {
      for (int b = 0; b < BATCHES; b++) {
        writer.append(batch(writer, b, true, true));
      }
      assertRows(writer.commit(), true);
    }
  }

  /**
   * A batch of {@link #ROWS} rows, its text set in bulk, declared if asked, and its last row then set to "RAIL" if
   * asked (a variable-width vector takes a value set anew only at its end).
   */
  private static BatchBuilder batch(TableWriter writer, int b, boolean declare, boolean overwriteLast) {
    BatchBuilder batch = writer.newBatch(ROWS);
    byte[] offsets = new byte[(ROWS + 1) * 4];
    java.io.ByteArrayOutputStream text = new java.io.ByteArrayOutputStream();
    boolean[] nulls = new boolean[ROWS];
    char[] valueOfRow = new char[ROWS];
    for (int row = 0; row < ROWS; row++) {
      batch.setInt(0, row, row);
      int mode = mode(b, row);
      nulls[row] = mode < 0;
      if (mode >= 0) {
        text.writeBytes(MODES[mode]);
        valueOfRow[row] = (char) mode;
      }
      int end = text.size();
      for (int i = 0; i < 4; i++) {
        offsets[(row + 1) * 4 + i] = (byte) (end >>> (8 * i));
      }
    }
    batch.putUtf8(1, offsets, text.toByteArray(), nulls, ROWS);
    if (declare) {
      batch.declareDistinct(1, MODES, valueOfRow);  // a value may be declared and not used (batch 1)
    }
    if (overwriteLast) {
      batch.setString(1, ROWS - 1, "RAIL");
    }
    batch.setRowCount(ROWS);
    return batch;
  }

  private static void assertRows(StoredTable table, boolean lastOverwritten) {
    List<List<Object>> rows = TestTables.rows(table);
    assertEquals(ROWS * BATCHES, rows.size());
    for (int b = 0; b < BATCHES; b++) {
      for (int row = 0; row < ROWS; row++) {
        int mode = mode(b, row);
        String expected = lastOverwritten && row == ROWS - 1 ? "RAIL"
            : mode < 0 ? null : new String(MODES[mode], StandardCharsets.UTF_8);
        assertEquals(expected, rows.get(b * ROWS + row).get(1), "batch " + b + ", row " + row);
      }
    }
  }

  private static List<byte[]> arrowFiles(StoredTable table) throws IOException {
    return ArrowFilesOfTable.read(table, BATCHES);
  }
}
