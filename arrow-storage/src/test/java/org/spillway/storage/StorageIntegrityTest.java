package org.spillway.storage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.ipc.ArrowFileReader;
import org.apache.arrow.vector.ipc.ReadChannel;
import org.apache.arrow.vector.ipc.message.ArrowBlock;
import org.apache.arrow.vector.ipc.message.ArrowRecordBatch;
import org.apache.arrow.vector.ipc.message.MessageSerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Damaged data files fail their table's load with the file, the table and the reason; nothing else breaks. */
class StorageIntegrityTest {
  private static final TableSchema SCHEMA = TableSchema.of(ColumnDef.of("k", "INTEGER NOT NULL"),
      ColumnDef.of("price", "DOUBLE NOT NULL"), ColumnDef.of("shipped", "DATE"));
  private static final int ROWS = 1000;

  @TempDir
  Path dir;

  @AfterEach
  void allocatorBackToZero() {
    StorageLeaks.assertNone();
  }

  /** A table of two files (one per batch). */
  private static void write(Catalog catalog, String name) {
    try (TableWriter writer = catalog.createTable(name, SCHEMA)) {
      for (int b = 0; b < 2; b++) {
        BatchBuilder batch = writer.newBatch(ROWS);
        for (int row = 0; row < ROWS; row++) {
          batch.setInt(0, row, b * ROWS + row);
          batch.setDouble(1, row, row * 1.5);
          batch.setDate(2, row, 9000 + row);
        }
        batch.setRowCount(ROWS);
        writer.append(batch);
      }
      writer.commit();
    }
  }

  private static void flipBit(Path file, long offset) throws IOException {
    try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
      ByteBuffer one = ByteBuffer.allocate(1);
      channel.read(one, offset);
      one.put(0, (byte) (one.get(0) ^ 0x10)).rewind();
      channel.write(one, offset);
    }
  }

  /** Byte offset in the file of a buffer of the first record batch (buffer 0: column 0's validity). */
  private static long bufferOffset(Path file, int buffer) throws IOException {
    try (BufferAllocator allocator = StorageAllocator.newChild("test");
        FileChannel channel = FileChannel.open(file, StandardOpenOption.READ);
        ArrowFileReader reader = new ArrowFileReader(channel, allocator)) {
      ArrowBlock block = reader.getRecordBlocks().get(0);
      channel.position(block.getOffset());
      try (ArrowRecordBatch batch = MessageSerializer.deserializeRecordBatch(new ReadChannel(channel), block, allocator)) {
        return block.getOffset() + block.getMetadataLength() + batch.getBuffersLayout().get(buffer).getOffset();
      }
    }
  }

  /** Rewrites a table's sidecar as format 1 wrote it: file names only, no sizes or checksums. */
  private static void downgradeToFormatOne(Path table) throws IOException {
    ObjectMapper json = new ObjectMapper();
    ObjectNode root = (ObjectNode) json.readTree(table.resolve("table.json").toFile());
    root.put("format", 1);
    ArrayNode names = json.createArrayNode();
    root.get("files").forEach(file -> names.add(file.get("name").asText()));
    root.set("files", names);
    json.writeValue(table.resolve("table.json").toFile(), root);
  }

  @Test
  void aFlippedBitFailsItsTableWithFileAndChecksumMismatchAndTheRestServes() throws IOException {
    try (Catalog catalog = Catalog.create(dir)) {
      write(catalog, "lineitem");
      write(catalog, "orders");
    }
    Path damaged = dir.resolve("lineitem").resolve("part-000001.arrow");
    flipBit(damaged, bufferOffset(damaged, 4) + 8 * 500 + 6);  // a bit of the exponent of price[500]
    try (Catalog catalog = Catalog.open(dir)) {
      StoredTable lineitem = catalog.table("lineitem").orElseThrow();
      StorageException e = assertThrows(StorageException.class, lineitem::batches);
      assertEquals(StorageException.DATA_CORRUPTED, e.getSqlState());
      assertTrue(e.getMessage().startsWith("table lineitem: file " + damaged + ": checksum mismatch in bytes 0.."),
          e.getMessage());
      assertEquals(0, lineitem.allocatedBytes());
      assertThrows(StorageException.class, lineitem::batches, "fails again, never serves the damaged data");
      assertEquals(2 * ROWS, TestTables.rows(catalog.table("orders").orElseThrow()).size());
    }
  }

  @Test
  void aTruncatedFileIsAMismatchToo() throws IOException {
    try (Catalog catalog = Catalog.create(dir)) {
      write(catalog, "t");
    }
    Path file = dir.resolve("t").resolve("part-000000.arrow");
    long size = Files.size(file);
    try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
      channel.truncate(size - 8);
    }
    try (Catalog catalog = Catalog.open(dir)) {
      StorageException e = assertThrows(StorageException.class, () -> catalog.table("t").orElseThrow().batches());
      assertEquals("table t: file " + file + ": checksum mismatch: " + (size - 8) + " bytes, " + size
          + " were written", e.getMessage());
    }
  }

  @Test
  void checksumsCoverEveryChunkOfALargeFile() throws IOException {
    Path file = dir.resolve("big.bin");
    byte[] data = new byte[FileChecksum.CHUNK_BYTES * 2 + 123];
    new java.util.Random(7).nextBytes(data);
    Files.write(file, data);
    FileChecksum checksum = FileChecksum.of(file);
    assertEquals(3, checksum.chunkCrcs().size());
    assertEquals(data.length, checksum.bytes());
    checksum.verify(file, "t");
    flipBit(file, data.length - 1);
    StorageException e = assertThrows(StorageException.class, () -> checksum.verify(file, "t"));
    assertTrue(e.getMessage().contains("checksum mismatch in bytes " + 2L * FileChecksum.CHUNK_BYTES + ".."
        + (data.length - 1)), e.getMessage());
  }

  @Test
  void tablesWrittenBeforeChecksumsStillLoadAndNotNullDamageIsCaught() throws IOException {
    try (Catalog catalog = Catalog.create(dir)) {
      write(catalog, "old");
    }
    downgradeToFormatOne(dir.resolve("old"));
    try (Catalog catalog = Catalog.open(dir)) {
      assertEquals(2 * ROWS, TestTables.rows(catalog.table("old").orElseThrow()).size());
    }
    Path file = dir.resolve("old").resolve("part-000000.arrow");
    flipBit(file, bufferOffset(file, 0));  // clears a validity bit of the NOT NULL column k
    try (Catalog catalog = Catalog.open(dir)) {
      StorageException e = assertThrows(StorageException.class, () -> catalog.table("old").orElseThrow().batches());
      assertEquals("table old: file " + file + ": column k is NOT NULL but holds 1 NULL(s): the file is damaged;"
          + " restore or regenerate the table", e.getMessage());
    }
  }

  @Test
  void sidecarListsSizesAndChunkChecksums() throws IOException {
    try (Catalog catalog = Catalog.create(dir)) {
      write(catalog, "t");
    }
    var root = new ObjectMapper().readTree(dir.resolve("t").resolve("table.json").toFile());
    assertEquals(2, root.get("format").asInt());
    var file = root.get("files").get(1);
    assertEquals("part-000001.arrow", file.get("name").asText());
    assertEquals(Files.size(dir.resolve("t").resolve("part-000001.arrow")), file.get("bytes").asLong());
    assertEquals(List.of(FileChecksum.of(dir.resolve("t").resolve("part-000001.arrow")).chunkCrcs().get(0)),
        List.of(file.get("crc32c").get(0).asLong()));
  }
}
