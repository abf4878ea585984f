package org.spillway.storage.imports;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.spillway.storage.Catalog;
import org.spillway.storage.ColumnDef;
import org.spillway.storage.StorageException;
import org.spillway.storage.StoredTable;
import org.spillway.storage.TableSchema;
import org.spillway.storage.TestTables;

/** Several CSV files as one table, read in parallel, in file order; a bad line names its file and line. */
class CsvFilesImportTest {
  @TempDir Path dir;

  @Test
  void filesBecomeOneTableInFileOrder() throws IOException {
    List<Path> files = new ArrayList<>();
    List<List<Object>> expected = new ArrayList<>();
    for (int f = 0; f < 3; f++) {
      StringBuilder text = new StringBuilder("k,word\n");
      for (int i = 0; i < 500; i++) {
        long k = f * 500L + i;
        // only the second file has NULL words: the table's column is NULL-able all the same
        boolean none = f == 1 && i % 7 == 0;
        text.append(k).append(',').append(none ? "" : "w" + k % 5).append('\n');
        expected.add(Arrays.asList((int) k, none ? null : "w" + k % 5));
      }
      files.add(Files.writeString(dir.resolve("part" + f + ".csv"), text));
    }
    try (Catalog catalog = Catalog.create(dir.resolve("data"))) {
      StoredTable table = TableImport.run(catalog, "t", files, ImportOptions.defaults().withThreads(3)).table();
      assertEquals(TableSchema.of(ColumnDef.of("k", "INTEGER"), ColumnDef.of("word", "VARCHAR")).names(),
          table.schema().names());
      assertTrue(table.schema().column(1).type().nullable());
      assertEquals(expected, TestTables.rows(table));
    }
  }

  @Test
  void aBadLineNamesItsFileAndLineAndLeavesNoTable() throws IOException {
    Path good = Files.writeString(dir.resolve("good.csv"), "k\n1\n2\n");
    Path bad = Files.writeString(dir.resolve("bad.csv"), "k\n3\nfour\n");
    try (Catalog catalog = Catalog.create(dir.resolve("data"))) {
      StorageException e = assertThrows(StorageException.class, () -> TableImport.run(catalog, "t",
          List.of(good, bad), ImportOptions.defaults().withCsv(
              org.spillway.storage.CsvOptions.defaults().withSchema(TableSchema.of(ColumnDef.of("k", "BIGINT"))))));
      assertTrue(e.getMessage().startsWith("bad.csv:3: column k: 'four' is not a BIGINT"), e.getMessage());
      assertEquals(List.of(), catalog.tableNames());
    }
  }
}
