package org.spillway.storage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The "sorted" flag of the column statistics against a plain check of the written values: random tables whose
 * batches are appended at shuffled positions (as parallel writers do), with columns in order, out of order inside a
 * batch, out of order only across a batch boundary, with NULLs, doubles and text; the flag survives a reopen, and
 * a table written before the flag existed reads as not known sorted.
 */
class SortedStatisticsTest {
  private static final TableSchema SCHEMA = TableSchema.of(ColumnDef.of("k", "BIGINT"),
      ColumnDef.of("d", "DOUBLE"), ColumnDef.of("day", "DATE"), ColumnDef.of("s", "VARCHAR(8)"));

  @TempDir
  Path dir;

  @AfterEach
  void allocatorBackToZero() {
    StorageLeaks.assertNone();
  }

  @Test
  void flagFollowsTheValuesInTableOrder() {
    long seed = System.nanoTime();
    Random random = new Random(seed);
    try (Catalog catalog = Catalog.create(dir)) {
      for (int trial = 0; trial < 24; trial++) {
        int batches = 1 + random.nextInt(6);
        List<long[]> keys = new ArrayList<>();
        List<boolean[]> nulls = new ArrayList<>();
        long key = random.nextInt(100) - 50;
        for (int b = 0; b < batches; b++) {
          int rows = random.nextInt(4) == 0 ? 0 : 1 + random.nextInt(300);
          long[] k = new long[rows];
          boolean[] n = new boolean[rows];
          for (int r = 0; r < rows; r++) {
            key += random.nextInt(3) == 0 ? 1 : 0;
            k[r] = key;
            n[r] = random.nextInt(20) == 0;
          }
          keys.add(k);
          nulls.add(n);
        }
        disorder(random, trial % 3, keys, nulls);
        String where = "seed " + seed + ", trial " + trial;
        TableStatistics stats = write(catalog, "t" + trial, random, keys, nulls);
        boolean sorted = nonDecreasing(keys, nulls);
        assertEquals(sorted, stats.column("k").sorted(), where + ": k");
        assertEquals(sorted, stats.column("d").sorted(), where + ": d (k as doubles)");
        assertEquals(sorted, stats.column("day").sorted(), where + ": day (k as days)");
        assertFalse(stats.column("s").sorted(), where + ": text is not tracked");
      }
    }
    try (Catalog catalog = Catalog.open(dir)) {
      assertTrue(catalog.table("t0").orElseThrow().statistics().column("k").sorted() == nonDecreasingTable(catalog),
          "the flag is read back as written");
    }
  }

  @Test
  void tablesWrittenBeforeTheFlagReadAsNotKnownSorted() throws IOException {
    List<long[]> keys = List.of(new long[] {1, 2, 3});
    List<boolean[]> nulls = List.of(new boolean[3]);
    try (Catalog catalog = Catalog.create(dir)) {
      assertTrue(write(catalog, "old", new Random(1), keys, nulls).column("k").sorted());
    }
    Path metadata;
    try (var tables = Files.list(dir)) {
      metadata = tables.filter(Files::isDirectory).findFirst().orElseThrow().resolve(TableMetadata.FILE_NAME);
    }
    String json = Files.readString(metadata, StandardCharsets.UTF_8);
    assertTrue(json.contains("\"sorted\" : true"), json);
    Files.writeString(metadata, json.replaceAll(",\\s*\"sorted\" : (true|false)", ""), StandardCharsets.UTF_8);
    try (Catalog catalog = Catalog.open(dir)) {
      assertFalse(catalog.table("old").orElseThrow().statistics().column("k").sorted());
    }
  }

  /** Spoils the order of a trial: 0 keeps it, 1 swaps two values inside a batch, 2 swaps two whole batches. */
  private static void disorder(Random random, int how, List<long[]> keys, List<boolean[]> nulls) {
    if (how == 1) {
      long[] k = keys.get(random.nextInt(keys.size()));
      if (k.length > 1) {
        int a = random.nextInt(k.length);
        int b = random.nextInt(k.length);
        long t = k[a];
        k[a] = k[b];
        k[b] = t;
      }
    } else if (how == 2 && keys.size() > 1) {
      int a = random.nextInt(keys.size() - 1);
      Collections.swap(keys, a, a + 1);
      Collections.swap(nulls, a, a + 1);
    }
  }

  private static boolean nonDecreasing(List<long[]> keys, List<boolean[]> nulls) {
    Long last = null;
    for (int b = 0; b < keys.size(); b++) {
      for (int r = 0; r < keys.get(b).length; r++) {
        if (nulls.get(b)[r]) {
          continue;
        }
        if (last != null && keys.get(b)[r] < last) {
          return false;
        }
        last = keys.get(b)[r];
      }
    }
    return true;
  }

  /** Whether table t0's k column, read back, is non-decreasing. */
  private static boolean nonDecreasingTable(Catalog catalog) {
    StoredTable table = catalog.table("t0").orElseThrow();
    List<long[]> keys = new ArrayList<>();
    List<boolean[]> nulls = new ArrayList<>();
    for (int b = 0; b < table.batches().size(); b++) {
      ColumnReader column = table.reader(b, 0);
      long[] k = new long[column.size()];
      boolean[] n = new boolean[k.length];
      for (int r = 0; r < k.length; r++) {
        n[r] = column.isNull(r);
        k[r] = n[r] ? 0 : column.getLong(r);
      }
      keys.add(k);
      nulls.add(n);
    }
    return nonDecreasing(keys, nulls);
  }

  /** Writes the batches, appended in a shuffled order at their positions; returns the table's statistics. */
  private static TableStatistics write(Catalog catalog, String name, Random random, List<long[]> keys,
      List<boolean[]> nulls) {
    List<Integer> order = new ArrayList<>();
    for (int b = 0; b < keys.size(); b++) {
      order.add(b);
    }
    Collections.shuffle(order, random);
    try (TableWriter writer = catalog.createTable(name, SCHEMA)) {
      for (int b : order) {
        long[] k = keys.get(b);
        BatchBuilder batch = writer.newBatch(Math.max(1, k.length));
        for (int r = 0; r < k.length; r++) {
          if (nulls.get(b)[r]) {
            for (int c = 0; c < 4; c++) {
              batch.setNull(c, r);
            }
          } else {
            batch.setLong(0, r, k[r]);
            batch.setDouble(1, r, k[r] * 0.5);
            batch.setDate(2, r, (int) k[r]);
            batch.setString(3, r, "s" + k[r]);
          }
        }
        batch.setRowCount(k.length);
        writer.appendAt(b, batch);
      }
      return writer.commit().statistics();
    }
  }
}
