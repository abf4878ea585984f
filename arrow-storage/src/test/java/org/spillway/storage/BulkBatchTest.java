package org.spillway.storage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.math.BigDecimal;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link BatchBuilder#putValues} and {@link BatchBuilder#putUtf8} make the table the setters make (values, NULLs,
 * text bytes, rows after a partly filled word of validity bits), and refuse what the setters refuse: NULL in a NOT
 * NULL column, a column of another layout, too few bytes.
 */
class BulkBatchTest {
  private static final VarHandle INTS = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);
  private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
  private static final TableSchema SCHEMA = TableSchema.of(ColumnDef.of("k", "INTEGER NOT NULL"),
      ColumnDef.of("d", "DECIMAL(9,2)"), ColumnDef.of("s", "VARCHAR"));
  private static final int ROWS = 21;

  @TempDir
  Path dir;

  @AfterEach
  void allocatorBackToZero() {
    StorageLeaks.assertNone();
  }

  private static String text(int row) {
    return row % 5 == 0 ? null : row % 3 == 0 ? "é" + row : "t" + row;
  }

  private static Long decimal(int row) {
    return row % 4 == 1 ? null : row * 1_001L - 7;
  }

  @Test
  void bulkColumnsMakeTheTableTheSettersMake() {
    try (Catalog catalog = Catalog.create(dir.resolve("data"))) {
      List<List<Object>> bySetters;
      try (TableWriter writer = catalog.createTable("setters", SCHEMA)) {
        BatchBuilder batch = writer.newBatch(ROWS);
        for (int row = 0; row < ROWS; row++) {
          batch.setInt(0, row, row * 7);
          if (decimal(row) == null) {
            batch.setNull(1, row);
          } else {
            batch.setDecimal(1, row, decimal(row));
          }
          batch.setString(2, row, text(row));
        }
        batch.setRowCount(ROWS);
        writer.append(batch);
        bySetters = TestTables.rows(writer.commit());
      }
      List<List<Object>> inBulk;
      try (TableWriter writer = catalog.createTable("bulk", SCHEMA)) {
        BatchBuilder batch = writer.newBatch(ROWS);
        byte[] ints = new byte[ROWS * 4];
        byte[] longs = new byte[ROWS * 8];
        boolean[] decimalNulls = new boolean[ROWS];
        boolean[] textNulls = new boolean[ROWS];
        byte[] offsets = new byte[(ROWS + 1) * 4];
        byte[] data = new byte[1000];
        int length = 0;
        for (int row = 0; row < ROWS; row++) {
          INTS.set(ints, row * 4, row * 7);
          decimalNulls[row] = decimal(row) == null;
          LONGS.set(longs, row * 8, decimalNulls[row] ? 0L : decimal(row));
          textNulls[row] = text(row) == null;
          if (!textNulls[row]) {
            byte[] utf8 = text(row).getBytes(StandardCharsets.UTF_8);
            System.arraycopy(utf8, 0, data, length, utf8.length);
            length += utf8.length;
          }
          INTS.set(offsets, (row + 1) * 4, length);
        }
        batch.putValues(0, ints, null, ROWS);
        batch.putValues(1, longs, decimalNulls, ROWS);
        batch.putUtf8(2, offsets, data, textNulls, ROWS);
        batch.setRowCount(ROWS);
        writer.append(batch);
        inBulk = TestTables.rows(writer.commit());
      }
      assertEquals(bySetters, inBulk);
      assertEquals(BigDecimal.valueOf(2 * 1_001L - 7, 2), inBulk.get(2).get(1));
    }
  }

  /**
   * A fixed-width column allocated without zeroing its data holds the memory Arrow's {@code allocateNew} would have
   * allocated (one allocation for validity and data, rounded up alike), which the staging limit counts: more would
   * stage batches in files that fitted in memory before.
   */
  @Test
  void undefinedDataHoldsTheMemoryAllocateNewHolds() {
    TableSchema schema = TableSchema.of(ColumnDef.of("k", "BIGINT"), ColumnDef.of("v", "INTEGER"),
        ColumnDef.of("d", "DATE"));
    for (int capacity : new int[] {1, 1000, 122_880}) {
      try (Catalog catalog = Catalog.create(dir.resolve("data-" + capacity));
          TableWriter writer = catalog.createTable("t", schema);
          org.apache.arrow.memory.BufferAllocator arrow = new org.apache.arrow.memory.RootAllocator()) {
        BatchBuilder batch = writer.newBatch(capacity);
        for (int col = 0; col < schema.size(); col++) {
          org.apache.arrow.vector.FieldVector vector = batch.vector(col);
          try (org.apache.arrow.vector.FieldVector expected =
              org.spillway.storage.ArrowFieldMapping.plainField(schema.column(col)).createVector(arrow)) {
            ((org.apache.arrow.vector.BaseFixedWidthVector) expected).allocateNew(capacity);
            assertEquals(heldBytes(expected), heldBytes(vector), "column " + col + ", capacity " + capacity);
          }
        }
        batch.close();
      }
    }
  }

  /**
   * The memory a fixed-width vector's buffers hold, each allocation once, as the writer counts it against its staging
   * limit (there through {@code getBuffers}, which lists none before the row count is set).
   */
  private static long heldBytes(org.apache.arrow.vector.FieldVector vector) {
    java.util.Set<Object> allocations = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
    long bytes = 0;
    for (org.apache.arrow.memory.ArrowBuf buffer : List.of(vector.getValidityBuffer(), vector.getDataBuffer())) {
      if (allocations.add(buffer.getReferenceManager())) {
        bytes += buffer.getReferenceManager().getAccountedSize();
      }
    }
    return bytes;
  }

  /**
   * A text column's 16 bytes a row are reserved only once a single value of it is set: a column put in bulk or
   * declared holds none of them, which the staging limit would count (for lineitem about a third of a batch's memory,
   * from its four declared dictionary columns). Setters still find them reserved, as before.
   */
  @Test
  void textIsReservedOnlyForSingleValues() {
    TableSchema schema = TableSchema.of(ColumnDef.of("k", "INTEGER"), ColumnDef.of("s", "VARCHAR"));
    int capacity = 100_000;
    byte[][] values = {"a".getBytes(StandardCharsets.UTF_8), "b".getBytes(StandardCharsets.UTF_8)};
    char[] valueOfRow = new char[capacity];
    byte[] ints = new byte[capacity * 4];
    long[] staged = new long[2];
    for (int setter = 0; setter < 2; setter++) {
      try (Catalog catalog = Catalog.create(dir.resolve("data-" + setter));
          TableWriter writer = catalog.createTable("t", schema)) {
        BatchBuilder batch = writer.newBatch(capacity);
        batch.putValues(0, ints, null, capacity);
        if (setter == 1) {
          batch.setString(1, 0, "a");
        }
        batch.putDeclaredUtf8(1, values, valueOfRow, null, capacity);
        batch.setRowCount(capacity);
        writer.append(batch);
        staged[setter] = writer.stagedInMemoryBytes();
        assertEquals(capacity, TestTables.rows(writer.commit()).size());
      }
    }
    assertTrue(staged[0] < capacity * 16L, "bulk text reserves nothing: " + staged[0] + " bytes staged");
    assertTrue(staged[1] >= staged[0] + capacity * 16L, "a setter reserves: " + staged[0] + " -> " + staged[1]);
  }

  /** Values decoded straight into the vector ({@code dataOf}, then {@code putNulls}) make the table putValues makes. */
  @Test
  void valuesWrittenInPlaceMakeTheTablePutValuesMakes() {
    TableSchema schema = TableSchema.of(ColumnDef.of("k", "INTEGER NOT NULL"), ColumnDef.of("d", "DECIMAL(9,2)"));
    try (Catalog catalog = Catalog.create(dir.resolve("data"))) {
      byte[] ints = new byte[ROWS * 4];
      byte[] longs = new byte[ROWS * 8];
      boolean[] decimalNulls = new boolean[ROWS];
      for (int row = 0; row < ROWS; row++) {
        INTS.set(ints, row * 4, row * 7);
        decimalNulls[row] = decimal(row) == null;
        LONGS.set(longs, row * 8, decimalNulls[row] ? 0L : decimal(row));
      }
      List<List<Object>> byPutValues;
      try (TableWriter writer = catalog.createTable("put", schema)) {
        BatchBuilder batch = writer.newBatch(ROWS);
        batch.putValues(0, ints, null, ROWS);
        batch.putValues(1, longs, decimalNulls, ROWS);
        batch.setRowCount(ROWS);
        writer.append(batch);
        byPutValues = TestTables.rows(writer.commit());
      }
      List<List<Object>> inPlace;
      try (TableWriter writer = catalog.createTable("in_place", schema)) {
        BatchBuilder batch = writer.newBatch(ROWS);
        java.nio.ByteBuffer keys = batch.dataOf(0, ROWS);
        java.nio.ByteBuffer decimals = batch.dataOf(1, ROWS);
        for (int row = 0; row < ROWS; row++) {
          keys.putInt(row * 4, (int) INTS.get(ints, row * 4));
          decimals.putLong(row * 8, (long) LONGS.get(longs, row * 8));
        }
        batch.putNulls(0, null, ROWS);
        batch.putNulls(1, decimalNulls, ROWS);
        batch.setRowCount(ROWS);
        writer.append(batch);
        inPlace = TestTables.rows(writer.commit());
      }
      assertEquals(byPutValues, inPlace);
      boolean[] nullKey = new boolean[ROWS];
      nullKey[4] = true;
      try (TableWriter writer = catalog.createTable("refused", schema)) {
        BatchBuilder batch = writer.newBatch(ROWS);
        batch.dataOf(0, ROWS);
        StorageException notNull = assertThrows(StorageException.class, () -> batch.putNulls(0, nullKey, ROWS));
        assertTrue(notNull.getMessage().contains("batch row 4: NULL in a NOT NULL column"), notNull.getMessage());
        assertThrows(StorageException.class, () -> batch.dataOf(0, ROWS + 1));
        batch.close();
      }
    }
  }

  /** Bulk text longer than the data buffer reserved gets buffers of its size; the rows after it stay NULL. */
  @Test
  void bulkTextBeyondTheReservedBytesReadsBack() {
    int capacity = 100;
    int rows = 10;
    String longText = "x".repeat(300);  // ten of them are more than the 16 bytes a row reserved
    try (Catalog catalog = Catalog.create(dir.resolve("data"));
        TableWriter writer = catalog.createTable("t", SCHEMA)) {
      BatchBuilder batch = writer.newBatch(capacity);
      for (int row = 0; row < capacity; row++) {
        batch.setInt(0, row, row);
      }
      byte[] offsets = new byte[(rows + 1) * 4];
      byte[] data = new byte[rows * longText.length()];
      for (int row = 0; row < rows; row++) {
        System.arraycopy(longText.getBytes(StandardCharsets.US_ASCII), 0, data, row * longText.length(),
            longText.length());
        INTS.set(offsets, (row + 1) * 4, (row + 1) * longText.length());
      }
      batch.putUtf8(2, offsets, data, null, rows);
      batch.setRowCount(capacity);
      writer.append(batch);
      List<List<Object>> table = TestTables.rows(writer.commit());
      for (int row = 0; row < capacity; row++) {
        assertEquals(row < rows ? longText : null, table.get(row).get(2), "row " + row);
      }
    }
  }

  /**
   * A fixed-width column's data is not zeroed when its batch is allocated (bulk sources overwrite it), so whatever
   * comes after the bulk rows must still read as the setters leave it: the rows counted beyond them NULL with zero
   * bytes, a row set after them, the file byte for byte the setters' one. The batch discarded first leaves its
   * bytes in memory that is recycled (blocks of 64 KiB and more) for the next batch's columns of the same size.
   */
  @Test
  void rowsAfterTheBulkOnesAreTheSettersRows() throws Exception {
    TableSchema schema = TableSchema.of(ColumnDef.of("k", "BIGINT"), ColumnDef.of("v", "INTEGER"));
    int capacity = 20_000;  // 160,000 and 80,000 bytes of data: recycled
    int bulkRows = capacity / 2;
    int setAfter = bulkRows + 7;
    try (Catalog catalog = Catalog.create(dir.resolve("data"))) {
      List<byte[]> bySetters;
      try (TableWriter writer = catalog.createTable("setters", schema)) {
        BatchBuilder batch = writer.newBatch(capacity);
        for (int row = 0; row < bulkRows; row++) {
          batch.setLong(0, row, row * 3L);
          batch.setInt(1, row, -row);
        }
        batch.setInt(1, setAfter, 42);
        batch.setRowCount(capacity);
        writer.append(batch);
        bySetters = ArrowFilesOfTable.read(writer.commit(), 1);
      }
      List<byte[]> inBulk;
      try (TableWriter writer = catalog.createTable("bulk", schema)) {
        BatchBuilder dirty = writer.newBatch(capacity);
        byte[] ones = new byte[capacity * 8];
        Arrays.fill(ones, (byte) 0x5A);
        dirty.putValues(0, ones, null, capacity);
        dirty.putValues(1, ones, null, capacity);
        dirty.close();
        BatchBuilder batch = writer.newBatch(capacity);
        byte[] longs = new byte[capacity * 8];
        byte[] ints = new byte[capacity * 4];
        for (int row = 0; row < bulkRows; row++) {
          LONGS.set(longs, row * 8, row * 3L);
          INTS.set(ints, row * 4, -row);
        }
        batch.putValues(0, longs, null, bulkRows);
        batch.putValues(1, ints, null, bulkRows);
        batch.setInt(1, setAfter, 42);
        batch.setRowCount(capacity);
        writer.append(batch);
        inBulk = ArrowFilesOfTable.read(writer.commit(), 1);
      }
      assertTrue(Arrays.equals(bySetters.get(0), inBulk.get(0)), "the same Arrow file");
    }
  }

  @Test
  void bulkColumnsRefuseWhatTheSettersRefuse() {
    try (Catalog catalog = Catalog.create(dir.resolve("data"));
        TableWriter writer = catalog.createTable("t", SCHEMA)) {
      BatchBuilder batch = writer.newBatch(ROWS);
      boolean[] nulls = new boolean[ROWS];
      nulls[3] = true;
      StorageException notNull = assertThrows(StorageException.class,
          () -> batch.putValues(0, new byte[ROWS * 4], nulls, ROWS));
      assertTrue(notNull.getMessage().contains("batch row 3: NULL in a NOT NULL column"), notNull.getMessage());
      assertThrows(StorageException.class, () -> batch.putValues(2, new byte[ROWS * 8], null, ROWS));
      assertThrows(StorageException.class, () -> batch.putUtf8(0, new byte[(ROWS + 1) * 4], new byte[0], null, ROWS));
      StorageException tooFew = assertThrows(StorageException.class,
          () -> batch.putValues(1, new byte[ROWS * 8 - 1], null, ROWS));
      assertTrue(tooFew.getMessage().contains("hold fewer than " + ROWS), tooFew.getMessage());
      assertThrows(StorageException.class, () -> batch.putValues(0, new byte[ROWS * 4 * 2], null, ROWS * 2));
      batch.close();
    }
  }

  /** A declaration is dropped once a value of its column is set otherwise, so statistics never miss a value. */
  @Test
  void settingAValueDropsTheDeclaredDistinctValues() {
    try (Catalog catalog = Catalog.create(dir.resolve("data"));
        TableWriter writer = catalog.createTable("t", SCHEMA)) {
      BatchBuilder batch = writer.newBatch(ROWS);
      byte[][] declared = {"a".getBytes(StandardCharsets.UTF_8)};
      batch.declareDistinct(2, declared);
      assertTrue(declared == batch.declaredDistinct(2));
      batch.setString(2, 0, "b");
      assertEquals(null, batch.declaredDistinct(2));
      assertThrows(StorageException.class, () -> batch.declareDistinct(1, declared), "not a text column");
      long[] numbers = {5, 7};
      batch.declareDistinct(1, numbers);
      assertTrue(numbers == batch.declaredDistinct(1));
      batch.setDecimal(1, 0, 5);
      assertEquals(null, batch.declaredDistinct(1));
      assertThrows(StorageException.class, () -> batch.declareDistinct(2, numbers), "a text column");
      batch.close();
    }
  }
}
