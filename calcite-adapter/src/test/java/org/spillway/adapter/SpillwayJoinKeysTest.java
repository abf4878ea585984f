package org.spillway.adapter;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.spillway.storage.Catalog;
import org.spillway.storage.ColumnDef;
import org.spillway.storage.ColumnType;
import org.spillway.storage.TableSchema;

import java.math.BigDecimal;
import java.nio.file.Path;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Joins in Spillway on keys of several columns and of mixed types (issue #13): INTEGER with BIGINT, DECIMALs of
 * different scales, text across two tables whose dictionaries give the same string different codes, dictionary
 * text with plain text, NULLs in any key column; rows pinned, and each join runs in Spillway without a fallback.
 */
class SpillwayJoinKeysTest {
  /** Rows of pa and pb, each with that many distinct notes: more than a small table's dictionary holds. */
  private static final int PLAIN_ROWS = 300;
  @TempDir static Path dir;

  /**
   * {@code name} is dictionary-encoded in both tables (a: x, y; b: y, z: "y" is code 1 in a, 0 in b);
   * {@code note} is dictionary-encoded too (few distinct values); pa's and pb's notes are plain text.
   */
  @BeforeAll static void createTables() {
    Catalog catalog = Catalog.create(dir);
    CalciteReference.write(catalog, "a", schema("id INTEGER", "part INTEGER", "cost DECIMAL(12,2)", "name VARCHAR(10)",
        "note VARCHAR(10)", "d4 DECIMAL(12,4)"), List.of(
            row(1, 1, "1.00", "x", "n1", "1.5000"),
            row(2, 1, "2.00", "y", "n2", "2.0000"),
            row(3, 2, "1.00", "x", "n3", "2.5000"),
            row(4, 2, "2.00", "y", "n4", null),
            row(5, 3, "1.00", "x", "n5", "3.1234"),
            row(6, 3, null, "y", "n6", "4.0000"),
            row(7, 4, "5.00", "x", null, "5.0000"),
            row(8, null, "1.00", "y", "n8", "6.0000")));
    // "y" is code 1 in a's dictionary of name, 0 in b's
    CalciteReference.write(catalog, "b", schema("id INTEGER", "part BIGINT", "cost DECIMAL(12,2)", "name VARCHAR(10)",
        "note VARCHAR(10)", "d2 DECIMAL(10,2)"), List.of(
            row(1, 1L, "2.00", "y", "n2", "1.50"),
            row(2, 2L, "1.00", "y", "n3", "2.00"),
            row(3, 2L, "1.00", "z", "x", "2.50"),
            row(4, 3L, null, "z", "n6", "3.12"),
            row(5, 4L, "5.00", "y", "y", "4.00"),
            row(6, 5L, "1.00", "z", "nz", null),
            row(7, null, "1.00", "y", "n8", "6.00"),
            row(8, 3L, "1.00", "z", "n1", "7.00")));
    // More distinct notes than a small dictionary holds: plain text. pa's notes n0..n299, pb's n0, n3, ..., x, y.
    List<Object[]> pa = new ArrayList<>();
    List<Object[]> pb = new ArrayList<>();
    for (int i = 0; i < PLAIN_ROWS; i++) {
      pa.add(new Object[] {i, "n" + i});
      pb.add(new Object[] {i, i == PLAIN_ROWS - 2 ? "x" : i == PLAIN_ROWS - 1 ? "y" : "n" + 3 * i});
    }
    CalciteReference.write(catalog, "pa", schema("id INTEGER", "note VARCHAR(10)"), pa);
    CalciteReference.write(catalog, "pb", schema("id INTEGER", "note VARCHAR(10)"), pb);
    for (String table : List.of("a", "b")) {
      assertTrue(catalog.table(table).orElseThrow().isDictionaryEncoded(3), table + ": name encoding");
    }
    for (String table : List.of("pa", "pb")) {
      assertTrue(!catalog.table(table).orElseThrow().isDictionaryEncoded(1), table + ": plain notes");
    }
    catalog.close();
  }

  @AfterAll static void closeCatalogs() {
    CatalogRegistry.close(dir);
  }

  @Test void integerWithBigintAndDecimalKey() throws SQLException {
    inSpillway("select a.id, b.id as bid from a join b on a.part = b.part and a.cost = b.cost order by 1, 2")
        .returns("id=2; bid=1\nid=3; bid=2\nid=3; bid=3\nid=5; bid=8\nid=7; bid=5\n");
  }

  @Test void multiColumnKeysInOuterAndAntiJoins() throws SQLException {
    inSpillway("select a.id, b.id as bid from a left join b on a.part = b.part and a.cost = b.cost order by 1, 2")
        .returns("id=1; bid=null\nid=2; bid=1\nid=3; bid=2\nid=3; bid=3\nid=4; bid=null\nid=5; bid=8\n"
            + "id=6; bid=null\nid=7; bid=5\nid=8; bid=null\n");
    inSpillway("select a.id from a where not exists (select 1 from b where b.part = a.part and b.cost = a.cost) "
        + "order by 1")
        .returns("id=1\nid=4\nid=6\nid=8\n");
  }

  @Test void textKeysAcrossDictionaries() throws SQLException {
    inSpillway("select b.id, count(*) as c from b join a on a.name = b.name group by b.id order by 1")
        .returns("id=1; c=4\nid=2; c=4\nid=5; c=4\nid=7; c=4\n");
    inSpillway("select a.id, b.id as bid from a join b on a.name = b.name and a.part = b.part order by 1, 2")
        .returns("id=2; bid=1\nid=4; bid=2\n");
  }

  @Test void notesOfSmallTablesAcrossDictionaries() throws SQLException {
    inSpillway("select a.id, b.id as bid from a join b on a.note = b.note order by 1, 2")
        .returns("id=1; bid=8\nid=2; bid=1\nid=3; bid=2\nid=6; bid=4\nid=8; bid=7\n");
    inSpillway("select a.id, b.id as bid from a join b on a.name = b.note where a.id <= 3 order by 1, 2")
        .returns("id=1; bid=3\nid=2; bid=5\nid=3; bid=3\n");
  }

  /** pa's n3i meets pb's row i for i below 100; a's dictionary names x and y meet pb's last two plain notes. */
  @Test void plainTextKeysAndPlainWithDictionaryText() throws SQLException {
    inSpillway("select count(*) as c, sum(pa.id) as s from pa join pb on pa.note = pb.note")
        .returns("c=100; s=14850\n");
    inSpillway("select a.id, pb.id as bid from a join pb on a.name = pb.note where a.id <= 3 order by 1, 2")
        .returns("id=1; bid=" + (PLAIN_ROWS - 2) + "\nid=2; bid=" + (PLAIN_ROWS - 1) + "\nid=3; bid="
            + (PLAIN_ROWS - 2) + "\n");
  }

  /** 1.5000 = 1.50, and 3.1234 equals no DECIMAL(10,2) value. */
  @Test void decimalsOfDifferentScales() throws SQLException {
    inSpillway("select a.id, b.id as bid from a join b on a.d4 = b.d2 order by 1, 2")
        .returns("id=1; bid=1\nid=2; bid=2\nid=3; bid=3\nid=6; bid=5\nid=8; bid=7\n");
  }

  private static SpillwayAssert.Query inSpillway(String sql) throws SQLException {
    return SpillwayAssert.that(dir).query(sql).explainContains("SpillwayJoin(").explainLacks("fallback=");
  }

  private static Object[] row(int id, Object part, String cost, String name, String note, String decimal) {
    return new Object[] {id, part, cost == null ? null : new BigDecimal(cost), name, note,
        decimal == null ? null : new BigDecimal(decimal)};
  }

  private static TableSchema schema(String... columns) {
    List<ColumnDef> defs = new ArrayList<>();
    for (String column : columns) {
      int space = column.indexOf(' ');
      defs.add(new ColumnDef(column.substring(0, space), ColumnType.parse(column.substring(space + 1))));
    }
    return new TableSchema(defs);
  }
}
