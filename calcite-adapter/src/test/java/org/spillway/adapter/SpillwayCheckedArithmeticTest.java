package org.spillway.adapter;

import org.apache.calcite.sql.SqlKind;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.spillway.adapter.jdbc.SpillwayDriver;
import org.spillway.tpch.ProgressListener;
import org.spillway.tpch.TpchGenerator;

import java.nio.file.Path;
import java.sql.SQLException;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Integer overflow is an error wherever the expression is evaluated: in Calcite's generated code and constant
 * folding (which wrapped silently: issue #12) as in Spillway's evaluator (which always checked).
 */
class SpillwayCheckedArithmeticTest {
  @TempDir static Path dir;

  @BeforeAll static void generate() {
    TpchGenerator.generate(dir, 0.001, 1, ProgressListener.NONE);
  }

  @AfterAll static void closeCatalogs() {
    CatalogRegistry.close(dir);
  }

  @ParameterizedTest
  @ValueSource(strings = {
      "SELECT 2147483647 + 1",  // a constant: Calcite hoisted it into a static initializer
      "SELECT -2147483647 - 2",
      "SELECT 65536 * 65536",
      "SELECT n + 1 FROM (VALUES 2147483647) AS t(n)",
      "SELECT -n FROM (VALUES CAST(-2147483648 AS INTEGER)) AS t(n)",
      // above the sort, in Calcite's EnumerableCalc (SF 0.001: o_orderkey up to 6000)
      "SELECT l_orderkey * 1000000 FROM lineitem ORDER BY l_orderkey DESC LIMIT 1",
      "SELECT CAST(l_orderkey AS BIGINT) * 4611686018427387904 FROM lineitem ORDER BY l_orderkey DESC LIMIT 1",
      // in Spillway's evaluator
      "SELECT l_orderkey * 1000000 FROM lineitem",
  })
  void overflowIsAnError(String sql) {
    String url = SpillwayDriver.CONNECT_STRING_PREFIX + "dataDir=" + dir + ";device=cpu";
    for (int run = 0; run < 2; run++) {  // the second run reuses the cached plan
      try {
        List<String> rows = SpillwayAssert.rows(url, sql);
        fail(sql + " returned " + rows.subList(0, Math.min(3, rows.size())) + " instead of an overflow error");
      } catch (SQLException | ArithmeticException e) {
        // The SQLException with SQLSTATE 22003 is item 7's mapping; here: an overflow, not a wrapped value
        assertTrue(mentionsOverflow(e), () -> sql + ": " + e);
      }
    }
  }

  @Test void valuesThatFitAreExact() throws SQLException {
    String url = SpillwayDriver.CONNECT_STRING_PREFIX + "dataDir=" + dir + ";device=cpu";
    assertEquals(List.of("2147483647 | -2147483648 | 4294967296"),
        SpillwayAssert.rows(url, "SELECT 2147483646 + 1, -2147483647 - 1, CAST(65536 AS BIGINT) * 65536"));
    long maxKey = Long.parseLong(SpillwayAssert.rows(url, "SELECT MAX(l_orderkey) FROM lineitem").get(0));
    assertEquals(List.of(String.valueOf(maxKey * 100000)),
        SpillwayAssert.rows(url, "SELECT l_orderkey * 100000 FROM lineitem ORDER BY l_orderkey DESC LIMIT 1"));
  }

  @Test void checkedArithmeticStillRunsInSpillway() throws SQLException {
    SpillwayAssert.that(dir)
        .query("SELECT n_nationkey * 2 - 1 AS x FROM nation WHERE n_nationkey + 1 > 3")
        .planShape("SpillwayToEnumerableConverter\n"
            + "  SpillwayProject\n"
            + "    SpillwayFilter\n"
            + "      SpillwayTableScan\n");
  }

  @Test void checkedKindsReadAsPlainOnes() {
    assertEquals(SqlKind.PLUS, SpillwayCheckedArithmetic.plainKind(SqlKind.CHECKED_PLUS));
    assertEquals(SqlKind.MINUS, SpillwayCheckedArithmetic.plainKind(SqlKind.CHECKED_MINUS));
    assertEquals(SqlKind.TIMES, SpillwayCheckedArithmetic.plainKind(SqlKind.CHECKED_TIMES));
    assertEquals(SqlKind.DIVIDE, SpillwayCheckedArithmetic.plainKind(SqlKind.CHECKED_DIVIDE));
    assertEquals(SqlKind.MINUS_PREFIX, SpillwayCheckedArithmetic.plainKind(SqlKind.CHECKED_MINUS_PREFIX));
    assertEquals(SqlKind.EQUALS, SpillwayCheckedArithmetic.plainKind(SqlKind.EQUALS));
  }

  private static boolean mentionsOverflow(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t.getMessage() != null && t.getMessage().toLowerCase(java.util.Locale.ROOT).contains("overflow")) {
        return true;
      }
    }
    return false;
  }
}
