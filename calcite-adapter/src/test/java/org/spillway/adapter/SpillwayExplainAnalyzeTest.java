package org.spillway.adapter;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.spillway.adapter.jdbc.SpillwayDriver;
import org.spillway.tpch.ProgressListener;
import org.spillway.tpch.TpchGenerator;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * EXPLAIN ANALYZE over JDBC on the CPU: one text column whose rows are EXPLAIN PLAN's lines and then a table with
 * one row per runtime node in plan order, each on the CPU with the rows it really output (the top pipeline's are
 * the query's rows, a join's the join's rows) and non-negative times; a statement that is not a query is refused.
 */
class SpillwayExplainAnalyzeTest {
  @TempDir static Path dir;

  private static final String JOIN = "FROM orders JOIN customer ON o_custkey = c_custkey"
      + " WHERE c_mktsegment = 'BUILDING'";
  private static final String QUERY = "SELECT o_orderpriority, COUNT(*) AS n " + JOIN + " GROUP BY o_orderpriority";

  @BeforeAll static void generate() {
    TpchGenerator.generate(dir, 0.001, 1, ProgressListener.NONE);
  }

  @AfterAll static void closeCatalogs() {
    CatalogRegistry.close(dir);
  }

  private static String url(String properties) {
    return SpillwayDriver.CONNECT_STRING_PREFIX + "dataDir=" + dir + ";device=cpu" + properties;
  }

  /** A CPU hash join probed inside the aggregate's pipeline: one report, its rows the query's. */
  @Test void aPipelineThroughAJoinReportsTheQuerysRows() throws SQLException {
    String url = url("");
    List<String> lines = lines(url, "EXPLAIN ANALYZE " + QUERY);
    String plan = String.join("\n", lines(url, "EXPLAIN PLAN FOR " + QUERY));
    assertTrue(String.join("\n", lines).startsWith(plan.strip()), "the plan first:\n" + lines + "\nEXPLAIN:\n" + plan);
    long queryRows = SpillwayAssert.rows(url, QUERY).size();
    assertTrue(queryRows > 1);
    Analysis analysis = Analysis.of(lines);
    assertEquals(queryRows, analysis.rows);
    assertTrue(analysis.preparedMillis > 0, String.join("\n", lines));
    assertFalse(analysis.operators.isEmpty(), String.join("\n", lines));
    Operator top = analysis.operators.get(0);
    assertTrue(top.label.startsWith("pipeline probing 1 join over"), top.label);
    assertEquals(queryRows, top.rows, "the aggregate at the top outputs the query's rows");
    analysis.assertAllOnTheCpu();
  }

  /**
   * A radix join is a node of its own (a semi-join here: the aggregate reads no customer column): its report has
   * the join's rows and the cost model's prediction, after the aggregate above it.
   */
  @Test void aJoinNodeReportsTheJoinsRowsBelowTheAggregate() throws SQLException {
    String url = url(";joinAlgorithm=cpu-radix");
    List<String> lines = lines(url, "explain analyze " + QUERY);
    Analysis analysis = Analysis.of(lines);
    long queryRows = SpillwayAssert.rows(url, QUERY).size();
    long joinRows = Long.parseLong(SpillwayAssert.rows(url, "SELECT COUNT(*) " + JOIN).get(0));
    assertEquals(queryRows, analysis.rows);
    List<String> labels = analysis.operators.stream().map(o -> o.label).toList();
    List<String> joins = labels.stream().filter(l -> l.contains(" join on ")).toList();
    assertEquals(1, joins.size(), analysis.text);
    int join = labels.indexOf(joins.get(0));
    assertTrue(join > 0, "the join after the pipeline above it: " + analysis.text);
    assertEquals("pipeline over an intermediate result", labels.get(0), String.join("\n", lines));
    assertEquals(queryRows, analysis.operators.get(0).rows);
    assertEquals(joinRows, analysis.operators.get(join).rows);
    assertFalse(analysis.operators.get(join).predicted.equals("-"), "the cost model predicted the join's time");
    analysis.assertAllOnTheCpu();
  }

  /** A top-N is a node of its own, first in plan order, with the rows it keeps; the scan below it all of them. */
  @Test void aSortReportsTheRowsItKeeps() throws SQLException {
    String url = url("");
    Analysis analysis = Analysis.of(lines(url,
        "EXPLAIN ANALYZE SELECT o_orderkey FROM orders WHERE o_totalprice > 1000 ORDER BY o_totalprice DESC LIMIT 7"));
    long filtered = Long.parseLong(SpillwayAssert.rows(url,
        "SELECT COUNT(*) FROM orders WHERE o_totalprice > 1000").get(0));
    assertEquals(7, analysis.rows);
    assertTrue(analysis.operators.get(0).label.startsWith("sort [1 DESC] fetch 7"), analysis.text);
    assertEquals(7, analysis.operators.get(0).rows);
    Operator scan = analysis.operators.stream().filter(o -> o.label.equals("pipeline over orders")).findFirst()
        .orElseThrow(() -> new AssertionError(analysis.text));
    assertEquals(filtered, scan.rows, analysis.text);
    analysis.assertAllOnTheCpu();
  }

  @Test void onlyQueriesAreAnalyzed() {
    SQLException e = assertThrows(SQLException.class, () -> lines(url(""), "EXPLAIN ANALYZE DROP TABLE orders"));
    assertTrue(e.getMessage().contains("EXPLAIN ANALYZE runs a query"), e.getMessage());
  }

  /** The single column's values, one per row. */
  static List<String> lines(String url, String sql) throws SQLException {
    List<String> out = new ArrayList<>();
    try (Connection c = DriverManager.getConnection(url);
         Statement s = c.createStatement();
         ResultSet rs = s.executeQuery(sql)) {
      assertEquals(1, rs.getMetaData().getColumnCount());
      while (rs.next()) {
        out.addAll(rs.getString(1).lines().toList());
      }
    }
    return out;
  }

  /** One row of the report table. */
  record Operator(String label, String device, long rows, double millis, String predicted, String linkGb,
      String rate) {}

  /** The summary and the rows of the report table that follow the plan in EXPLAIN ANALYZE's lines. */
  record Analysis(long rows, double preparedMillis, List<Operator> operators, String text) {
    static Analysis of(List<String> lines) {
      String text = String.join("\n", lines);
      int summary = -1;
      for (int i = 0; i < lines.size(); i++) {
        if (lines.get(i).startsWith("EXPLAIN ANALYZE: ")) {
          summary = i;
        }
      }
      assertTrue(summary > 0, "a summary after the plan:\n" + text);
      long rows = Long.parseLong(lines.get(summary).split(" ")[2]);
      Matcher prepared = Pattern.compile("; prepared in ([0-9.]+) ms \\(parsed, planned, code generated\\)$")
          .matcher(lines.get(summary));
      assertTrue(prepared.find(), "the time preparing the query took:\n" + text);
      List<String> header = cells(lines.get(summary + 1));
      assertEquals(List.of("operator", "device", "rows", "time ms", "predicted ms", "link GB", "GB/s"), header);
      List<Operator> operators = new ArrayList<>();
      for (String line : lines.subList(summary + 2, lines.size())) {
        List<String> c = cells(line);
        operators.add(new Operator(c.get(0), c.get(1), Long.parseLong(c.get(2)), Double.parseDouble(c.get(3)),
            c.get(4), c.get(5), c.get(6)));
      }
      return new Analysis(rows, Double.parseDouble(prepared.group(1)), operators, text);
    }

    void assertAllOnTheCpu() {
      for (Operator o : operators) {
        assertEquals("cpu", o.device, text);
        assertTrue(o.millis >= 0, text);
        assertTrue(o.predicted.equals("-") || Double.parseDouble(o.predicted) >= 0, text);
        assertEquals("-", o.linkGb, text);
      }
    }

    private static List<String> cells(String line) {
      assertTrue(line.startsWith("|") && line.endsWith("|"), line);
      return Arrays.stream(line.substring(1, line.length() - 1).split("\\|")).map(String::strip).toList();
    }
  }
}
