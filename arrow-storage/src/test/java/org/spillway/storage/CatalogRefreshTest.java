package org.spillway.storage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A catalog sees the tables another catalog of the same directory (another process) commits and drops. */
class CatalogRefreshTest {
  private static final TableSchema SCHEMA = TableSchema.of(ColumnDef.of("k", "BIGINT"));

  @TempDir Path dir;

  @Test
  void refreshFindsCommittedTablesOnlyAndForgetsDroppedOnes() {
    try (Catalog reader = Catalog.create(dir); Catalog other = Catalog.open(dir)) {
      long before = reader.version();
      try (TableWriter writer = other.createTable("t", SCHEMA)) {
        BatchBuilder batch = writer.newBatch(3);
        for (int i = 0; i < 3; i++) {
          batch.setLong(0, i, i);
        }
        batch.setRowCount(3);
        writer.append(batch);
        assertFalse(reader.refresh(), "a table being written is not visible");
        assertEquals(List.of(), reader.tableNames());
        writer.commit();
      }
      assertTrue(reader.refresh());
      assertEquals(List.of("t"), reader.tableNames());
      assertEquals(3, reader.table("t").orElseThrow().batches().get(0).getRowCount());
      assertTrue(reader.version() > before);
      assertFalse(reader.refresh(), "nothing changed since");

      other.dropTable("t");
      assertTrue(reader.refresh());
      assertEquals(List.of(), reader.tableNames());
    }
  }
}
