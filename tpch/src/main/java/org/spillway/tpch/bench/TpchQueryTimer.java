package org.spillway.tpch.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.spillway.gpu.bench.BenchReport;
import org.spillway.tpch.ConsoleProgressBar;
import org.spillway.tpch.TpchGenerator;
import org.spillway.tpch.TpchQueries;

/**
 * Times any of the 22 TPC-H queries through Spillway connections of several configurations (e.g. the CPU
 * backend, the GPU with each join algorithm, the cost model's choice) over one catalog, generated on first use:
 * {@code warm} untimed runs, then {@code runs} timed ones (executeQuery to the last row over a warm connection;
 * the plan cache serves the plan), median, min and max; every configuration must return the first one's rows,
 * or the row says it did not. Spillway is reached through {@link DriverManager} only.
 *
 * <p>Usage: {@code TpchQueryTimer --data-dir DIR [--sf 1] [--queries 3,5,10] [--warm 2] [--runs 5]
 * [--configs "cpu=device=cpu|gpu-nopa=device=gpu;joinAlgorithm=nopa|auto=device=auto"] [--out DIR]}; with
 * {@code --out}, {@code tpch-timer-sf<SF>.csv} (with each median's ratio to the first configuration's) and a bar
 * chart of it (skipped on a JRE without fonts; BenchReport's main draws it from the CSV).
 */
public final class TpchQueryTimer {
  private TpchQueryTimer() {}

  /** Times and rows of one query under one configuration. */
  private record Timing(double[] millis, List<String> rows) {
    double median() {
      double[] sorted = millis.clone();
      Arrays.sort(sorted);
      return sorted[sorted.length / 2];
    }
  }

  public static void main(String[] argv) throws Exception {
    BenchArgs args = BenchArgs.parse(argv, "TpchQueryTimer");
    double sf = args.number("--sf", 1);
    Path dir = args.path("--data-dir", Path.of(System.getProperty("java.io.tmpdir"),
        "spillway-tpch-sf" + Options.sfText(sf)));
    List<String> queries = args.list("--queries", "3,5,10");
    int warm = (int) args.number("--warm", 2);
    int runs = (int) args.number("--runs", 5);
    Map<String, String> configs = configs(args.text("--configs",
        "cpu=device=cpu|gpu-nopa=device=gpu;joinAlgorithm=nopa|gpu-triton=device=gpu;joinAlgorithm=triton"
            + "|auto=device=auto"));
    Path out = args.path("--out", null);
    args.finish();
    if (runs < 1 || warm < 0) {
      throw new IllegalArgumentException("TpchQueryTimer: --runs must be >= 1 and --warm >= 0");
    }
    if (!Files.isDirectory(dir.resolve("lineitem"))) {
      System.out.printf("generating TPC-H SF %s into %s%n", Options.sfText(sf), dir);
      TpchGenerator.generate(dir, sf, 0, new ConsoleProgressBar(System.out));
    }
    System.out.printf("TPC-H at %s, queries %s, %d warm + %d timed runs, %d cores%n", dir, queries, warm, runs,
        Runtime.getRuntime().availableProcessors());
    System.out.printf("%-6s %-14s %10s %10s %10s %8s  %s%n", "query", "config", "median ms", "min ms", "max ms",
        "rows", "result");
    BenchReport report = new BenchReport("TPC-H SF " + Options.sfText(sf) + ", median ms of " + runs + " runs",
        List.of("query", "config", "label", "median ms", "min ms", "max ms", "rows", "result", "x first config"));
    for (String q : queries) {
      String sql = TpchQueries.sql(Integer.parseInt(q.trim()));
      List<String> reference = null;
      double firstMedian = Double.NaN;
      for (Map.Entry<String, String> config : configs.entrySet()) {
        String url = "jdbc:spillway:dataDir=" + dir + ";" + config.getValue();
        String result;
        Timing timing;
        try {
          timing = time(url, sql, warm, runs);
          reference = reference == null ? timing.rows() : reference;
          result = timing.rows().equals(reference) ? "ok" : "DIFFERENT ROWS";
        } catch (SQLException | RuntimeException e) {
          System.out.printf("Q%-5s %-14s failed: %s%n", q, config.getKey(), e.getMessage().lines().findFirst()
              .orElse(""));
          continue;
        }
        double[] sorted = timing.millis().clone();
        Arrays.sort(sorted);
        System.out.printf(Locale.ROOT, "Q%-5s %-14s %10.1f %10.1f %10.1f %8d  %s%n", q, config.getKey(),
            timing.median(), sorted[0], sorted[sorted.length - 1], timing.rows().size(), result);
        firstMedian = Double.isNaN(firstMedian) ? timing.median() : firstMedian;
        report.row("Q" + q.trim(), config.getKey(), "Q" + q.trim() + " " + config.getKey(), timing.median(),
            sorted[0], sorted[sorted.length - 1], timing.rows().size(), result, firstMedian / timing.median());
      }
    }
    if (out != null) {
      write(report, out, Options.sfText(sf));
    }
  }

  private static void write(BenchReport report, Path dir, String sf) throws IOException {
    Files.createDirectories(dir);
    Path csv = dir.resolve("tpch-timer-sf" + sf + ".csv");
    report.writeCsv(csv);
    System.out.println("wrote " + csv);
    try {
      report.writeBarChart(dir.resolve("tpch-timer-sf" + sf + ".png"), "label", "median ms", "ms", 0, "");
      System.out.println("wrote " + dir.resolve("tpch-timer-sf" + sf + ".png"));
    } catch (Throwable t) {  // a JRE without fonts
      System.out.println("PNG not written: " + t);
    }
  }

  /** "name=properties|name=properties": the properties of each configuration's connections, in order. */
  static Map<String, String> configs(String text) {
    Map<String, String> out = new LinkedHashMap<>();
    for (String part : text.split("\\|")) {
      int eq = part.indexOf('=');
      if (eq <= 0) {
        throw new IllegalArgumentException("TpchQueryTimer: a configuration is name=properties, not '" + part + "'");
      }
      out.put(part.substring(0, eq).trim(), part.substring(eq + 1).trim());
    }
    return out;
  }

  private static Timing time(String url, String sql, int warm, int runs) throws SQLException {
    double[] millis = new double[runs];
    List<String> rows = List.of();
    try (Connection connection = DriverManager.getConnection(url)) {
      for (int i = -warm; i < runs; i++) {
        long start = System.nanoTime();
        rows = fetch(connection, sql);
        if (i >= 0) {
          millis[i] = (System.nanoTime() - start) / 1e6;
        }
      }
    }
    return new Timing(millis, rows);
  }

  private static List<String> fetch(Connection connection, String sql) throws SQLException {
    List<String> rows = new ArrayList<>();
    try (Statement s = connection.createStatement(); ResultSet rs = s.executeQuery(sql)) {
      int columns = rs.getMetaData().getColumnCount();
      while (rs.next()) {
        StringBuilder row = new StringBuilder();
        for (int c = 1; c <= columns; c++) {
          row.append(c > 1 ? "|" : "").append(rs.getString(c));
        }
        rows.add(row.toString());
      }
    }
    return rows;
  }
}
