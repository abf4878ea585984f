package org.spillway.storage;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A writer's batches staged in {@link RecycledMemory} make the same table as in the catalog's memory (encoded and
 * plain columns: the commit moves a batch's plain vectors into the encoded batch, within the staging allocator), the
 * commit or a discarded write releases all of it, and what one write released serves the next.
 */
class StagingMemoryTest {
  /** {@code k}'s batches are large enough (160 KB) to be kept; {@code s} is encoded, {@code t} stays plain. */
  private static final TableSchema SCHEMA = TableSchema.of(ColumnDef.of("k", "BIGINT NOT NULL"),
      ColumnDef.of("s", "VARCHAR(8)"), ColumnDef.of("t", "VARCHAR"));
  private static final int ROWS = 20_000;
  private static final int BATCHES = 6;

  @TempDir
  Path dir;

  @AfterEach
  void everythingReleased() {
    System.clearProperty(StagingMemory.PROPERTY);
    StorageLeaks.assertNone();
  }

  private static void appendBatches(TableWriter writer) {
    for (int b = 0; b < BATCHES; b++) {
      BatchBuilder batch = writer.newBatch(ROWS);
      for (int row = 0; row < ROWS; row++) {
        long k = (long) b * ROWS + row;
        batch.setLong(0, row, k);
        if (row % 7 == 0) {
          batch.setNull(1, row);
        } else {
          batch.setString(1, row, "v" + row % 3);
        }
        batch.setString(2, row, "text " + k * 31);
      }
      batch.setRowCount(ROWS);
      writer.append(batch);
    }
  }

  private List<byte[]> writeTable(Catalog catalog, String name, boolean recycled) throws IOException {
    System.setProperty(StagingMemory.PROPERTY, Boolean.toString(recycled));
    StoredTable table;
    try (TableWriter writer = catalog.createTable(name, SCHEMA)) {
      appendBatches(writer);
      table = writer.commit();
    }
    assertTrue(table.isDictionaryEncoded(1));
    assertFalse(table.isDictionaryEncoded(2));
    List<byte[]> files = new ArrayList<>();
    try (Stream<Path> paths = Files.list(table.directory())) {
      for (Path file : paths.filter(p -> p.toString().endsWith(".arrow")).sorted().toList()) {
        files.add(Files.readAllBytes(file));
      }
    }
    assertEquals(BATCHES, files.size());
    return files;
  }

  @Test
  void recycledStagingMakesTheFilesOfTheCatalogsMemory() throws IOException {
    try (Catalog catalog = Catalog.create(dir)) {
      List<byte[]> plain = writeTable(catalog, "plain", false);
      List<byte[]> recycled = writeTable(catalog, "recycled", true);
      List<byte[]> again = writeTable(catalog, "again", true);  // in memory the first write handed back
      for (int f = 0; f < BATCHES; f++) {
        assertArrayEquals(plain.get(f), recycled.get(f), "file " + f);
        assertArrayEquals(plain.get(f), again.get(f), "file " + f);
      }
    }
  }

  @Test
  void aCommittedWriteLeavesItsMemoryForTheNext() throws IOException {
    try (Catalog catalog = Catalog.create(dir)) {
      writeTable(catalog, "first", true);
      assertTrue(RecycledMemory.shared().keptBytes() >= (long) ROWS * 8, "the staged BIGINT buffers are kept");
    }
  }

  @Test
  void aDiscardedWriteReleasesItsStagedBatches() throws IOException {
    System.setProperty(StagingMemory.PROPERTY, "true");
    try (Catalog catalog = Catalog.create(dir)) {
      try (TableWriter writer = catalog.createTable("t", SCHEMA)) {
        appendBatches(writer);
        writer.newBatch(ROWS);  // neither appended nor closed: the writer's close releases it too
        assertTrue(RecycledMemory.shared().outstandingBytes() > 0);
      }
      assertTrue(catalog.table("t").isEmpty());
    }
  }
}
