package org.spillway.adapter;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.spillway.adapter.jdbc.SpillwayDriver;
import org.spillway.storage.Catalog;
import org.spillway.storage.ColumnDef;
import org.spillway.storage.ColumnType;
import org.spillway.storage.TableSchema;

import java.math.BigDecimal;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The aggregation over sorted runs as the planner picks it: over tables written in key order (as TPC-H's lineitem
 * and orders are), an aggregate whose one key is the sorted column, reached through filters, projections and a hash
 * join's probe side, shows {@code variant=sorted-runs}; a key that is computed, a second key, a column not in order
 * or one from a join's build side keeps {@code variant=hash}. The rows equal Calcite's own over the same rows (seed
 * in every message); more lineitem rows than one morsel holds, so runs cross morsel boundaries.
 */
class SpillwaySortedRunsTest {
  private static final long SEED = System.nanoTime();
  private static final int ORDERS = 20_000;

  @TempDir static Path dir;
  private static Connection reference;

  @BeforeAll static void createTables() throws SQLException {
    Random random = new Random(SEED);
    TableSchema orders = new TableSchema(List.of(new ColumnDef("o_orderkey", ColumnType.bigint().notNull()),
        new ColumnDef("o_custkey", ColumnType.integer().notNull())));
    TableSchema lineitem = new TableSchema(List.of(new ColumnDef("l_orderkey", ColumnType.bigint()),
        new ColumnDef("l_quantity", ColumnType.decimal(15, 2).notNull()),
        new ColumnDef("l_suppkey", ColumnType.integer().notNull())));
    List<Object[]> orderRows = new ArrayList<>();
    List<Object[]> lineRows = new ArrayList<>();
    for (int o = 0; o < ORDERS; o++) {
      long key = 1 + o * 4L + random.nextInt(3);  // sparse, as TPC-H's order keys are
      orderRows.add(new Object[] {key, random.nextInt(1000)});
      int lines = 1 + random.nextInt(7);
      for (int l = 0; l < lines; l++) {
        // a few NULL keys: they form one group of their own wherever they are
        lineRows.add(new Object[] {random.nextInt(500) == 0 ? null : key,
            BigDecimal.valueOf(100L * (1 + random.nextInt(50)), 2), random.nextInt(100)});
      }
    }
    Catalog catalog = Catalog.create(dir);
    CalciteReference.write(catalog, "orders", orders, orderRows);
    CalciteReference.write(catalog, "lineitem", lineitem, lineRows);
    catalog.close();
    reference = CalciteReference.connect(List.of("orders", "lineitem"), List.of(orders, lineitem),
        List.of(orderRows, lineRows));
  }

  @AfterAll static void close() throws SQLException {
    reference.close();
    CatalogRegistry.close(dir);
  }

  /** TPC-H Q18's subquery: the large orders by the sum of their lines' quantities. */
  @Test void q18SubqueryRunsOverSortedRuns() throws SQLException {
    assertVariant("sorted-runs", "select l_orderkey from lineitem group by l_orderkey having sum(l_quantity) > 200 "
        + "order by l_orderkey");
    assertVariant("sorted-runs", "select l_orderkey, count(*), count(l_orderkey), sum(l_quantity), min(l_suppkey), "
        + "max(l_quantity) from lineitem where l_suppkey <> 7 group by l_orderkey order by l_orderkey");
    assertVariant("sorted-runs", "select k, sum(q) from (select l_quantity * 2 as q, l_orderkey as k from lineitem) "
        + "group by k order by k");
  }

  @Test void probeSideOfAHashJoinKeepsTheOrder() throws SQLException {
    assertVariant("sorted-runs", "select l_orderkey, sum(l_quantity), count(*) from lineitem join orders "
        + "on l_orderkey = o_orderkey where o_custkey < 20 group by l_orderkey order by l_orderkey");
  }

  @Test void computedKeysSeveralKeysAndUnsortedColumnsHash() throws SQLException {
    assertVariant("hash", "select l_orderkey + 1, count(*) from lineitem group by l_orderkey + 1 order by 1");
    assertVariant("hash", "select l_orderkey, l_suppkey, count(*) from lineitem group by l_orderkey, l_suppkey "
        + "order by l_orderkey, l_suppkey");
    assertVariant("hash", "select l_suppkey, count(*) from lineitem group by l_suppkey order by l_suppkey");
    assertVariant("hash", "select o_custkey, count(*) from lineitem join orders on l_orderkey = o_orderkey "
        + "where o_custkey < 20 group by o_custkey order by o_custkey");
  }

  /** The plan's one aggregate over the table shows {@code variant}, and the rows are Calcite's. */
  private static void assertVariant(String variant, String sql) throws SQLException {
    String where = sql + " (seed " + SEED + ")";
    try (Connection spillway = DriverManager.getConnection(SpillwayDriver.CONNECT_STRING_PREFIX + "dataDir=" + dir
        + ";device=cpu")) {
      String plan = CalciteReference.rows(spillway, "explain plan for " + sql).toString();
      Matcher aggregate = Pattern.compile("SpillwayAggregate\\(.*?variant=\\[([a-z-]+)\\]").matcher(plan);
      assertTrue(aggregate.find(), where + ": no aggregate in\n" + plan);
      assertEquals(variant, aggregate.group(1), where + ":\n" + plan);
      List<List<Object>> actual = CalciteReference.rows(spillway, sql);
      List<List<Object>> expected = CalciteReference.rows(reference, sql);
      assertNull(CalciteReference.difference(actual, expected), () -> where + ": "
          + CalciteReference.difference(actual, expected) + "\nplan:\n" + plan);
    }
  }
}
