package org.spillway.storage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Index definitions in the catalog: they survive a reopen, names are unique and case-insensitive, a failed build
 * writes nothing, a drop removes one, and dropping the table drops its indexes (a new table of the same name has
 * none).
 */
class CatalogIndexesTest {
  private static final TableSchema SCHEMA = TableSchema.of(ColumnDef.of("k", "INTEGER NOT NULL"),
      ColumnDef.of("name", "VARCHAR"));

  @TempDir
  Path dir;

  @AfterEach
  void allocatorBackToZero() {
    StorageLeaks.assertNone();
  }

  private static void createTable(Catalog catalog, String name) {
    try (TableWriter writer = catalog.createTable(name, SCHEMA)) {
      BatchBuilder batch = writer.newBatch(2);
      batch.setInt(0, 0, 1);
      batch.setInt(0, 1, 2);
      batch.setNull(1, 0);
      batch.setNull(1, 1);
      batch.setRowCount(2);
      writer.append(batch);
      writer.commit();
    }
  }

  private static IndexDefinition create(Catalog catalog, String name, String table, String column, String kind) {
    List<IndexDefinition> built = new ArrayList<>();
    IndexDefinition index = catalog.createIndex(new IndexDefinition(name, table, column, kind), built::add);
    assertEquals(List.of(index), built, "the build gets the definition that is recorded");
    return index;
  }

  @Test
  void indexesSurviveAReopenAndDropOneByOne() {
    try (Catalog catalog = Catalog.create(dir)) {
      createTable(catalog, "t");
      createTable(catalog, "u");
      assertEquals(new IndexDefinition("t_k", "t", "k", "BTREE"), create(catalog, "T_K", "T", "K", "BTREE"));
      create(catalog, "t_k2", "t", "k", "HARMONIA");
      create(catalog, "u_k", "u", "k", "RADIXSPLINE");
    }
    try (Catalog catalog = Catalog.open(dir)) {
      assertEquals(List.of(new IndexDefinition("t_k", "t", "k", "BTREE"),
          new IndexDefinition("t_k2", "t", "k", "HARMONIA")), catalog.indexes("T"));
      assertEquals(Optional.of(new IndexDefinition("u_k", "u", "k", "RADIXSPLINE")), catalog.index("U_K"));
      assertTrue(catalog.dropIndex("T_K", false));
      assertFalse(catalog.dropIndex("t_k", true), "IF EXISTS: nothing to drop");
      StorageException unknown = assertThrows(StorageException.class, () -> catalog.dropIndex("t_k", false));
      assertEquals("index t_k does not exist in " + catalog.directory(), unknown.getMessage());
    }
    try (Catalog catalog = Catalog.open(dir)) {
      assertEquals(List.of(new IndexDefinition("t_k2", "t", "k", "HARMONIA")), catalog.indexes("t"));
      assertEquals(List.of(), catalog.indexes("no_such_table"));
    }
  }

  @Test
  void aNameIsUniqueInTheCatalogAndTheTableAndColumnMustExist() {
    try (Catalog catalog = Catalog.create(dir)) {
      createTable(catalog, "t");
      createTable(catalog, "u");
      create(catalog, "k_index", "t", "k", "BTREE");
      assertEquals("index k_index already exists in " + catalog.directory(), assertThrows(StorageException.class,
          () -> create(catalog, "K_Index", "u", "k", "BTREE")).getMessage());
      assertEquals("table v does not exist in " + catalog.directory(), assertThrows(StorageException.class,
          () -> create(catalog, "v_k", "v", "k", "BTREE")).getMessage());
      assertEquals("table t has no column x; its columns: [k, name]", assertThrows(StorageException.class,
          () -> create(catalog, "t_x", "t", "x", "BTREE")).getMessage());
      assertTrue(assertThrows(StorageException.class, () -> create(catalog, "1bad", "t", "k", "BTREE"))
          .getMessage().startsWith("invalid index name '1bad'"));
      assertEquals(List.of("k_index"), catalog.indexes("t").stream().map(IndexDefinition::name).toList());
      assertEquals(List.of(), catalog.indexes("u"));
    }
  }

  /** A build that fails (keys out of order, or a crash mid-way) leaves neither a definition nor a scratch file. */
  @Test
  void listenersHearOfEveryIndexThatGoesAwayByDropOrClose() {
    List<String> gone = new ArrayList<>();
    try (Catalog catalog = Catalog.create(dir)) {
      catalog.onIndexGone(index -> gone.add(index.name()));
      catalog.onIndexGone(index -> {
        throw new IllegalStateException("a failing listener does not stop the others or the drop");
      });
      createTable(catalog, "t");
      createTable(catalog, "u");
      create(catalog, "t_k", "t", "k", "BTREE");
      create(catalog, "t_k2", "t", "k", "HARMONIA");
      create(catalog, "u_k", "u", "k", "RADIXSPLINE");
      create(catalog, "u_k2", "u", "k", "BTREE");
      catalog.dropIndex("T_K", false);
      assertFalse(catalog.dropIndex("t_k", true));
      assertEquals(List.of("t_k"), gone, "dropped by name, once");
      catalog.dropTable("t");
      assertEquals(List.of("t_k", "t_k2"), gone, "dropped with its table");
    }
    assertEquals(List.of("t_k", "t_k2", "u_k", "u_k2"), gone, "every index goes when the catalog closes");
  }

