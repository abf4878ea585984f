package org.spillway.adapter;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.spillway.tpch.ProgressListener;
import org.spillway.tpch.TpchGenerator;
import org.spillway.tpch.TpchQueries;

import java.nio.file.Path;
import java.sql.SQLException;

/** Pins which operators of TPC-H Q1 and Q6 run in the Spillway convention, and why the rest do not. */
class SpillwayTpchPlanTest {
  @TempDir static Path dir;

  @BeforeAll static void generate() {
    TpchGenerator.generate(dir, 0.001, 1, ProgressListener.NONE);
  }

  @AfterAll static void closeCatalogs() {
    CatalogRegistry.close(dir);
  }

  @Test void q6RunsEntirelyInSpillway() throws SQLException {
    SpillwayAssert.that(dir)
        .query(TpchQueries.sql(6))
        .planShape("SpillwayToEnumerableConverter\n"
            + "  SpillwayAggregate\n"
            + "    SpillwayProject\n"
            + "      SpillwayFilter\n"
            + "        SpillwayTableScan\n")
        .explainContains("SpillwayAggregate(group=[{}], revenue=[SUM($0)], device=[cpu], variant=[global], "
            + "transfer=[none]")
        .explainContains("SpillwayFilter(condition=[AND(SEARCH($3, Sarg[[1994-01-01..1995-01-01)]), "
            + "SEARCH($2, Sarg[[0.05:DECIMAL(4, 2)..0.07:DECIMAL(4, 2)]]:DECIMAL(4, 2)), <($0, 24.00))], "
            + "device=[cpu], variant=[predication], transfer=[none]")
        .explainContains("SpillwayTableScan(table=[[spillway, lineitem]], fields=[[4, 5, 6, 10]], device=[cpu], "
            + "variant=[morsel-scan], transfer=[none], linkBytes=[" + 28 * lineitemRows() + "])");
  }

  @Test void q1AggregatesInSpillwayAndDividesInCalcite() throws SQLException {
    SpillwayAssert.that(dir)
        .query(TpchQueries.sql(1))
        .planShape("EnumerableSort\n"
            + "  EnumerableCalc\n"
            + "    SpillwayToEnumerableConverter\n"
            + "      SpillwayAggregate\n"
            + "        SpillwayProject\n"
            + "          SpillwayFilter\n"
            + "            SpillwayTableScan\n")
        .explainContains("SpillwayToEnumerableConverter(fallback=[Project: decimal division")
        .explainContains("SpillwayAggregate(group=[{0, 1}], sum_qty=[$SUM0($2)], sum_base_price=[$SUM0($3)], "
            + "sum_disc_price=[$SUM0($4)], sum_charge=[$SUM0($5)], agg#4=[COUNT()], agg#5=[$SUM0($6)], "
            + "device=[cpu], variant=[hash], transfer=[none]");
  }

  private static long lineitemRows() {
    return CatalogRegistry.open(dir).table("lineitem").orElseThrow().rowCount();
  }
}
