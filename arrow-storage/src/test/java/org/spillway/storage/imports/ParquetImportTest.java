package org.spillway.storage.imports;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import java.util.List;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.spillway.storage.Catalog;

class ParquetImportTest {
  @TempDir Path dir;

  @Test
  void smoke() throws Exception {
    Path file = ParquetTestFiles.write(dir.resolve("a.parquet"), "message m { required int32 a; optional binary s (STRING); }",
        new ParquetTestFiles.Layout(CompressionCodecName.SNAPPY, true, 1000), 2500,
        (i, g) -> { g.add("a", i); if (i % 3 != 0) g.add("s", "v" + (i % 7)); });
    try (Catalog catalog = Catalog.create(dir.resolve("data"))) {
      ImportResult result = TableImport.run(catalog, "t", List.of(file), ImportOptions.defaults());
      assertEquals(2500, result.rows());
      System.out.println(result.table().schema() + " " + result.table().statistics());
    }
  }
}