  @Test
  void aTableAnotherCatalogDroppedTakesItsIndexesAlongOnRefresh() {
    List<String> gone = new ArrayList<>();
    try (Catalog writer = Catalog.create(dir)) {
      createTable(writer, "t");
      create(writer, "t_k", "t", "k", "BTREE");
      try (Catalog reader = Catalog.open(dir)) {
        reader.onIndexGone(index -> gone.add(index.name()));
        assertEquals(1, reader.indexes("t").size());
        writer.dropTable("t");
        assertTrue(reader.refresh());
        assertEquals(List.of("t_k"), gone);
      }
    }
    assertEquals(List.of("t_k"), gone, "told once, not again at close");
  }

  @Test
  void aFailedBuildWritesNothing() throws IOException {
    try (Catalog catalog = Catalog.create(dir)) {
      createTable(catalog, "t");
      IllegalArgumentException refused = assertThrows(IllegalArgumentException.class, () -> catalog.createIndex(
          new IndexDefinition("t_k", "t", "k", "BTREE"), index -> {
            throw new IllegalArgumentException("unsorted");
          }));
      assertEquals("unsorted", refused.getMessage());
      assertEquals(List.of(), catalog.indexes("t"));
      assertEquals(List.of("table.json"), indexFiles());
      create(catalog, "t_k", "t", "k", "BTREE");  // the name was not taken by the failed attempt
    }
    assertEquals(List.of("indexes.json", "table.json"), indexFiles());
  }

  /** The scratch file of a write a crash interrupted is not an index, and the next open deletes it. */
  @Test
  void aCrashMidWriteLeavesTheOldListAndItsScratchGoesAtTheNextOpen() throws IOException {
    try (Catalog catalog = Catalog.create(dir)) {
      createTable(catalog, "t");
      create(catalog, "t_k", "t", "k", "BTREE");
    }
    Files.writeString(dir.resolve("t/indexes.json.tmp-0c3a2b1e-0000-0000-0000-000000000000"), "{\"format\": 1, \"ind");
    try (Catalog catalog = Catalog.open(dir)) {
      assertEquals(List.of(new IndexDefinition("t_k", "t", "k", "BTREE")), catalog.indexes("t"));
    }
    assertEquals(List.of("indexes.json", "table.json"), indexFiles());
  }

  @Test
  void droppingTheTableDropsItsIndexes() {
    try (Catalog catalog = Catalog.create(dir)) {
      createTable(catalog, "t");
      create(catalog, "t_k", "t", "k", "BINARY_SEARCH");
      catalog.dropTable("t");
      assertEquals(List.of(), catalog.indexes("t"));
      assertEquals(Optional.empty(), catalog.index("t_k"));
      createTable(catalog, "t");
      assertEquals(List.of(), catalog.indexes("t"), "a new table of the name has none");
      create(catalog, "t_k", "t", "k", "BTREE");  // the name is free again
    }
    try (Catalog catalog = Catalog.open(dir)) {
      assertEquals(List.of(new IndexDefinition("t_k", "t", "k", "BTREE")), catalog.indexes("t"));
    }
  }

  /** A damaged index list breaks its table alone, with the file and the reason, as a damaged sidecar does. */
  @Test
  void aDamagedIndexListBreaksItsTable() throws IOException {
    try (Catalog catalog = Catalog.create(dir)) {
      createTable(catalog, "t");
      createTable(catalog, "u");
      create(catalog, "t_k", "t", "k", "BTREE");
    }
    Files.writeString(dir.resolve("t/indexes.json"), "{\"format\": 1, \"indexes\": [{\"name\": \"t_k\"}]}");
    try (Catalog catalog = Catalog.open(dir)) {
      assertEquals(List.of("t"), List.copyOf(catalog.brokenTables().keySet()));
      assertTrue(catalog.brokenTables().get("t").contains(dir.resolve("t/indexes.json") + ": an index without field"),
          catalog.brokenTables().get("t"));
      assertEquals(2, TestTables.rows(catalog.table("u").orElseThrow()).size());
    }
  }

  private List<String> indexFiles() throws IOException {
    try (Stream<Path> files = Files.list(dir.resolve("t"))) {
      return files.map(f -> f.getFileName().toString()).filter(n -> !n.endsWith(".arrow")).sorted().toList();
    }
  }
}
