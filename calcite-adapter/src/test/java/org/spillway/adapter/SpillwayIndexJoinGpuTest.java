package org.spillway.adapter;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.spillway.adapter.jdbc.SpillwayDriver;

/**
 * joinAlgorithm=gpu-inlj in SQL: the index the first query builds (pinned, as the process's storage memory is on a
 * GPU machine) is read by the GPU windowed index join, which EXPLAIN ANALYZE reports on the GPU (no fallback), with
 * the CPU hash join's rows, in the default window and in windows of 1 KiB. Tagged gpu: skipped without a CUDA device, failed if gpu.required says there must be one.
 */
@Tag("gpu")
class SpillwayIndexJoinGpuTest extends GpuTpchData {
  private static final String JOIN = "FROM lineitem l JOIN orders o ON o.o_orderkey = l.l_orderkey"
      + " WHERE l.l_shipdate < DATE '1992-06-01'";

  @ParameterizedTest
  @ValueSource(strings = {"BINARY_SEARCH", "BTREE", "HARMONIA", "RADIXSPLINE"})
  void theGpuIndexJoinRunsOnTheGpuWithTheHashJoinsRows(String kind) throws SQLException {
    String cpu = SpillwayDriver.CONNECT_STRING_PREFIX + "dataDir=" + dir + ";device=cpu";
    String gpu = SpillwayDriver.CONNECT_STRING_PREFIX + "dataDir=" + dir + ";device=gpu;joinAlgorithm=gpu-inlj";
    try (Connection c = DriverManager.getConnection(cpu); Statement s = c.createStatement()) {
      s.executeUpdate("CREATE INDEX orders_key ON orders (o_orderkey) USING " + kind);
    }
    try {
      String select = "SELECT l.l_orderkey, l.l_linenumber, o.o_orderdate " + JOIN;
      List<String> expected = new ArrayList<>(SpillwayAssert.rows(cpu + ";joinAlgorithm=cpu-nopa", select));
      List<String> actual = new ArrayList<>(SpillwayAssert.rows(gpu, select));
      expected.sort(null);
      actual.sort(null);
      assertEquals(expected, actual, kind);
      String plan = String.join("\n", SpillwayAssert.rows(gpu, "EXPLAIN PLAN FOR " + select));
      assertTrue(plan.contains("device=[gpu], algorithm=[gpu-inlj]"), plan);
      SpillwayExplainAnalyzeTest.Analysis analysis = SpillwayExplainAnalyzeTest.Analysis.of(
          SpillwayExplainAnalyzeTest.lines(gpu, "EXPLAIN ANALYZE " + select));
      List<SpillwayExplainAnalyzeTest.Operator> joins = analysis.operators().stream()
          .filter(o -> o.label().contains(" join on ")).toList();
      assertEquals(1, joins.size(), analysis.text());
      assertEquals("gpu", joins.get(0).device(), analysis.text());
      assertEquals(expected.size(), joins.get(0).rows(), analysis.text());
      // windows of 1 KiB (128 keys, many per query) on the GPU: the same rows
      List<String> small = new ArrayList<>(SpillwayAssert.rows(gpu + ";indexJoinWindow=1k", select));
      small.sort(null);
      assertEquals(expected, small, kind + " in windows of 1 KiB");
      assertTrue(String.join("\n", SpillwayAssert.rows(gpu + ";indexJoinWindow=1k", "EXPLAIN PLAN FOR " + select))
          .contains("window=[1 KiB]"));
    } finally {
      try (Connection c = DriverManager.getConnection(cpu); Statement s = c.createStatement()) {
        s.executeUpdate("DROP INDEX orders_key");
      }
    }
  }
}
