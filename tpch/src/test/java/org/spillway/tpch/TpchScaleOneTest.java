package org.spillway.tpch;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.spillway.storage.Catalog;

/** SF 1 (about 1 GB on disk, ~15 s on 2 cores): run with -Pslow. */
@Tag("slow")
class TpchScaleOneTest {
  @TempDir
  Path dir;

  @Test
  void scaleOneHasTheSpecifiedRowCounts() {
    TpchGenerator.generate(dir, 1, 0, ProgressListener.NONE);
    Map<String, Long> expected = Map.of("lineitem", 6_001_215L, "orders", 1_500_000L, "customer", 150_000L,
        "part", 200_000L, "partsupp", 800_000L, "supplier", 10_000L, "nation", 25L, "region", 5L);
    try (Catalog catalog = Catalog.open(dir)) {
      for (Map.Entry<String, Long> table : expected.entrySet()) {
        assertEquals(table.getValue(), catalog.table(table.getKey()).orElseThrow().rowCount(), table.getKey());
      }
      long loaded = catalog.table("lineitem").orElseThrow().batches().stream().mapToLong(b -> b.getRowCount()).sum();
      assertEquals(6_001_215L, loaded);
    }
  }
}
