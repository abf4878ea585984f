package org.spillway.storage.imports;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.math.BigDecimal;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.SmallIntVector;
import org.apache.arrow.vector.TimeStampMicroVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.dictionary.Dictionary;
import org.apache.arrow.vector.dictionary.DictionaryProvider;
import org.apache.arrow.vector.ipc.ArrowFileWriter;
import org.apache.arrow.vector.ipc.ArrowStreamWriter;
import org.apache.arrow.vector.ipc.ArrowWriter;
import org.apache.arrow.vector.types.pojo.DictionaryEncoding;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.spillway.storage.Catalog;
import org.spillway.storage.ColumnDef;
import org.spillway.storage.StorageException;
import org.spillway.storage.StoredTable;
import org.spillway.storage.TableSchema;
import org.spillway.storage.TestTables;

/** Arrow IPC files and streams, several record batches, a dictionary-encoded column, NULLs, timestamps. */
class ArrowImportTest {
  private static final int BATCHES = 3;
  private static final int ROWS_PER_BATCH = 100;
  private static final String[] WORDS = {"alpha", "beta", "gamma"};

  @TempDir Path dir;

  @Test
  void fileAndStreamFormatsReadBackExactly() throws IOException {
    for (boolean fileFormat : new boolean[] {true, false}) {
      Path file = write(dir.resolve(fileFormat ? "t.arrow" : "t.arrows"), fileFormat, false);
      List<long[]> progress = new ArrayList<>();
      try (Catalog catalog = Catalog.create(dir.resolve("data-" + fileFormat))) {
        StoredTable table = TableImport.run(catalog, "t", List.of(file), ImportOptions.defaults().withThreads(1)
            .withTimestamps(TimestampMode.MICROS).withProgress((done, total) -> progress.add(new long[] {done, total})))
            .table();
        long[] last = progress.get(progress.size() - 1);
        assertEquals(BATCHES * ROWS_PER_BATCH, last[0]);
        if (fileFormat) {
          // the file's footer lists its record batches, so the total is extrapolated from those read
          assertEquals(BATCHES * ROWS_PER_BATCH, last[1]);
        }
        assertEquals(TableSchema.of(ColumnDef.of("small", "INTEGER"), ColumnDef.of("price", "DECIMAL(15,2)"),
            ColumnDef.of("word", "VARCHAR"), ColumnDef.of("at", "BIGINT")), table.schema());
        List<List<Object>> rows = TestTables.rows(table);
        assertEquals(BATCHES * ROWS_PER_BATCH, rows.size());
        for (int i = 0; i < rows.size(); i++) {
          assertEquals(expected(i), rows.get(i), "row " + i + (fileFormat ? " of the file" : " of the stream"));
        }
      }
    }
  }

  @Test
  void booleanColumnIsRefusedWithoutTable() throws IOException {
    Path file = write(dir.resolve("b.arrow"), true, true);
    try (Catalog catalog = Catalog.create(dir.resolve("data"))) {
      StorageException e = assertThrows(StorageException.class,
          () -> TableImport.run(catalog, "t", List.of(file), ImportOptions.defaults()));
      assertTrue(e.getMessage().startsWith(file + ": column flag of Arrow type Bool cannot be imported"),
          e.getMessage());
      assertEquals(List.of(), catalog.tableNames());
    }
  }

  @Test
  void notArrowIsRefused() throws IOException {
    Path file = Files.writeString(dir.resolve("x.arrow"), "ARROW1 but nothing else");
    try (Catalog catalog = Catalog.create(dir.resolve("data"))) {
      StorageException e = assertThrows(StorageException.class,
          () -> TableImport.run(catalog, "t", List.of(file), ImportOptions.defaults()));
      assertTrue(e.getMessage().startsWith(file + ": not a readable Arrow IPC file"), e.getMessage());
      assertEquals(List.of(), catalog.tableNames());
    }
  }

  private static List<Object> expected(int i) {
    return Arrays.asList(i % 11 == 0 ? null : i - 150, BigDecimal.valueOf(i * 1001L, 2),
        i % 7 == 0 ? null : WORDS[i % 3], 1_700_000_000_000_000L + i);
  }

  private static Path write(Path file, boolean fileFormat, boolean withBoolean) throws IOException {
    try (BufferAllocator allocator = new RootAllocator();
        VarCharVector dictionaryValues = new VarCharVector("words", allocator)) {
      for (int i = 0; i < WORDS.length; i++) {
        dictionaryValues.setSafe(i, WORDS[i].getBytes(StandardCharsets.UTF_8));
      }
      dictionaryValues.setValueCount(WORDS.length);
      Dictionary dictionary = new Dictionary(dictionaryValues, new DictionaryEncoding(1, false, null));
      DictionaryProvider.MapDictionaryProvider provider = new DictionaryProvider.MapDictionaryProvider(dictionary);
      SmallIntVector small = new SmallIntVector("small", allocator);
      DecimalVector price = new DecimalVector("price", allocator, 15, 2);
      VarCharVector plainWords = new VarCharVector("word", allocator);
      TimeStampMicroVector at = new TimeStampMicroVector("at", FieldType.nullable(
          new org.apache.arrow.vector.types.pojo.ArrowType.Timestamp(
              org.apache.arrow.vector.types.TimeUnit.MICROSECOND, null)), allocator);
      BitVector flag = new BitVector("flag", allocator);
      List<FieldVector> vectors = withBoolean ? List.of(flag) : List.of(small, price,
          encoded(plainWords, dictionary), at);
      try (VectorSchemaRoot root = new VectorSchemaRoot(vectors);
          FileChannel channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
          ArrowWriter writer = fileFormat ? new ArrowFileWriter(root, provider, channel)
              : new ArrowStreamWriter(root, provider, channel)) {
        writer.start();
        for (int b = 0; b < BATCHES; b++) {
          root.allocateNew();
          for (int r = 0; r < ROWS_PER_BATCH; r++) {
            int i = b * ROWS_PER_BATCH + r;
            if (withBoolean) {
              flag.setSafe(r, i % 2);
              continue;
            }
            if (i % 11 != 0) {
              small.setSafe(r, (short) (i - 150));
            }
            price.setSafe(r, i * 1001L);
            if (i % 7 != 0) {
              ((IntVector) root.getVector(2)).setSafe(r, i % 3);
            }
            at.setSafe(r, 1_700_000_000_000_000L + i);
          }
          root.setRowCount(ROWS_PER_BATCH);
          writer.writeBatch();
        }
        writer.end();
      } finally {
        plainWords.close();
      }
    }
    return file;
  }

  /** The Int32 codes of a dictionary-encoded text column. */
  private static FieldVector encoded(VarCharVector plain, Dictionary dictionary) {
    return new IntVector("word", new FieldType(true, new org.apache.arrow.vector.types.pojo.ArrowType.Int(32, true),
        dictionary.getEncoding()), plain.getAllocator());
  }
}
