package org.spillway.adapter;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.spillway.adapter.jdbc.SpillwayDriver;
import org.spillway.tpch.ProgressListener;
import org.spillway.tpch.TpchGenerator;

import java.math.BigDecimal;
import java.nio.file.Path;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * ORDER BY, LIMIT and OFFSET run as a {@link SpillwaySort}, and a join without an equi-key against a small side
 * as a {@link SpillwayNestedLoopJoin}: each query's rows equal those of the same query without the sort (or with
 * the join done here), ordered and cut here; the plans show no enumerable operator under the converter.
 */
class SpillwaySortTest {
  @TempDir static Path dir;

  @BeforeAll static void generate() {
    TpchGenerator.generate(dir, 0.001, 1, ProgressListener.NONE);
  }

  @AfterAll static void closeCatalogs() {
    CatalogRegistry.close(dir);
  }

  private static String url() {
    return SpillwayDriver.CONNECT_STRING_PREFIX + "dataDir=" + dir + ";device=cpu";
  }

  @Test void orderByWithLimitAndOffsetIsATopN() throws SQLException {
    String base = "SELECT o_orderkey, o_totalprice FROM orders";
    String sql = base + " ORDER BY o_totalprice DESC, o_orderkey LIMIT 5 OFFSET 3";
    List<String> expected = new ArrayList<>(SpillwayAssert.rows(url(), base));
    expected.sort(Comparator.comparing((String row) -> new BigDecimal(column(row, 1))).reversed()
        .thenComparing(row -> Long.parseLong(column(row, 0))));
    assertEquals(expected.subList(3, 8), SpillwayAssert.rows(url(), sql));
    SpillwayAssert.that(dir).query(sql)
        .planShape("SpillwayToEnumerableConverter\n"
            + "  SpillwaySort\n"
            + "    SpillwayTableScan\n")
        .explainContains("SpillwaySort(sort0=[$1], sort1=[$0], dir0=[DESC], dir1=[ASC], offset=[3], fetch=[5], "
            + "device=[cpu], variant=[top-n])");
  }

  /** A LEFT join's NULLs (customers without orders) first, then the order keys descending, over a join. */
  @Test void descendingNullsFirstOverAJoin() throws SQLException {
    String base = "SELECT o_orderkey, c_custkey FROM customer LEFT JOIN orders ON c_custkey = o_custkey";
    String sql = base + " ORDER BY o_orderkey DESC NULLS FIRST, c_custkey LIMIT 40";
    List<String> expected = new ArrayList<>(SpillwayAssert.rows(url(), base));
    Comparator<String> orderKey = Comparator.comparing(row -> "null".equals(column(row, 0)) ? null
        : Long.parseLong(column(row, 0)), Comparator.nullsFirst(Comparator.<Long>reverseOrder()));
    expected.sort(orderKey.thenComparing(row -> Long.parseLong(column(row, 1))));
    List<String> actual = SpillwayAssert.rows(url(), sql);
    assertEquals(expected.subList(0, 40), actual);
    assertTrue(actual.get(0).startsWith("null | "), "customers without orders come first: " + actual);
    SpillwayAssert.that(dir).query(sql)
        .planShape("SpillwayToEnumerableConverter\n"
            + "  SpillwayProject\n"
            + "    SpillwaySort\n"
            + "      SpillwayJoin\n"
            + "        SpillwayTableScan\n"
            + "        SpillwayTableScan\n")
        .explainContains("dir0=[DESC], dir1=[ASC], fetch=[40], device=[cpu], variant=[top-n]");
    // NULLS LAST against DESC's default: the customers without orders go after every order
    String last = base + " ORDER BY o_orderkey DESC NULLS LAST, c_custkey";
    List<String> all = SpillwayAssert.rows(url(), last);
    expected.sort(Comparator.comparing(row -> "null".equals(column(row, 0)) ? null
        : Long.parseLong(column(row, 0)), Comparator.nullsLast(Comparator.<Long>reverseOrder())));
    assertEquals(expected, all);
    assertTrue(all.get(all.size() - 1).startsWith("null | "), "customers without orders come last");
    SpillwayAssert.that(dir).query(last).explainContains("dir0=[DESC-nulls-last]");
  }

  /** Text orders by its strings, dictionary codes (c_mktsegment) and plain text (c_name) alike. */
  @Test void textKeysOrderByTheirStrings() throws SQLException {
    String base = "SELECT c_mktsegment, c_name FROM customer";
    String sql = base + " ORDER BY c_mktsegment DESC, c_name";
    List<String> expected = new ArrayList<>(SpillwayAssert.rows(url(), base));
    expected.sort(Comparator.comparing((String row) -> column(row, 0)).reversed()
        .thenComparing(row -> column(row, 1)));
    assertEquals(expected, SpillwayAssert.rows(url(), sql));
    SpillwayAssert.that(dir).query(sql).explainLacks("Enumerable" + "Sort");
  }

