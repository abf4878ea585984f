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

/**
 * A commit whose dictionary rewrite fails for one staged file (or, for batches staged in memory, one final file)
 * reports that file's error, even when the cleanup fails too, and leaves neither scratch files, nor a table, nor
 * memory behind. Batches staged in memory and in files make the same table files.
 */
class FailedCommitTest {
  /** {@code s} has few distinct values, so the commit dictionary-encodes it and rewrites every staged file. */
  private static final TableSchema SCHEMA = TableSchema.of(ColumnDef.of("k", "INTEGER NOT NULL"),
      ColumnDef.of("s", "VARCHAR(8)"));
  private static final int BATCHES = 64;

  @TempDir
  Path dir;

  @AfterEach
  void allocatorBackToZero() {
    StorageLeaks.assertNone();
  }

  private static void appendBatches(TableWriter writer) {
    appendBatches(writer, 0);
  }

  /** Appends the batches, staging at most {@code inMemory} bytes of them in memory, the rest in files. */
  private static void appendBatches(TableWriter writer, long inMemory) {
    writer.stageInMemoryUpTo(inMemory);
    for (int b = 0; b < BATCHES; b++) {
      BatchBuilder batch = writer.newBatch(50);
      for (int row = 0; row < 50; row++) {
        batch.setInt(0, row, b * 50 + row);
        batch.setString(1, row, "v" + row % 3);
      }
      batch.setRowCount(50);
      writer.append(batch);
    }
  }

  private List<Path> entries() throws IOException {
    return entries(dir);
  }

  private static List<Path> entries(Path directory) throws IOException {
    try (Stream<Path> paths = Files.list(directory)) {
      return paths.toList();
    }
  }

  /** The writer's temporary directory, the only entry of the data directory while it writes. */
  private Path scratchDirectory() throws IOException {
    List<Path> entries = entries();
    assertEquals(1, entries.size(), "one scratch directory while writing: " + entries);
    assertTrue(entries.get(0).getFileName().toString().startsWith(".t.tmp-"), entries.toString());
    return entries.get(0);
  }

  private void assertNothingLeft(Catalog catalog) throws IOException {
    assertEquals(List.of(), entries(), "no scratch directory");
    assertTrue(catalog.table("t").isEmpty());
    assertEquals(List.of(), catalog.tableNames());
    try (TableWriter again = catalog.createTable("t", SCHEMA)) {  // the name is free again
      assertEquals(0, again.commit().rowCount());
    }
  }

  @Test
  void aRewriteThatFailsForOneFileReportsThatFileAndLeavesNothing() throws IOException {
    try (Catalog catalog = Catalog.create(dir)) {
      try (TableWriter writer = catalog.createTable("t", SCHEMA)) {
        appendBatches(writer);
        Path damaged = scratchDirectory().resolve("staging").resolve("17.arrow");
        Files.write(damaged, new byte[] {1, 2, 3, 4, 5, 6, 7, 8});
        StorageException failure = assertThrows(StorageException.class, writer::commit);
        assertTrue(failure.getMessage().startsWith("cannot read Arrow file " + damaged + ": "), failure.getMessage());
      }
      assertNothingLeft(catalog);
    }
    try (Catalog reopened = Catalog.open(dir)) {
      assertEquals(List.of("t"), reopened.tableNames(), "only the table written again");
    }
  }

  @Test
  void aFinalFileThatCannotBeWrittenFromMemoryLeavesNothing() throws IOException {
    try (Catalog catalog = Catalog.create(dir)) {
      try (TableWriter writer = catalog.createTable("t", SCHEMA)) {
        appendBatches(writer, Long.MAX_VALUE);
        assertEquals(List.of(), entries(scratchDirectory().resolve("staging")), "every batch staged in memory");
        Path inTheWay = scratchDirectory().resolve("part-000003.arrow");
        Files.write(inTheWay, new byte[] {1});
        StorageException failure = assertThrows(StorageException.class, writer::commit);
        assertTrue(failure.getMessage().startsWith("cannot write Arrow file " + inTheWay + ": "), failure.getMessage());
      }
      assertNothingLeft(catalog);
    }
  }

  /** Every batch in memory, every batch in a file, or some of each: the same bytes in the table's files. */
  @Test
  void batchesStagedInMemoryOrInFilesMakeTheSameFiles() throws IOException {
    List<List<byte[]>> tables = new java.util.ArrayList<>();
    try (Catalog catalog = Catalog.create(dir)) {
      long[] budgets = {Long.MAX_VALUE, 0, 10_000};
      for (int i = 0; i < budgets.length; i++) {
        StoredTable table;
        try (TableWriter writer = catalog.createTable("t" + i, SCHEMA)) {
          appendBatches(writer, budgets[i]);
          table = writer.commit();
        }
        assertTrue(table.isDictionaryEncoded(1));
        List<byte[]> files = new java.util.ArrayList<>();
        for (Path file : entries(table.directory()).stream().filter(p -> p.toString().endsWith(".arrow")).sorted()
            .toList()) {
          files.add(Files.readAllBytes(file));
        }
        assertEquals(BATCHES, files.size());
        tables.add(files);
      }
    }
    for (int t = 1; t < tables.size(); t++) {
      for (int f = 0; f < BATCHES; f++) {
        assertTrue(java.util.Arrays.equals(tables.get(0).get(f), tables.get(t).get(f)), "table " + t + ", file " + f);
      }
    }
  }

  @Test
  void aFailedCleanupDoesNotReplaceTheCommitsError() throws IOException {
    try (Catalog catalog = Catalog.create(dir)) {
      try (TableWriter writer = catalog.createTable("t", SCHEMA)) {
        appendBatches(writer);
        Path scratch = scratchDirectory();
        Path missing = scratch.resolve("staging").resolve("5.arrow");
        Files.delete(missing);
        // the writer's lock file replaced by a non-empty directory: releasing the lock cannot delete it
        Path lock = scratch.resolve(TableWriter.LOCK);
        Files.delete(lock);
        Files.createDirectories(lock.resolve("in-the-way"));
        StorageException failure = assertThrows(StorageException.class, writer::commit);
        assertTrue(failure.getMessage().startsWith("cannot read Arrow file " + missing + ": "), failure.getMessage());
        assertEquals(1, failure.getSuppressed().length, List.of(failure.getSuppressed()).toString());
        assertTrue(failure.getSuppressed()[0].getMessage().startsWith("cannot delete " + lock),
            failure.getSuppressed()[0].getMessage());
      }
      assertNothingLeft(catalog);  // the later cleanup steps ran all the same
    }
  }
}
