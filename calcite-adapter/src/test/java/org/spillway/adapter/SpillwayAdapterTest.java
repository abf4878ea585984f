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

import java.math.BigDecimal;
import java.nio.file.Path;
import java.sql.SQLException;
import java.time.LocalDate;
import java.util.List;

/** Tests the Spillway schema, scan node and driver over a small hand-made catalog. */
class SpillwayAdapterTest {
  @TempDir static Path dir;

  @BeforeAll static void createCatalog() {
    TableSchema schema = new TableSchema(List.of(
        new ColumnDef("id", ColumnType.integer().notNull()),
        new ColumnDef("name", ColumnType.varchar(20)),
        new ColumnDef("price", ColumnType.decimal(15, 2)),
        new ColumnDef("shipped", ColumnType.date())));
    Catalog catalog = Catalog.create(dir);
    try (TableWriter writer = catalog.createTable("items", schema)) {
      BatchBuilder batch = writer.newBatch(3);
      Object[][] rows = {
          {1, "bolt", "0.10", "1995-03-15"}, {2, "nut", "-12.34", "1998-12-01"}, {3, null, null, null}};
      for (int r = 0; r < rows.length; r++) {
        batch.setInt(0, r, (Integer) rows[r][0]);
        if (rows[r][1] == null) {
          batch.setNull(1, r);
          batch.setNull(2, r);
          batch.setNull(3, r);
          continue;
        }
        batch.setString(1, r, (String) rows[r][1]);
        batch.setDecimal(2, r, new BigDecimal((String) rows[r][2]));
        batch.setDate(3, r, (int) LocalDate.parse((String) rows[r][3]).toEpochDay());
      }
      batch.setRowCount(rows.length);
      writer.append(batch);
      writer.commit();
    }
    catalog.close();
  }

  @AfterAll static void closeCatalogs() {
    CatalogRegistry.close(dir);
  }

  @Test void scanReadsEveryTypeAndNull() throws SQLException {
    SpillwayAssert.that(dir)
        .query("select * from items order by id")
        .returns("id=1; name=bolt; price=0.10; shipped=1995-03-15\n"
            + "id=2; name=nut; price=-12.34; shipped=1998-12-01\n"
            + "id=3; name=null; price=null; shipped=null\n");
  }

  @Test void projectIsPushedIntoScan() throws SQLException {
    SpillwayAssert.that(dir)
        .query("select name, id from items where id > 1")
        .returns("name=nut; id=2\nname=null; id=3\n")
        .explainContains("PLAN=EnumerableCalc(expr#0..1=[{inputs}], expr#2=[1], expr#3=[>($t0, $t2)], "
            + "name=[$t1], id=[$t0], $condition=[$t3])\n"
            + "  SpillwayToEnumerableConverter\n"
            + "    SpillwayTableScan(table=[[spillway, items]], fields=[[0, 1]])");
  }

  @Test void expressionsReadOnlyTheColumnsTheyUse() throws SQLException {
    SpillwayAssert.that(dir)
        .query("select sum(price * 2) as total from items")
        .returns("total=-24.48\n")
        .explainContains("SpillwayTableScan(table=[[spillway, items]], fields=[[2]])");
  }

  @Test void identifiersAreCaseInsensitive() throws SQLException {
    SpillwayAssert.that(dir)
        .query("SELECT COUNT(*) AS N FROM ITEMS WHERE Shipped < DATE '1996-01-01'")
        .returns("n=1\n");
  }
}
