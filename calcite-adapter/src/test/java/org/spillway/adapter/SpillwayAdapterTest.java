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
    createSales(catalog);
    catalog.close();
  }

  /** A table whose text column repeats enough to be dictionary-encoded (as TPC-H flags and modes are). */
  private static void createSales(Catalog catalog) {
    TableSchema schema = new TableSchema(List.of(
        new ColumnDef("region", ColumnType.varchar(10)),
        new ColumnDef("sold", ColumnType.date()),
        new ColumnDef("amount", ColumnType.decimal(10, 2)),
        new ColumnDef("qty", ColumnType.integer())));
    String[] regions = {"north", "east", null, "east", "west", "north", "east", "nowhere", "west", "east", "north",
        "east", "east", "east", "east", "east"};
    try (TableWriter writer = catalog.createTable("sales", schema)) {
      BatchBuilder batch = writer.newBatch(regions.length);
      for (int r = 0; r < regions.length; r++) {
        if (regions[r] == null) {
          batch.setNull(0, r);
        } else {
          batch.setString(0, r, regions[r]);
        }
        batch.setDate(1, r, (int) LocalDate.parse("1996-01-01").plusDays(100L * r).toEpochDay());
        if (r % 5 == 4) {
          batch.setNull(2, r);
        } else {
          batch.setDecimal(2, r, new BigDecimal(r * 10 + 1).movePointLeft(2));
        }
        batch.setInt(3, r, r - 3);
      }
      batch.setRowCount(regions.length);
      writer.append(batch);
      writer.commit();
    }
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

  @Test void filterAndProjectRunInSpillwayOverThePrunedScan() throws SQLException {
    SpillwayAssert.that(dir)
        .query("select name, id from items where id > 1")
        .returns("name=nut; id=2\nname=null; id=3\n")
        .explainContains("PLAN=SpillwayToEnumerableConverter\n"
            + "  SpillwayProject(name=[$1], id=[$0], device=[cpu], variant=[vectorized], transfer=[none], linkBytes=[16])\n"
            + "    SpillwayFilter(condition=[>($0, 1)], device=[cpu], variant=[predication], transfer=[none], "
            + "linkBytes=[24])\n"
            + "      SpillwayTableScan(table=[[spillway, items]], fields=[[0, 1]], device=[cpu], "
            + "variant=[morsel-scan], transfer=[none], linkBytes=[24])");
  }

  @Test void expressionsReadOnlyTheColumnsTheyUse() throws SQLException {
    SpillwayAssert.that(dir)
        .query("select sum(price * 2) as total from items")
        .returns("total=-24.48\n")
        .explainContains("SpillwayTableScan(table=[[spillway, items]], fields=[[2]]");
  }

  @Test void unsupportedExpressionStaysEnumerableAndSaysWhy() throws SQLException {
    SpillwayAssert.that(dir)
        .query("select id from items where upper(name) = 'NUT'")
        .returns("id=2\n")
        .planShape("EnumerableCalc\n  SpillwayToEnumerableConverter\n    SpillwayTableScan\n")
        .explainContains("SpillwayToEnumerableConverter(fallback=[Filter: function UPPER in UPPER($1)])");
  }

  @Test void nullsFollowThreeValuedLogic() throws SQLException {
    SpillwayAssert.that(dir)
        .query("select id, price is null as p, not (price > 0) as q, "
            + "case when price > 0 then 1 when price < 0 then -1 end as sgn from items order by id")
        .returns("id=1; p=false; q=false; sgn=1\nid=2; p=false; q=true; sgn=-1\nid=3; p=true; q=null; sgn=null\n")
        .planShape("SpillwayToEnumerableConverter\n  SpillwaySort\n    SpillwayProject\n      SpillwayTableScan\n");
  }

  @Test void groupByOnDictionaryTextAndDates() throws SQLException {
    SpillwayAssert.that(dir)
        .query("select region, count(*) as c, count(amount) as n, max(sold) as last, min(amount) as low, "
            + "sum(amount) as total, sum(extract(year from sold)) as y from sales "
            + "where region like 'no%' or region is null or region in ('west', 'south') "
            + "group by region order by region")
        .returns("region=north; c=3; n=3; last=1998-09-27; low=0.01; total=1.53; y=5991\n"
            + "region=nowhere; c=1; n=1; last=1997-12-01; low=0.71; total=0.71; y=1997\n"
            + "region=west; c=2; n=1; last=1998-03-11; low=0.81; total=0.81; y=3995\n"
            + "region=null; c=1; n=1; last=1996-07-19; low=0.21; total=0.21; y=1996\n")
        .planShape("SpillwayToEnumerableConverter\n  SpillwaySort\n    SpillwayAggregate\n"
            + "      SpillwayProject\n        SpillwayFilter\n          SpillwayTableScan\n");
  }

  @Test void integerArithmeticAndComparisonsWithText() throws SQLException {
    SpillwayAssert.that(dir)
        .query("select qty * 2 - 1 as a, qty / 2 as b, region > 'east' as c from sales where qty between -1 and 2")
        .returns("a=-3; b=0; c=null\na=-1; b=0; c=false\na=1; b=0; c=true\na=3; b=1; c=true\n")
        .planShape("SpillwayToEnumerableConverter\n  SpillwayProject\n    SpillwayFilter\n      SpillwayTableScan\n");
  }

  @Test void decimalRangesRoundTheirBoundsInward() throws SQLException {
    SpillwayAssert.that(dir)
        .query("select sum(case when amount > 0.055 and amount <= 1.005 then 1 else 0 end) as a, "
            + "sum(case when amount between 0.2 and 0.6 then 1 else 0 end) as b, "
            + "sum(case when amount in (0.11, 1.51, 2) then 1 else 0 end) as c, "
            + "sum(case when amount not in (0.11) then 1 else 0 end) as d from sales")
        .returns("a=7; b=3; c=2; d=12\n")
        .planShape("SpillwayToEnumerableConverter\n  SpillwayAggregate\n    SpillwayProject\n      SpillwayTableScan\n");
  }
}
