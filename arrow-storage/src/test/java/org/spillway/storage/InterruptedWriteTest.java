package org.spillway.storage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.UUID;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A write killed mid-way leaves only scratch directories (a killed process's lock is gone); the next open
 * deletes them, but never the scratch of a writer that is still running.
 */
class InterruptedWriteTest {
  private static final TableSchema SCHEMA = TableSchema.of(ColumnDef.of("k", "INTEGER NOT NULL"));

  @TempDir
  Path dir;

  @AfterEach
  void allocatorBackToZero() {
    StorageLeaks.assertNone();
  }

  private List<String> entries() throws IOException {
    try (Stream<Path> paths = Files.list(dir)) {
      return paths.map(p -> p.getFileName().toString()).sorted().toList();
    }
  }

  /** What a writer killed after staging a batch leaves: its directory, a staged file and an unlocked lock file. */
  private Path killedWriterScratch(String table) throws IOException {
    Path scratch = dir.resolve("." + table + ".tmp-" + UUID.randomUUID());
    Files.createDirectories(scratch.resolve("staging"));
    Files.write(scratch.resolve("staging/0.arrow"), new byte[100]);
    Files.createFile(scratch.resolve(TableWriter.LOCK));
    return scratch;
  }

  @Test
  void scratchOfKilledWritersAndDropsIsDeletedOnOpen() throws IOException {
    try (Catalog catalog = Catalog.create(dir)) {
      try (TableWriter writer = catalog.createTable("kept", SCHEMA)) {
        writer.commit();
      }
    }
    killedWriterScratch("lineitem");
    Files.createDirectories(dir.resolve(".orders.tmp-" + UUID.randomUUID()));  // killed before it locked
    Path drop = dir.resolve(".part.drop-" + UUID.randomUUID());
    Files.createDirectories(drop);
    Files.writeString(drop.resolve("table.json"), "{}");
    Files.writeString(dir.resolve(".not-scratch"), "left alone");
    try (Catalog catalog = Catalog.open(dir)) {
      assertEquals(List.of(".not-scratch", "kept"), entries());
      assertEquals(List.of("kept"), catalog.tableNames());
      // the interrupted table can simply be written again
      try (TableWriter writer = catalog.createTable("lineitem", SCHEMA)) {
        writer.commit();
      }
    }
  }

  @Test
  void aLiveWritersScratchSurvivesAnotherOpenAndCommits() throws IOException {
    try (Catalog writing = Catalog.create(dir); TableWriter writer = writing.createTable("t", SCHEMA)) {
      List<String> scratch = entries();
      assertEquals(1, scratch.size());
      assertTrue(OwnerLock.isHeld(dir.resolve(scratch.get(0)).resolve(TableWriter.LOCK)));
      try (Catalog other = Catalog.open(dir)) {
        assertEquals(scratch, entries());
      }
      BatchBuilder batch = writer.newBatch(1);
      batch.setInt(0, 0, 7);
      batch.setRowCount(1);
      writer.append(batch);
      assertEquals(1, writer.commit().rowCount());
      assertEquals(List.of("t"), entries());
      try (Stream<Path> files = Files.list(dir.resolve("t"))) {
        assertFalse(files.anyMatch(f -> f.getFileName().toString().equals(TableWriter.LOCK)), "lock file removed");
      }
    }
  }

  @Test
  void ownerLockIsHeldUntilClosedAndOnlyOnce() throws IOException {
    Path file = dir.resolve(".marker");
    assertFalse(OwnerLock.isHeld(file));
    try (OwnerLock lock = OwnerLock.acquire(file)) {
      assertTrue(OwnerLock.isHeld(file));
      assertThrows(StorageException.class, () -> OwnerLock.acquire(file));
    }
    assertFalse(Files.exists(file));
    Files.createFile(file);  // left by a killed process: present, unlocked
    assertFalse(OwnerLock.isHeld(file));
  }
}
