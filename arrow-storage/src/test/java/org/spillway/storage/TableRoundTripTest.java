package org.spillway.storage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TableRoundTripTest {
  private static final int ROWS = 1000;
  private static final String[] SEGMENTS = {"zeta", "alpha", "ünïcode"};
  private static final TableSchema SCHEMA = TableSchema.of(
      ColumnDef.of("i", "INTEGER"),
      ColumnDef.of("b", "BIGINT NOT NULL"),
      ColumnDef.of("d", "DOUBLE"),
      ColumnDef.of("m", "DECIMAL(15,2)"),
      ColumnDef.of("dt", "DATE"),
      ColumnDef.of("flag", "CHAR(1) NOT NULL"),
      ColumnDef.of("name", "VARCHAR(20)"),
      ColumnDef.of("seg", "VARCHAR(10)"));

  @TempDir
  Path dir;

  @AfterEach
  void allocatorBackToZero() {
    StorageLeaks.assertNone();
  }

  /** The value of every column of row r; null marks SQL NULL. */
  private static List<Object> expected(int r) {
    return Arrays.asList(
        r % 7 == 0 ? null : r,
        r * 10_000_000_000L,
        r % 11 == 0 ? null : r / 3.0,
        r % 13 == 0 ? null : BigDecimal.valueOf(r * 101L - 50_000, 2),
        r % 17 == 0 ? null : 10_000 + r,
        String.valueOf("ABC".charAt(r % 3)),
        r % 19 == 0 ? null : "name-" + r,
        r % 5 == 0 ? null : SEGMENTS[r % 3]);
  }

  private static void fill(BatchBuilder batch, int row, int r) {
    List<Object> values = expected(r);
    for (int col = 0; col < values.size(); col++) {
      Object v = values.get(col);
      if (v == null) {
        batch.setNull(col, row);
        continue;
      }
      switch (col) {
        case 0 -> batch.setInt(col, row, (Integer) v);
        case 1 -> batch.setLong(col, row, (Long) v);
        case 2 -> batch.setDouble(col, row, (Double) v);
        case 3 -> batch.setDecimal(col, row, (BigDecimal) v);
        case 4 -> batch.setDate(col, row, (Integer) v);
        default -> batch.setString(col, row, (String) v);
      }
    }
  }

  private static void writeTable(Catalog catalog) {
    int[] batchSizes = {1, 400, 599};
    try (TableWriter writer = catalog.createTable("Everything", SCHEMA)) {
      int r = 0;
      for (int size : batchSizes) {
        BatchBuilder batch = writer.newBatch(size);
        for (int row = 0; row < size; row++) {
          fill(batch, row, r++);
        }
        batch.setRowCount(size);
        writer.append(batch);
      }
      writer.commit();
    }
  }

  private static void assertContent(StoredTable table) {
    assertEquals(ROWS, table.rowCount());
    assertEquals(SCHEMA, table.schema());
    List<List<Object>> rows = TestTables.rows(table);
    assertEquals(ROWS, rows.size());
    for (int r = 0; r < ROWS; r++) {
      assertEquals(expected(r), rows.get(r), "row " + r);
    }
  }

  @Test
  void everyTypeSurvivesCommitAndReload() {
    try (Catalog catalog = Catalog.create(dir.resolve("data"))) {
      writeTable(catalog);
      assertEquals(List.of("everything"), catalog.tableNames());
      assertContent(catalog.table("EVERYTHING").orElseThrow());
    }
    try (Catalog reopened = Catalog.open(dir.resolve("data"))) {
      StoredTable table = reopened.table("everything").orElseThrow();
      assertContent(table);
      assertTrue(reopened.allocatedBytes() > 0);
    }
  }

  /**
   * A small dimension table's names (each used once) become a dictionary all the same: GPU pipelines carry codes,
   * not strings. Beyond {@value TableWriter#DICTIONARY_ALWAYS_ENTRIES} such values they stay plain.
   */
  @Test
  void fewDistinctNamesAreADictionaryEvenWhenEachIsUsedOnce() {
    TableSchema schema = TableSchema.of(ColumnDef.of("name", "VARCHAR(20) NOT NULL"));
    try (Catalog catalog = Catalog.create(dir)) {
      for (int rows : new int[] {25, TableWriter.DICTIONARY_ALWAYS_ENTRIES + 1}) {
        try (TableWriter writer = catalog.createTable("names" + rows, schema)) {
          BatchBuilder batch = writer.newBatch(rows);
          for (int r = 0; r < rows; r++) {
            batch.setString(0, r, "name-" + (rows - r));
          }
          batch.setRowCount(rows);
          writer.append(batch);
          writer.commit();
        }
      }
      assertEquals(25, catalog.table("names25").orElseThrow().dictionary(0).orElseThrow().size());
      assertFalse(catalog.table("names" + (TableWriter.DICTIONARY_ALWAYS_ENTRIES + 1)).orElseThrow()
          .isDictionaryEncoded(0));
    }
  }

  @Test
  void physicalLayoutIsGpuFriendly() {
    try (Catalog catalog = Catalog.create(dir)) {
      writeTable(catalog);
    }
    try (Catalog catalog = Catalog.open(dir)) {
      StoredTable table = catalog.table("everything").orElseThrow();
      VectorSchemaRoot batch = table.batches().get(1);
      assertInstanceOf(BigIntVector.class, batch.getVector("m"), "DECIMAL is a scaled Int(64)");
      assertInstanceOf(DateDayVector.class, batch.getVector("dt"));
      assertEquals("DECIMAL(15,2)", batch.getSchema().findField("m").getMetadata().get(ArrowFieldMapping.SQL_TYPE_KEY));
      // 3 distinct flags in 1000 rows: dictionary; 948 distinct names: plain
      assertTrue(table.isDictionaryEncoded(5));
      assertInstanceOf(IntVector.class, batch.getVector("flag"));
      assertNotNull(batch.getSchema().findField("flag").getDictionary());
      assertEquals(List.of("A", "B", "C"), table.dictionary(5).orElseThrow());
      assertFalse(table.isDictionaryEncoded(6));
      assertInstanceOf(VarCharVector.class, batch.getVector("name"));
      assertTrue(table.dictionary(6).isEmpty());
      List<String> segments = List.of("alpha", "zeta", "ünïcode");
      assertEquals(segments, table.dictionary(7).orElseThrow());
      ColumnReader seg = table.reader(1, 7);
      for (int row = 0; row < seg.size(); row++) {
        if (!seg.isNull(row)) {
          assertEquals(seg.get(row), segments.get(seg.code(row)));
        }
      }
      assertEquals(segments, seg.dictionary().orElseThrow());
      assertThrows(StorageException.class, () -> table.reader(1, 6).code(0));
    }
  }

  @Test
  void statisticsDescribeTheData() {
    try (Catalog catalog = Catalog.create(dir)) {
      writeTable(catalog);
    }
    try (Catalog catalog = Catalog.open(dir)) {
      TableStatistics stats = catalog.table("everything").orElseThrow().statistics();
      assertEquals(ROWS, stats.rowCount());
      List<Integer> ints = new ArrayList<>();
      for (int r = 0; r < ROWS; r++) {
        if (expected(r).get(0) != null) {
          ints.add(r);
        }
      }
      ColumnStatistics i = stats.column("i");
      assertEquals(1, i.min());
      assertEquals(999, i.max());
      assertEquals(ROWS - ints.size(), i.nullCount());
      assertEquals(ints.size(), i.distinctCount(), ints.size() * 0.05);
      ColumnStatistics m = stats.column("m");
      assertEquals(new BigDecimal("-498.99"), m.min()); // row 0 is NULL
      assertEquals(new BigDecimal("508.99"), m.max());
      assertEquals(LocalDateDays.of("1997-05-20"), stats.column("dt").min());
      assertEquals(3, stats.column("flag").distinctCount());
      assertEquals("A", stats.column("flag").min());
      assertEquals(3, stats.column("seg").distinctCount());
      assertEquals(200, stats.column("seg").nullCount());
      assertEquals("ünïcode", stats.column("seg").max());
      assertEquals(1 / 3.0, stats.column("d").min());
    }
  }

  @Test
  void readersRejectAccessorsThatDoNotApply() {
    try (Catalog catalog = Catalog.create(dir)) {
      writeTable(catalog);
      StoredTable table = catalog.table("everything").orElseThrow();
      ColumnReader decimal = table.reader(1, 3);
      assertEquals(decimal.getLong(0), ((BigDecimal) decimal.get(0)).unscaledValue().longValueExact());
      assertEquals(((BigDecimal) decimal.get(0)).doubleValue(), decimal.getDouble(0), 1e-9);
      StorageException e = assertThrows(StorageException.class, () -> table.reader(1, 6).getLong(0));
      assertTrue(e.getMessage().contains("name VARCHAR(20)"), e.getMessage());
      assertThrows(StorageException.class, () -> table.reader(3, 0));
    }
  }

  @Test
  void emptyTableRoundTrips() {
    try (Catalog catalog = Catalog.create(dir)) {
      try (TableWriter writer = catalog.createTable("empty", SCHEMA)) {
        writer.commit();
      }
    }
    try (Catalog catalog = Catalog.open(dir)) {
      StoredTable table = catalog.table("empty").orElseThrow();
      assertEquals(0, table.rowCount());
      assertTrue(table.batches().isEmpty());
      assertNull(table.statistics().column("m").min());
    }
  }

  @Test
  void dropRemovesFilesAndMemory() {
    try (Catalog catalog = Catalog.create(dir)) {
      writeTable(catalog);
      assertEquals(ROWS, catalog.table("everything").orElseThrow().batches().stream()
          .mapToInt(VectorSchemaRoot::getRowCount).sum());
      catalog.dropTable("everything");
      assertTrue(catalog.tableNames().isEmpty());
      assertEquals(0, catalog.allocatedBytes());
      assertFalse(Files.exists(dir.resolve("everything")));
      StorageException e = assertThrows(StorageException.class, () -> catalog.dropTable("everything"));
      assertTrue(e.getMessage().contains("does not exist"), e.getMessage());
    }
  }

  @Test
  void openReportsMissingOrNonDirectoryPaths() throws Exception {
    StorageException missing = assertThrows(StorageException.class, () -> Catalog.open(dir.resolve("nope")));
    assertEquals("data directory " + dir.resolve("nope") + " does not exist", missing.getMessage());
    Path file = Files.writeString(dir.resolve("file"), "x");
    StorageException notDir = assertThrows(StorageException.class, () -> Catalog.open(file));
    assertEquals("data directory " + file + " is not a directory", notDir.getMessage());
  }

  /** Epoch days of an ISO date, boxed as the storage API returns DATE values. */
  private static final class LocalDateDays {
    static Integer of(String iso) {
      return (int) java.time.LocalDate.parse(iso).toEpochDay();
    }
  }
}