  /** LIMIT without ORDER BY cuts the rows off; a project above the sort keeps its order. */
  @Test void limitWithoutOrderAndProjectAboveASort() throws SQLException {
    assertEquals(4, SpillwayAssert.rows(url(), "SELECT n_name FROM nation LIMIT 4").size());
    SpillwayAssert.that(dir).query("SELECT n_name FROM nation LIMIT 4")
        .explainContains("fetch=[4], device=[cpu], variant=[limit]");
    String sql = "SELECT n_nationkey + 1 AS k FROM nation ORDER BY n_nationkey DESC LIMIT 3";
    assertEquals(List.of("25", "24", "23"), SpillwayAssert.rows(url(), sql));
    SpillwayAssert.that(dir).query(sql)
        .planShape("SpillwayToEnumerableConverter\n"
            + "  SpillwayProject\n"
            + "    SpillwaySort\n"
            + "      SpillwayTableScan\n");
  }

  /** A comparison with a scalar subquery (TPC-H Q11's and Q22's shape) joins against its one row. */
  @Test void scalarSubqueryComparisonIsANestedLoopJoin() throws SQLException {
    List<String> all = SpillwayAssert.rows(url(), "SELECT s_suppkey, s_acctbal FROM supplier");
    BigDecimal sum = BigDecimal.ZERO;
    for (String row : all) {
      sum = sum.add(new BigDecimal(column(row, 1)));
    }
    BigDecimal max = all.stream().map(row -> new BigDecimal(column(row, 1))).max(Comparator.naturalOrder())
        .orElseThrow();
    List<String> expected = new ArrayList<>();
    for (String row : all) {
      if (new BigDecimal(column(row, 1)).multiply(BigDecimal.valueOf(2)).compareTo(max) > 0) {
        expected.add(row);
      }
    }
    expected.sort(Comparator.comparing(row -> Long.parseLong(column(row, 0))));
    String sql = "SELECT s_suppkey, s_acctbal FROM supplier "
        + "WHERE s_acctbal * 2 > (SELECT MAX(s_acctbal) FROM supplier) ORDER BY s_suppkey";
    assertEquals(expected, SpillwayAssert.rows(url(), sql));
    assertTrue(sum.signum() != 0 && !expected.isEmpty() && expected.size() < all.size(), "a selective test");
    SpillwayAssert.that(dir).query(sql)
        .explainContains("SpillwayNestedLoopJoin(condition=[>(*($1, 2), CAST($2):DECIMAL(19, 2))], joinType=[inner], device=[cpu], "
            + "algorithm=[nested-loop], smallSide=[right], smallRowFirst=[narrows the left side])")
        .explainLacks("Enumerable" + "NestedLoopJoin")
        .explainLacks("fallback=");
  }

  /** A LEFT join on an inequality with a small right side: every left row once, unmatched ones with NULL. */
  @Test void leftNestedLoopJoinKeepsUnmatchedRows() throws SQLException {
    List<String> nations = SpillwayAssert.rows(url(), "SELECT n_nationkey, n_regionkey FROM nation");
    List<String> regions = SpillwayAssert.rows(url(), "SELECT r_regionkey FROM region");
    List<String> expected = new ArrayList<>();
    for (String n : nations) {
      long nation = Long.parseLong(column(n, 0));
      long region = Long.parseLong(column(n, 1));
      List<Long> matches = regions.stream().map(Long::parseLong).filter(r -> region + 2 < r).sorted().toList();
      if (matches.isEmpty()) {
        expected.add(nation + " | null");
      }
      matches.forEach(r -> expected.add(nation + " | " + r));
    }
    expected.sort(Comparator.comparing((String row) -> Long.parseLong(column(row, 0)))
        .thenComparing(row -> column(row, 1)));
    String sql = "SELECT n_nationkey, r_regionkey FROM nation LEFT JOIN region ON n_regionkey + 2 < r_regionkey "
        + "ORDER BY n_nationkey, r_regionkey NULLS FIRST";
    assertEquals(expected, SpillwayAssert.rows(url(), sql));
    SpillwayAssert.that(dir).query(sql)
        .explainContains("joinType=[left], device=[cpu], algorithm=[nested-loop], smallSide=[right]")
        .explainLacks("smallRowFirst");
  }

  private static String column(String row, int c) {
    return row.split(" \\| ")[c];
  }
}
