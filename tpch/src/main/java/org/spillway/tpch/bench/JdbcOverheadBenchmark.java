package org.spillway.tpch.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Arrays;
import java.util.Locale;
import org.spillway.tpch.ConsoleProgressBar;
import org.spillway.tpch.TpchGenerator;
import org.spillway.tpch.TpchQueries;

/**
 * Planning + JDBC overhead of Spillway: prepare, execute and fetch of a trivial query and of TPC-H Q6 over a
 * tiny lineitem, through {@link Statement} and {@link PreparedStatement}, warm, median and 90th percentile of
 * many runs, and through a Statement whose SQL text is new each run, which no plan cache can serve. The driver
 * is reached through {@link DriverManager} only (it must be on the class path).
 * Usage: {@code JdbcOverheadBenchmark [--data-dir DIR] [--sf 0.01] [--runs 300] [--warmup 100] [--url-extra ;k=v]}.
 */
public final class JdbcOverheadBenchmark {
  private static final String TRIVIAL = "select 1";

  private JdbcOverheadBenchmark() {}

  /** One way of running a query; returns the rows fetched. */
  @FunctionalInterface
  private interface Step {
    long run() throws SQLException;
  }

  public static void main(String[] argv) throws Exception {
    BenchArgs args = BenchArgs.parse(argv, "JdbcOverheadBenchmark");
    Path dir = args.path("--data-dir", Path.of(System.getProperty("java.io.tmpdir"), "spillway-overhead-tpch"));
    double sf = args.number("--sf", 0.01);
    int runs = (int) args.number("--runs", 300);
    int warmup = (int) args.number("--warmup", 100);
    String extra = args.text("--url-extra", "");
    args.finish();
    if (!Files.isDirectory(dir.resolve("lineitem"))) {
      TpchGenerator.generate(dir, sf, 0, new ConsoleProgressBar(System.out),
          TpchGenerator.parseSelection(TpchBenchmark.LINEITEM_Q1_Q6));
    }
    String url = "jdbc:spillway:dataDir=" + dir + extra;
    String q6 = TpchQueries.sql(6);
    System.out.printf("%s, %d warm-up and %d timed runs each, %d cores%n", url, warmup, runs,
        Runtime.getRuntime().availableProcessors());
    System.out.printf("%-44s %10s %10s %10s%n", "what", "median ms", "p90 ms", "min ms");
    try (Connection connection = DriverManager.getConnection(url)) {
      for (String[] query : new String[][] {{"trivial (" + TRIVIAL + ")", TRIVIAL}, {"TPC-H Q6", q6}}) {
        String sql = query[1];
        report(query[0] + ", Statement", warmup, runs, () -> viaStatement(connection, sql));
        report(query[0] + ", PreparedStatement", warmup, runs, () -> viaPrepared(connection, sql));
        try (PreparedStatement prepared = connection.prepareStatement(sql)) {
          report(query[0] + ", execute prepared", warmup, runs, () -> fetch(prepared.executeQuery()));
        }
        // A new text each run (a numbered comment) misses any plan cache: first-time planning.
        long[] n = {0};
        report(query[0] + ", Statement, new SQL text", warmup, runs,
            () -> viaStatement(connection, sql + "\n-- run " + n[0]++));
      }
    }
  }

  private static long viaStatement(Connection connection, String sql) throws SQLException {
    try (Statement statement = connection.createStatement()) {
      return fetch(statement.executeQuery(sql));
    }
  }

  private static long viaPrepared(Connection connection, String sql) throws SQLException {
    try (PreparedStatement statement = connection.prepareStatement(sql)) {
      return fetch(statement.executeQuery());
    }
  }

  private static long fetch(ResultSet rs) throws SQLException {
    try (rs) {
      long rows = 0;
      int columns = rs.getMetaData().getColumnCount();
      while (rs.next()) {
        for (int c = 1; c <= columns; c++) {
          rs.getObject(c);
        }
        rows++;
      }
      return rows;
    }
  }

  private static void report(String what, int warmup, int runs, Step step) throws SQLException {
    for (int i = 0; i < warmup; i++) {
      step.run();
    }
    double[] millis = new double[runs];
    for (int i = 0; i < runs; i++) {
      long start = System.nanoTime();
      if (step.run() < 1) {
        throw new IllegalStateException(what + " returned no row");
      }
      millis[i] = (System.nanoTime() - start) / 1e6;
    }
    Arrays.sort(millis);
    System.out.printf(Locale.ROOT, "%-44s %10.3f %10.3f %10.3f%n", what, millis[runs / 2],
        millis[(int) Math.min(runs - 1, Math.ceil(runs * 0.9) - 1)], millis[0]);
  }
}
