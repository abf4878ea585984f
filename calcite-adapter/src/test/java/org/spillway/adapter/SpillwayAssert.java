package org.spillway.adapter;

import org.spillway.adapter.jdbc.SpillwayDriver;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Fluent assertions in the style of Calcite's CalciteAssert: run SQL, pin the rows and the plan. */
final class SpillwayAssert {
  /** The lines of an EXPLAIN other than its sorts' (a sort of a few result rows always runs on the CPU). */
  static String belowSorts(String plan) {
    return String.join("\n", plan.lines().filter(line -> !line.contains("SpillwaySort(")).toList());
  }

  private final String url;

  private SpillwayAssert(String url) {
    this.url = url;
  }

  /** Plans and rows of the CPU backend; GPU plans are pinned under an assumed GPU site or on a GPU machine. */
  static SpillwayAssert that(Path dataDir) {
    return that(dataDir, "device=cpu");
  }

  /** Plans and rows of connections with these properties, e.g. {@code device=gpu;transfer=zero-copy}. */
  static SpillwayAssert that(Path dataDir, String properties) {
    return new SpillwayAssert(SpillwayDriver.CONNECT_STRING_PREFIX + "dataDir=" + dataDir + ";" + properties);
  }

  /** The same, over connections with one more property (a later one of the same key wins). */
  SpillwayAssert with(String key, String value) {
    return new SpillwayAssert(url + ";" + key + "=" + value);
  }

  Query query(String sql) {
    return new Query(sql);
  }

  /** One query under test. */
  final class Query {
    private final String sql;

    Query(String sql) {
      this.sql = sql;
    }

    /** Asserts the rows, formatted "col=value; col=value" one per line, in order. */
    Query returns(String expected) throws SQLException {
      assertEquals(expected, run(sql), sql);
      return this;
    }

    /** Asserts the plan's node names, indented as in EXPLAIN, without their attributes. */
    Query planShape(String expected) throws SQLException {
      String plan = run("explain plan for " + sql).replaceFirst("^PLAN=", "");
      StringBuilder shape = new StringBuilder();
      for (String line : plan.split("\n")) {
        if (!line.isBlank()) {
          shape.append(line.replaceFirst("\\(.*$", "")).append('\n');
        }
      }
      assertEquals(expected, shape.toString(), () -> "plan of " + sql + ":\n" + plan);
      return this;
    }

    /** The EXPLAIN PLAN text. */
    String plan() throws SQLException {
      return run("explain plan for " + sql).replaceFirst("^PLAN=", "");
    }

    /** Asserts that EXPLAIN PLAN does not contain the text. */
    Query explainLacks(String unexpected) throws SQLException {
      String plan = run("explain plan for " + sql);
      assertTrue(!plan.contains(unexpected), () -> "plan of " + sql + " has\n" + unexpected + "\nplan:\n" + plan);
      return this;
    }

    /** Asserts that EXPLAIN PLAN contains the text. */
    Query explainContains(String expected) throws SQLException {
      String plan = run("explain plan for " + sql);
      assertTrue(plan.contains(expected), () -> "plan of " + sql + " lacks\n" + expected + "\nplan:\n" + plan);
      return this;
    }

    /** Asserts that EXPLAIN PLAN contains the text exactly {@code times} times. */
    Query explainContains(String expected, int times) throws SQLException {
      String plan = run("explain plan for " + sql);
      int found = plan.split(java.util.regex.Pattern.quote(expected), -1).length - 1;
      assertEquals(times, found, () -> "plan of " + sql + " has " + found + " times\n" + expected + "\nplan:\n" + plan);
      return this;
    }
  }

  /** The rows of a query over a connection to {@code url}, each as its values joined by " | ". */
  static List<String> rows(String url, String sql) throws SQLException {
    List<String> out = new ArrayList<>();
    try (Connection c = DriverManager.getConnection(url);
         Statement s = c.createStatement();
         ResultSet rs = s.executeQuery(sql)) {
      int columns = rs.getMetaData().getColumnCount();
      while (rs.next()) {
        StringBuilder row = new StringBuilder();
        for (int i = 1; i <= columns; i++) {
          row.append(i > 1 ? " | " : "").append(rs.getString(i));
        }
        out.add(row.toString());
      }
    }
    return out;
  }

  private String run(String sql) throws SQLException {
    try (Connection c = DriverManager.getConnection(url);
         Statement s = c.createStatement();
         ResultSet rs = s.executeQuery(sql)) {
      ResultSetMetaData md = rs.getMetaData();
      StringBuilder sb = new StringBuilder();
      while (rs.next()) {
        for (int i = 1; i <= md.getColumnCount(); i++) {
          sb.append(i > 1 ? "; " : "").append(md.getColumnLabel(i)).append('=').append(rs.getString(i));
        }
        sb.append('\n');
      }
      return sb.toString();
    }
  }
}
