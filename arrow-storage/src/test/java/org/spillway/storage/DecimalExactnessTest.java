package org.spillway.storage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigDecimal;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DecimalExactnessTest {
  @TempDir
  Path dir;

  @AfterEach
  void allocatorBackToZero() {
    StorageLeaks.assertNone();
  }

  @Test
  void centsSumExactly() {
    int rows = 100_000;
    TableSchema schema = TableSchema.of(ColumnDef.of("amount", "DECIMAL(15,2) NOT NULL"));
    try (Catalog catalog = Catalog.create(dir)) {
      try (TableWriter writer = catalog.createTable("cents", schema)) {
        BatchBuilder batch = writer.newBatch(rows);
        for (int row = 0; row < rows; row++) {
          batch.setDecimal(0, row, new BigDecimal("0.01"));
        }
        batch.setRowCount(rows);
        writer.append(batch);
        writer.commit();
      }
    }
    try (Catalog catalog = Catalog.open(dir)) {
      StoredTable table = catalog.table("cents").orElseThrow();
      BigDecimal exact = BigDecimal.ZERO;
      long unscaled = 0;
      double binary = 0;
      ColumnReader reader = table.reader(0, 0);
      for (int row = 0; row < reader.size(); row++) {
        exact = exact.add((BigDecimal) reader.get(row));
        unscaled += reader.getLong(row);
        binary += reader.getDouble(row);
      }
      assertEquals(new BigDecimal("1000.00"), exact);
      assertEquals(100_000, unscaled);
      // the reason decimals are not stored as doubles: the binary sum drifts
      assertTrue(binary != 1000.0, "double sum " + binary);
    }
  }

  @Test
  void extremesOfPrecisionEighteenRoundTrip() {
    List<String> values = List.of("999999999999999999", "-999999999999999999", "0", "-1", "1");
    List<String> fractions = List.of("0.999999999999999999", "-0.999999999999999999", "0.000000000000000001",
        "-0.000000000000000001", "0.000000000000000000");
    TableSchema schema = TableSchema.of(ColumnDef.of("whole", "DECIMAL(18,0)"), ColumnDef.of("fraction", "DECIMAL(18,18)"),
        ColumnDef.of("money", "DECIMAL(15,2)"));
    try (Catalog catalog = Catalog.create(dir)) {
      try (TableWriter writer = catalog.createTable("extremes", schema)) {
        BatchBuilder batch = writer.newBatch(values.size());
        for (int row = 0; row < values.size(); row++) {
          batch.setDecimal(0, row, new BigDecimal(values.get(row)));
          batch.setDecimal(1, row, new BigDecimal(fractions.get(row)));
          batch.setDecimal(2, row, -row * 12_345L);
        }
        batch.setRowCount(values.size());
        writer.append(batch);
        writer.commit();
      }
    }
    try (Catalog catalog = Catalog.open(dir)) {
      StoredTable table = catalog.table("extremes").orElseThrow();
      for (int row = 0; row < values.size(); row++) {
        assertEquals(new BigDecimal(values.get(row)), table.reader(0, 0).get(row));
        assertEquals(new BigDecimal(fractions.get(row)), table.reader(0, 1).get(row));
        assertEquals(BigDecimal.valueOf(-row * 12_345L, 2), table.reader(0, 2).get(row));
      }
      assertEquals(new BigDecimal("-999999999999999999"), table.statistics().column("whole").min());
      assertEquals(new BigDecimal("-123.45").multiply(BigDecimal.valueOf(4)), table.statistics().column("money").min());
    }
  }

  @Test
  void valuesThatDoNotFitAreRejected() {
    TableSchema schema = TableSchema.of(ColumnDef.of("price", "DECIMAL(5,2)"));
    try (Catalog catalog = Catalog.create(dir); TableWriter writer = catalog.createTable("t", schema);
        BatchBuilder batch = writer.newBatch(1)) {
      StorageException scale = assertThrows(StorageException.class, () -> batch.setDecimal(0, 0, new BigDecimal("1.234")));
      assertTrue(scale.getMessage().contains("column price DECIMAL(5,2)"), scale.getMessage());
      assertThrows(StorageException.class, () -> batch.setDecimal(0, 0, new BigDecimal("1000.00")));
      assertThrows(StorageException.class, () -> batch.setDecimal(0, 0, 100_000L));
      batch.setDecimal(0, 0, new BigDecimal("-999.99"));
      batch.setDecimal(0, 0, new BigDecimal("1.2"));
      StorageException wrongSetter = assertThrows(StorageException.class, () -> batch.setDouble(0, 0, 1.0));
      assertTrue(wrongSetter.getMessage().startsWith("setDouble does not apply"), wrongSetter.getMessage());
    }
  }
}
