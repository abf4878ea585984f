package org.spillway.adapter;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.spillway.storage.BatchBuilder;
import org.spillway.storage.Catalog;
import org.spillway.storage.ColumnDef;
import org.spillway.storage.ColumnType;
import org.spillway.storage.TableSchema;
import org.spillway.storage.TableWriter;

import java.nio.file.Path;
import java.sql.SQLException;
import java.util.List;

/**
 * Filters over plain (not dictionary-encoded) text, which the engine evaluates on Arrow's UTF-8 bytes: LIKE with
 * {@code _} over characters of two to four bytes and line terminators, escapes, NOT LIKE and NULL, =, <> and
 * SUBSTRING ... IN by characters, with the rows SQL (Calcite's semantics) gives. The literals are Latin-1, as
 * Calcite's parser requires by default; the data holds characters of up to four bytes.
 */
class SpillwayTextFilterTest {
  @TempDir static Path dir;

  private static final String[] WORDS = {"abc", "abcé", "xéy", "中文abc", "a中文", null, "", "😀a", "a%b", "a\nc"};

  @BeforeAll static void createCatalog() {
    TableSchema schema = new TableSchema(List.of(
        new ColumnDef("id", ColumnType.integer().notNull()),
        new ColumnDef("w", ColumnType.varchar(20))));
    Catalog catalog = Catalog.create(dir);
    try (TableWriter writer = catalog.createTable("words", schema)) {
      BatchBuilder batch = writer.newBatch(WORDS.length);
      for (int r = 0; r < WORDS.length; r++) {
        batch.setInt(0, r, r + 1);
        if (WORDS[r] == null) {
          batch.setNull(1, r);
        } else {
          batch.setString(1, r, WORDS[r]);
        }
      }
      batch.setRowCount(WORDS.length);
      writer.append(batch);
      writer.commit();
    }
    catalog.close();
  }

  @AfterAll static void closeCatalogs() {
    CatalogRegistry.close(dir);
  }

  @Test void likeMatchesCharactersNotBytes() throws SQLException {
    ids("w like '%é_%'", "3");
    ids("w like '_a'", "8");
    ids("w like 'a_c'", "1");  // '_' is no line terminator
    ids("w like 'a%c'", "1,10");
    ids("w like '__abc'", "4");
    ids("w like '%a!%%' escape '!'", "9");
    ids("w like '%'", "1,2,3,4,5,7,8,9,10");
  }

  @Test void notLikeKeepsNoNull() throws SQLException {
    ids("w not like 'a%'", "3,4,7,8");
    ids("w not like '%'", "");
  }

  @Test void equalityAndSubstringInList() throws SQLException {
    ids("w <> 'abc'", "2,3,4,5,7,8,9,10");
    ids("w = 'xéy'", "3");
    // UTF-16 positions, as Calcite's SUBSTRING: '😀a' gives half a surrogate pair and 'a', equal to no literal
    ids("substring(w from 2 for 2) in ('bc', 'éy', 'a')", "1,2,3");
    ids("substring(w from 3 for 1) in ('a', 'c', 'y')", "1,2,3,4,8,10");
  }

  @Test void runsInSpillway() throws SQLException {
    SpillwayAssert.that(dir)
        .query("select id from words where w not like '%é_%' and substring(w from 1 for 1) = 'a'")
        .returns("id=1\nid=2\nid=5\nid=9\nid=10\n")
        .planShape("SpillwayToEnumerableConverter\n  SpillwayProject\n    SpillwayFilter\n      SpillwayTableScan\n");
  }

  private static void ids(String condition, String expected) throws SQLException {
    StringBuilder rows = new StringBuilder();
    for (String id : expected.isEmpty() ? new String[0] : expected.split(",")) {
      rows.append("id=").append(id).append('\n');
    }
    SpillwayAssert.that(dir).query("select id from words where " + condition + " order by id").returns(rows.toString());
  }
}
