package org.spillway.storage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ConcurrencyTest {
  private static final int THREADS = 8;
  private static final int BATCHES = 16;
  private static final int ROWS_PER_BATCH = 5_000;
  private static final TableSchema SCHEMA = TableSchema.of(ColumnDef.of("k", "BIGINT NOT NULL"),
      ColumnDef.of("v", "DECIMAL(12,2) NOT NULL"), ColumnDef.of("tag", "VARCHAR(8) NOT NULL"));

  @TempDir
  Path dir;

  @AfterEach
  void allocatorBackToZero() {
    StorageLeaks.assertNone();
  }

  /** Parallel writers append at explicit positions; the stored order is the positions' order. */
  private void writeInParallel() throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(THREADS);
    try (Catalog catalog = Catalog.create(dir); TableWriter writer = catalog.createTable("facts", SCHEMA)) {
      List<Future<?>> futures = new ArrayList<>();
      for (int b = BATCHES - 1; b >= 0; b--) {
        int position = b;
        futures.add(pool.submit(() -> {
          BatchBuilder batch = writer.newBatch(ROWS_PER_BATCH);
          for (int row = 0; row < ROWS_PER_BATCH; row++) {
            long key = (long) position * ROWS_PER_BATCH + row;
            batch.setLong(0, row, key);
            batch.setDecimal(1, row, key % 1000);
            batch.setString(2, row, "t" + key % 10);
          }
          batch.setRowCount(ROWS_PER_BATCH);
          writer.appendAt(position, batch);
        }));
      }
      for (Future<?> future : futures) {
        future.get();
      }
      writer.commit();
    } finally {
      pool.shutdown();
    }
  }

  @Test
  void concurrentReadersSeeOneConsistentTable() throws Exception {
    writeInParallel();
    ExecutorService pool = Executors.newFixedThreadPool(THREADS);
    try (Catalog catalog = Catalog.open(dir)) {
      CountDownLatch start = new CountDownLatch(1);
      List<Callable<Object[]>> readers = new ArrayList<>();
      for (int t = 0; t < THREADS; t++) {
        readers.add(() -> {
          start.await();
          StoredTable table = catalog.table("facts").orElseThrow();
          List<VectorSchemaRoot> batches = table.batches();
          long keySum = 0;
          long centSum = 0;
          long previous = -1;
          for (int b = 0; b < batches.size(); b++) {
            ColumnReader keys = table.reader(b, 0);
            ColumnReader values = table.reader(b, 1);
            for (int row = 0; row < keys.size(); row++) {
              long key = keys.getLong(row);
              assertEquals(previous + 1, key, "rows in position order");
              previous = key;
              keySum += key;
              centSum += values.getLong(row);
            }
          }
          return new Object[] {batches, keySum, centSum};
        });
      }
      List<Future<Object[]>> results = new ArrayList<>();
      for (Callable<Object[]> reader : readers) {
        results.add(pool.submit(reader));
      }
      start.countDown();
      long n = (long) BATCHES * ROWS_PER_BATCH;
      long expectedCents = 0;
      for (long key = 0; key < n; key++) {
        expectedCents += key % 1000;
      }
      Object firstBatches = results.get(0).get()[0];
      for (Future<Object[]> result : results) {
        Object[] r = result.get();
        assertSame(firstBatches, r[0], "the table loads once");
        assertEquals(n * (n - 1) / 2, r[1]);
        assertEquals(expectedCents, r[2]);
      }
      StoredTable table = catalog.table("facts").orElseThrow();
      assertEquals(n, table.rowCount());
      assertEquals(10, table.statistics().column("tag").distinctCount());
      assertEquals(List.of("t0", "t1", "t2", "t3", "t4", "t5", "t6", "t7", "t8", "t9"), table.dictionary(2).orElseThrow());
    } finally {
      pool.shutdown();
    }
  }
}
