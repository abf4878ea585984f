package org.spillway.storage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** One bad table fails alone, with its name, the file and the reason; the catalog serves every other table. */
class BrokenTableTest {
  private static final TableSchema SCHEMA = TableSchema.of(ColumnDef.of("k", "INTEGER NOT NULL"));

  @TempDir
  Path dir;

  @AfterEach
  void allocatorBackToZero() {
    StorageLeaks.assertNone();
  }

  private void createTables(String... names) {
    try (Catalog catalog = Catalog.create(dir)) {
      for (String name : names) {
        try (TableWriter writer = catalog.createTable(name, SCHEMA)) {
          BatchBuilder batch = writer.newBatch(3);
          for (int row = 0; row < 3; row++) {
            batch.setInt(0, row, row);
          }
          batch.setRowCount(3);
          writer.append(batch);
          writer.commit();
        }
      }
    }
  }

  private String failure(Catalog catalog, String table) {
    return assertThrows(StorageException.class, () -> catalog.table(table).orElseThrow().batches()).getMessage();
  }

  @Test
  void invalidJsonWrongTypeAndADirectoryInPlaceOfTheSidecarEachFailAlone() throws IOException {
    createTables("good", "badjson", "badtype", "dirsidecar");
    Files.writeString(dir.resolve("badjson/table.json"), "{\"format\": 2, \"name\": ");
    Path typed = dir.resolve("badtype/table.json");
    Files.writeString(typed, Files.readString(typed).replace("\"INTEGER NOT NULL\"", "\"BLOB\""));
    Files.delete(dir.resolve("dirsidecar/table.json"));
    Files.createDirectory(dir.resolve("dirsidecar/table.json"));
    try (Catalog catalog = Catalog.open(dir)) {
      assertEquals(List.of("badjson", "badtype", "dirsidecar", "good"), catalog.tableNames());
      assertEquals(3, TestTables.rows(catalog.table("good").orElseThrow()).size());
      assertTrue(failure(catalog, "badjson").startsWith("table badjson: cannot read table metadata "
          + dir.resolve("badjson/table.json") + ": Unexpected end-of-input"), failure(catalog, "badjson"));
      assertTrue(failure(catalog, "BadType").startsWith("table badtype: cannot read table metadata " + typed + ": "),
          failure(catalog, "badtype"));
      assertTrue(failure(catalog, "badtype").contains("BLOB"), failure(catalog, "badtype"));
      assertEquals("table dirsidecar: cannot read table metadata " + dir.resolve("dirsidecar/table.json")
          + ": Is a directory", failure(catalog, "dirsidecar"));
      assertEquals(3, catalog.brokenTables().size());
      // a broken table can be dropped, and its name reused
      assertThrows(StorageException.class, () -> catalog.createTable("badjson", SCHEMA));
      catalog.dropTable("badjson");
      assertFalse(Files.exists(dir.resolve("badjson")));
      assertEquals(List.of("badtype", "dirsidecar", "good"), catalog.tableNames());
    }
  }

  @Test
  void aDirectoryInPlaceOfADataFileAndAWrongColumnTypeFailTheLoadWithTheFile() throws IOException {
    createTables("good", "dirfile", "retyped");
    Path file = dir.resolve("dirfile/part-000000.arrow");
    Files.delete(file);
    Files.createDirectory(file);
    // a sidecar that declares another type than the file holds (checksums are fine: the data is intact)
    Path sidecar = dir.resolve("retyped/table.json");
    Files.writeString(sidecar, Files.readString(sidecar).replace("\"INTEGER NOT NULL\"", "\"BIGINT NOT NULL\""));
    try (Catalog catalog = Catalog.open(dir)) {
      assertEquals("table dirfile: file " + file + ": is a directory, not a data file", failure(catalog, "dirfile"));
      assertEquals("table retyped: file " + dir.resolve("retyped/part-000000.arrow") + ": column 0 is k INTEGER NOT NULL"
          + " but the table declares k BIGINT NOT NULL", failure(catalog, "retyped"));
      assertEquals(3, TestTables.rows(catalog.table("good").orElseThrow()).size());
    }
  }

  @Test
  void permissionDeniedAndMissingFilesAreSaidInWords() {
    // tests run as root, where chmod does not deny reads: the wording is checked on the exceptions themselves
    assertEquals("permission denied", IoErrors.reason(new AccessDeniedException("/data/t/table.json")));
    assertEquals("permission denied", IoErrors.reason(new java.io.UncheckedIOException(
        new AccessDeniedException("/data/t/part-000000.arrow"))));
    assertEquals("no such file", IoErrors.reason(new NoSuchFileException("/data/t/part-000000.arrow")));
  }

  @Test
  void storageFailuresCarryTheirSqlState() {
    StorageException io = new StorageException("table t: cannot read", new AccessDeniedException("/data/t"));
    assertEquals(StorageException.IO_ERROR, io.getSqlState());
    assertEquals(StorageException.IO_ERROR, new StorageException("table t: broken", io).getSqlState(),
        "a failure wrapped with the table's name keeps its cause's state");
    assertEquals(StorageException.DATA_CORRUPTED,
        new StorageException("table t: broken", StorageException.corrupted("bad bytes", null)).getSqlState());
    assertEquals(null, new StorageException("line 3: 2 fields, 3 expected").getSqlState(),
        "the JDBC layer classifies the rest");
  }

  @Test
  void aMissingDataFileNamesTableAndFile() throws IOException {
    createTables("t");
    Path file = dir.resolve("t/part-000000.arrow");
    Files.delete(file);
    try (Catalog catalog = Catalog.open(dir)) {
      assertEquals("table t: file " + file + ": no such file", failure(catalog, "t"));
    }
  }
}
