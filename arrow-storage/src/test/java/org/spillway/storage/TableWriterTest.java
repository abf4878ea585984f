package org.spillway.storage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TableWriterTest {
  private static final TableSchema SCHEMA = TableSchema.of(ColumnDef.of("k", "INTEGER NOT NULL"),
      ColumnDef.of("s", "VARCHAR(5)"));

  @TempDir
  Path dir;

  @AfterEach
  void allocatorBackToZero() {
    StorageLeaks.assertNone();
  }

  private static void appendRows(TableWriter writer, int rows) {
    BatchBuilder batch = writer.newBatch(rows);
    for (int row = 0; row < rows; row++) {
      batch.setInt(0, row, row);
      batch.setString(1, row, "s" + row % 2);
    }
    batch.setRowCount(rows);
    writer.append(batch);
  }

  private List<Path> entries() throws IOException {
    try (Stream<Path> paths = Files.list(dir)) {
      return paths.toList();
    }
  }

  @Test
  void closeWithoutCommitLeavesNothing() throws IOException {
    try (Catalog catalog = Catalog.create(dir)) {
      try (TableWriter writer = catalog.createTable("t", SCHEMA)) {
        appendRows(writer, 10);
        writer.newBatch(5); // neither appended nor closed: the writer's close frees it
        assertEquals(1, entries().size(), "a scratch directory while writing");
        assertTrue(catalog.table("t").isEmpty(), "invisible before commit");
      }
      assertTrue(catalog.tableNames().isEmpty());
      assertEquals(List.of(), entries());
      // the name is free again
      try (TableWriter writer = catalog.createTable("t", SCHEMA)) {
        appendRows(writer, 3);
        assertEquals(3, writer.commit().rowCount());
      }
    }
  }

  @Test
  void existingOrPendingNamesAreRejected() {
    try (Catalog catalog = Catalog.create(dir)) {
      try (TableWriter writer = catalog.createTable("t", SCHEMA)) {
        StorageException pending = assertThrows(StorageException.class, () -> catalog.createTable("T", SCHEMA));
        assertEquals("table t already exists in " + catalog.directory(), pending.getMessage());
        writer.commit();
      }
      assertThrows(StorageException.class, () -> catalog.createTable("t", SCHEMA));
      StorageException invalid = assertThrows(StorageException.class, () -> catalog.createTable("../x", SCHEMA));
      assertTrue(invalid.getMessage().startsWith("invalid table name '../x'"), invalid.getMessage());
    }
  }

  @Test
  void unsetNotNullRowsFailTheAppendButNotTheWriter() {
    try (Catalog catalog = Catalog.create(dir); TableWriter writer = catalog.createTable("t", SCHEMA)) {
      BatchBuilder batch = writer.newBatch(4);
      batch.setInt(0, 0, 1);
      batch.setRowCount(2);
      StorageException e = assertThrows(StorageException.class, () -> writer.append(batch));
      assertTrue(e.getMessage().contains("column k INTEGER, batch row 1"), e.getMessage());
      batch.setInt(0, 1, 2);
      writer.append(batch);
      StorageException twice = assertThrows(StorageException.class, () -> writer.append(batch));
      assertTrue(twice.getMessage().contains("already appended"), twice.getMessage());
      assertEquals(2, writer.commit().rowCount());
    }
  }

  @Test
  void commitRequiresEveryBatchHandledAndHappensOnce() {
    try (Catalog catalog = Catalog.create(dir); TableWriter writer = catalog.createTable("t", SCHEMA)) {
      BatchBuilder forgotten = writer.newBatch(1);
      StorageException open = assertThrows(StorageException.class, writer::commit);
      assertTrue(open.getMessage().contains("1 batch(es)"), open.getMessage());
      forgotten.close();
      appendRows(writer, 2);
      writer.commit();
      assertThrows(StorageException.class, writer::commit);
      assertThrows(StorageException.class, () -> writer.newBatch(1));
    }
  }

  @Test
  void duplicatePositionsFailAndTheTableIsDiscarded() throws IOException {
    try (Catalog catalog = Catalog.create(dir)) {
      try (TableWriter writer = catalog.createTable("t", SCHEMA)) {
        BatchBuilder first = writer.newBatch(1);
        first.setInt(0, 0, 1);
        first.setRowCount(1);
        writer.appendAt(7, first);
        BatchBuilder second = writer.newBatch(1);
        second.setInt(0, 0, 2);
        second.setRowCount(1);
        assertThrows(StorageException.class, () -> writer.appendAt(7, second));
        StorageException failed = assertThrows(StorageException.class, writer::commit);
        assertTrue(failed.getMessage().contains("after an earlier error"), failed.getMessage());
      }
      assertTrue(catalog.tableNames().isEmpty());
      assertEquals(List.of(), entries());
    }
  }

  @Test
  void valueChecksNameTableColumnAndRow() {
    try (Catalog catalog = Catalog.create(dir); TableWriter writer = catalog.createTable("t", SCHEMA);
        BatchBuilder batch = writer.newBatch(2)) {
      StorageException tooLong = assertThrows(StorageException.class, () -> batch.setString(1, 1, "abcdef"));
      assertEquals("table t, column s VARCHAR(5), batch row 1: value of length 6 exceeds VARCHAR(5)", tooLong.getMessage());
      StorageException notNull = assertThrows(StorageException.class, () -> batch.setNull(0, 0));
      assertTrue(notNull.getMessage().endsWith("NULL in a NOT NULL column"), notNull.getMessage());
      StorageException outside = assertThrows(StorageException.class, () -> batch.setInt(0, 2, 1));
      assertTrue(outside.getMessage().startsWith("row 2 is outside the batch capacity 2"), outside.getMessage());
    }
  }

  @Test
  void closingTheCatalogDiscardsUnfinishedWriters() throws IOException {
    Catalog catalog = Catalog.create(dir);
    TableWriter writer = catalog.createTable("t", SCHEMA);
    appendRows(writer, 100);
    writer.newBatch(10);
    catalog.close();
    assertEquals(List.of(), entries());
    assertThrows(StorageException.class, writer::commit);
  }
}
