package org.spillway.storage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link StoredTable#isKey}: exact, against a set of the values, on random columns near and at uniqueness. */
class KeyColumnsTest {
  private static final TableSchema SCHEMA = TableSchema.of(
      ColumnDef.of("ascending", "INTEGER NOT NULL"),
      ColumnDef.of("shuffled", "BIGINT NOT NULL"),
      ColumnDef.of("sparse", "BIGINT NOT NULL"),
      ColumnDef.of("one_repeat", "INTEGER NOT NULL"),
      ColumnDef.of("sparse_repeat", "BIGINT NOT NULL"),
      ColumnDef.of("with_null", "INTEGER"),
      ColumnDef.of("day", "DATE NOT NULL"),
      ColumnDef.of("text", "VARCHAR(12) NOT NULL"));

  @TempDir
  Path dir;

  @AfterEach
  void allocatorBackToZero() {
    StorageLeaks.assertNone();
  }

  @Test
  void keysAreExactlyTheColumnsWithoutNullsOrRepeats() {
    Random random = new Random(42);
    try (Catalog catalog = Catalog.open(dir)) {
      for (int round = 0; round < 6; round++) {
        int rows = 1 + random.nextInt(5_000);
        StoredTable table = write(catalog, "t" + round, rows, random);
        for (int col = 0; col < SCHEMA.size(); col++) {
          boolean expected = !SCHEMA.column(col).type().kind().isText() && reference(table, col);
          assertEquals(expected, table.isKey(col), "round " + round + ", " + rows + " rows, column "
              + SCHEMA.column(col).name());
        }
      }
    }
  }

  @Test
  void anEmptyTablesColumnsAreKeys() {
    try (Catalog catalog = Catalog.open(dir)) {
      try (TableWriter writer = catalog.createTable("empty", SCHEMA)) {
        writer.commit();
      }
      StoredTable table = catalog.table("empty").orElseThrow();
      assertTrue(table.isKey(0));
      assertFalse(table.isKey(SCHEMA.indexOf("text")));
    }
  }

  /**
   * Two columns neither of which is a key (partsupp's (partkey, suppkey): each part four times, each supplier many
   * times) are one together exactly when no pair repeats; a NULL in either, or pairs that do not pack into a long, are
   * not taken as one. A key alone makes any pair with it a key.
   */
  @Test
  void pairsOfColumnsAreKeysExactlyWithoutRepeatedPairs() {
    TableSchema schema = TableSchema.of(ColumnDef.of("part", "INTEGER NOT NULL"),
        ColumnDef.of("supplier", "BIGINT NOT NULL"), ColumnDef.of("nullable", "INTEGER"),
        ColumnDef.of("wide", "BIGINT NOT NULL"), ColumnDef.of("row", "INTEGER NOT NULL"));
    Random random = new Random(7);
    try (Catalog catalog = Catalog.open(dir)) {
      for (int round = 0; round < 6; round++) {
        int rows = 4 * (2 + random.nextInt(2_000));
        boolean repeat = round % 2 == 1;
        int suppliers = rows / 8 + 3;
        long[] supplier = new long[rows];
        for (int r = 0; r < rows; r++) {
          supplier[r] = (r / 4 + (r % 4) * (suppliers / 4 + 1)) % suppliers - 50;  // partsupp's spread, shifted
        }
        if (repeat) {
          int r = 4 * random.nextInt(rows / 4);
          supplier[r + 1 + random.nextInt(3)] = supplier[r];
        }
        String name = "pairs" + round;
        try (TableWriter writer = catalog.createTable(name, schema)) {
          int r = 0;
          while (r < rows) {
            int size = Math.min(rows - r, 1 + random.nextInt(700));
            BatchBuilder batch = writer.newBatch(size);
            for (int row = 0; row < size; row++, r++) {
              batch.setInt(0, row, r / 4);
              batch.setLong(1, row, supplier[r]);
              if (r == rows / 2) {
                batch.setNull(2, row);
              } else {
                batch.setInt(2, row, r % 5);
              }
              batch.setLong(3, row, r % 2 == 0 ? Long.MIN_VALUE / 2 : Long.MAX_VALUE / 2);
              batch.setInt(4, row, r);
            }
            batch.setRowCount(size);
            writer.append(batch);
          }
          writer.commit();
        }
        StoredTable table = catalog.table(name).orElseThrow();
        String where = "round " + round + ", " + rows + " rows";
        assertFalse(table.isKey(0) || table.isKey(1), where);
        assertEquals(!repeat, table.isKey(0, 1), where);
        assertEquals(!repeat, table.isKey(1, 0), where);
        assertFalse(table.isKey(0, 2), where);
        assertFalse(table.isKey(3, 1), where);
        assertTrue(table.isKey(2, 4), where);
      }
    }
  }

  /** No NULL and no value twice, from the rows. */
  private static boolean reference(StoredTable table, int column) {
    Set<Object> seen = new HashSet<>();
    for (List<Object> row : TestTables.rows(table)) {
      if (row.get(column) == null || !seen.add(row.get(column))) {
        return false;
      }
    }
    return true;
  }

  private static StoredTable write(Catalog catalog, String name, int rows, Random random) {
    List<Long> shuffled = new ArrayList<>();
    for (long v = 0; v < rows; v++) {
      shuffled.add(v * 3 + 7);
    }
    Collections.shuffle(shuffled, random);
    long[] sparse = random.longs(rows, -1L << 60, 1L << 60).toArray();
    long[] sparseRepeat = sparse.clone();
    int[] oneRepeat = new int[rows];
    for (int r = 0; r < rows; r++) {
      oneRepeat[r] = rows - r;
    }
    if (rows > 1 && random.nextInt(4) > 0) {  // most rounds repeat one value somewhere, some keep all distinct
      oneRepeat[random.nextInt(rows)] = oneRepeat[random.nextInt(rows)];
      sparseRepeat[random.nextInt(rows)] = sparseRepeat[random.nextInt(rows)];
    }
    int nullRow = random.nextInt(rows + 1);  // rows: no NULL
    try (TableWriter writer = catalog.createTable(name, SCHEMA)) {
      int r = 0;
      while (r < rows) {
        int size = Math.min(rows - r, 1 + random.nextInt(2_000));
        BatchBuilder batch = writer.newBatch(size);
        for (int row = 0; row < size; row++, r++) {
          batch.setInt(0, row, r);
          batch.setLong(1, row, shuffled.get(r));
          batch.setLong(2, row, sparse[r]);
          batch.setInt(3, row, oneRepeat[r]);
          batch.setLong(4, row, sparseRepeat[r]);
          if (r == nullRow) {
            batch.setNull(5, row);
          } else {
            batch.setInt(5, row, -r);
          }
          batch.setDate(6, row, 20_000 - r);
          batch.setString(7, row, "k" + r);
        }
        batch.setRowCount(size);
        writer.append(batch);
      }
      writer.commit();
    }
    return catalog.table(name).orElseThrow();
  }
}
