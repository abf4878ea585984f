package org.spillway.storage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.arrow.memory.AllocationListener;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A load that an Error stops (the heap running out while a file's dictionary is decoded) frees the batches it read
 * and rethrows the Error itself; a later load reads the table whole.
 */
class TableLoadErrorTest {
  private static final TableSchema SCHEMA = TableSchema.of(ColumnDef.of("k", "INTEGER NOT NULL"),
      ColumnDef.of("v", "BIGINT NOT NULL"));
  private static final int BATCHES = 6;

  @TempDir
  Path dir;

  @AfterEach
  void allocatorBackToZero() {
    StorageLeaks.assertNone();
  }

  /** The Error a test allocator throws at one allocation. */
  private static final class InjectedError extends Error {
    InjectedError() {
      super("injected at an allocation");
    }
  }

  @Test
  void anErrorDuringTheLoadLeavesNoMemoryAndIsRethrownAsItIs() {
    try (Catalog catalog = Catalog.create(dir); TableWriter writer = catalog.createTable("t", SCHEMA)) {
      for (int b = 0; b < BATCHES; b++) {
        BatchBuilder batch = writer.newBatch(100);
        for (int row = 0; row < 100; row++) {
          batch.setInt(0, row, b * 100 + row);
          batch.setLong(1, row, -row);
        }
        batch.setRowCount(100);
        writer.append(batch);
      }
      writer.commit();
    }
    Path tableDir = dir.resolve("t");
    TableMetadata metadata = TableMetadata.read(tableDir);
    AtomicInteger allocations = new AtomicInteger();
    AtomicInteger failAt = new AtomicInteger(-1);
    AllocationListener listener = new AllocationListener() {
      @Override public void onPreAllocation(long size) {
        if (allocations.incrementAndGet() == failAt.get()) {
          throw new InjectedError();
        }
      }
    };
    try (RootAllocator counting = new RootAllocator(listener, Long.MAX_VALUE)) {
      StoredTable whole = new StoredTable(tableDir, metadata, counting);
      assertEquals(BATCHES * 100, whole.batches().stream().mapToInt(b -> b.getRowCount()).sum());
      whole.close();
    }
    int total = allocations.getAndSet(0);
    assertTrue(total >= BATCHES, total + " allocations to load " + BATCHES + " batches");
    failAt.set(total);  // the last one: the batches read before it hold memory
    try (RootAllocator failing = new RootAllocator(listener, Long.MAX_VALUE)) {
      StoredTable table = new StoredTable(tableDir, metadata, failing);
      InjectedError error = assertThrows(InjectedError.class, table::batches);
      assertSame(InjectedError.class, error.getClass(), "the Error itself, not wrapped");
      assertEquals(0, failing.getAllocatedMemory(), "memory left by the failed load");
      assertEquals(0, failing.getChildAllocators().size(), "allocators left by the failed load");
      failAt.set(-1);
      assertEquals(BATCHES * 100, table.batches().stream().mapToInt(b -> b.getRowCount()).sum(), "a later load");
      table.close();
    }
  }
}
