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
 * backend, the GPU with each join algorithm, the cost model's choice) over one catalog, generated on first use,
 * and on DuckDB (the configuration named {@code duckdb}: all eight tables loaded in the same process from the same
 * generator): {@code warm} untimed rounds, then {@code runs} timed ones (executeQuery to the last row over a warm
 * connection; the plan cache serves the plan), median, min and max. A round runs each configuration once, in an
 * order rotated every round ({@link ConfigRuns} says why); every configuration must return the first
 * one's rows (numbers within 0.01), or the row says it did not. Spillway is reached through {@link DriverManager}
 * only. At the end, each configuration's geometric mean of its time over the first configuration's.
 *
 * <p>Usage: {@code TpchQueryTimer --data-dir DIR [--sf 1] [--queries 3,5,10|all] [--warm 2] [--runs 5]
 * [--slow-ms N] [--analyze] [--configs "duckdb=|duckdb-compressed=storage=compressed|cpu=device=cpu|auto=device=auto"]
 * [--out DIR]}; a configuration whose first timed run of a query takes over {@code --slow-ms} is timed by that run
 * alone; with {@code --out}, {@code tpch-timer-sf<SF>.csv} (with each median's ratio to the first configuration's)
 * and a bar chart of it (skipped on a JRE without fonts; BenchReport's main draws it from the CSV); with
 * {@code --analyze} also each Spillway configuration's EXPLAIN ANALYZE after its timed runs, in
 * {@code analyze-Q<N>-<config>.txt}.
 */
public final class TpchQueryTimer {
  private TpchQueryTimer() {}

  public static void main(String[] argv) throws Exception {
    BenchArgs args = BenchArgs.parse(argv, "TpchQueryTimer");
    double sf = args.number("--sf", 1);
    Path dir = args.path("--data-dir", Path.of(System.getProperty("java.io.tmpdir"),
        "spillway-tpch-sf" + Options.sfText(sf)));
    List<String> queries = args.list("--queries", "3,5,10");
    if (queries.equals(List.of("all"))) {
      queries = java.util.stream.IntStream.rangeClosed(1, 22).mapToObj(String::valueOf).toList();
    }
    int warm = (int) args.number("--warm", 2);
    int runs = (int) args.number("--runs", 5);
    double slowMillis = args.number("--slow-ms", Double.POSITIVE_INFINITY);
    Map<String, String> configs = configs(args.text("--configs",
        "cpu=device=cpu|gpu-nopa=device=gpu;joinAlgorithm=nopa|gpu-triton=device=gpu;joinAlgorithm=triton"
            + "|auto=device=auto"));
    Path out = args.path("--out", null);
    boolean analyze = args.flag("--analyze");
    args.finish();
    if (analyze && out == null) {
      throw new IllegalArgumentException("TpchQueryTimer: --analyze writes its plans under --out, which is missing");
    }
    if (runs < 1 || warm < 0) {
      throw new IllegalArgumentException("TpchQueryTimer: --runs must be >= 1 and --warm >= 0");
    }
    if (configs.keySet().stream().anyMatch(c -> !isDuckDb(c))
        && !Files.isDirectory(dir.resolve("lineitem"))) {
      System.out.printf("generating TPC-H SF %s into %s%n", Options.sfText(sf), dir);
      long start = System.nanoTime();
      TpchGenerator.generate(dir, sf, 0, new ConsoleProgressBar(System.out));
      System.out.printf("generated in %.1f s%n", (System.nanoTime() - start) / 1e9);
    }
    int cores = Runtime.getRuntime().availableProcessors();
    try (DuckDbDatabases duckDb = new DuckDbDatabases(sf, cores, configs)) {
      System.out.printf("TPC-H at %s, queries %s, %d warm + %d timed runs (one timed run above %.0f ms), %d cores%n", dir,
          queries, warm, runs, slowMillis, cores);
      System.out.println("JVM heap flags: " + heapFlags());
      System.out.printf("%-6s %-14s %10s %10s %10s %10s %10s %8s %8s  %s%n", "query", "config", "median ms", "min ms",
          "max ms", "cpu ms", "prepare ms", "rows", "x first", "result");
      BenchReport report = new BenchReport("TPC-H SF " + Options.sfText(sf) + ", median ms of " + runs + " runs",
          List.of("query", "config", "label", "median ms", "min ms", "max ms", "median cpu ms", "median prepare ms",
              "runs", "rows", "result", "time / first config"));
      Map<String, List<Double>> ratios = new LinkedHashMap<>();
      for (String q : queries) {
        int number = Integer.parseInt(q.trim());
        String sql = TpchQueries.sql(number, sf);
        List<ConfigRuns> sessions = open("Q" + q.trim(), configs, dir, duckDb);
        try {
          for (int round = -warm; round < runs; round++) {
            for (int i : roundOrder(round + warm, sessions.size())) {
              if (!sessions.get(i).done()) {
                sessions.get(i).run(sql, round >= 0, slowMillis);
              }
            }
          }
          ResultRows reference = null;
          double firstMedian = Double.NaN;
          for (ConfigRuns config : sessions) {
            if (config.failure() != null) {
              System.out.printf("Q%-5s %-14s failed: %s%n", q, config.name, config.failure());
              report.row("Q" + q.trim(), config.name, "Q" + q.trim() + " " + config.name, Double.NaN,
                  Double.NaN, Double.NaN, Double.NaN, Double.NaN, 0, 0, "FAILED", Double.NaN);
              continue;
            }
            if (analyze && !isDuckDb(config.name)) {
              writeAnalyzed(config, sql, out.resolve("analyze-Q" + q.trim() + "-" + config.name + ".txt"));
            }
            String difference = reference == null ? null
                : reference.differenceFrom(config.rows(), TpchQueries.orderByColumns(number));
            reference = reference == null ? config.rows() : reference;
            String result = difference == null ? "ok" : "DIFFERENT: " + difference;
            firstMedian = Double.isNaN(firstMedian) ? config.median() : firstMedian;
            double ratio = config.median() / firstMedian;
            ratios.computeIfAbsent(config.name, k -> new ArrayList<>()).add(ratio);
            System.out.printf(Locale.ROOT, "Q%-5s %-14s %10.1f %10.1f %10.1f %10.1f %10.1f %8d %8.2f  %s%n", q,
                config.name, config.median(), config.min(), config.max(), config.cpuMedian(), config.prepareMedian(),
                config.rows().rows().size(), ratio, result);
            report.row("Q" + q.trim(), config.name, "Q" + q.trim() + " " + config.name, config.median(),
                config.min(), config.max(), config.cpuMedian(), config.prepareMedian(), config.runs(),
                config.rows().rows().size(), result, ratio);
          }
        } finally {
          for (ConfigRuns config : sessions) {
            config.close();
          }
        }
      }
      System.out.println();
      System.out.println("geometric mean of each configuration's time over the first configuration's "
          + "(queries where both ran):");
      for (Map.Entry<String, List<Double>> r : ratios.entrySet()) {
        System.out.printf(Locale.ROOT, "  %-14s %8.3f  over %d queries, %d slower than 3x%n", r.getKey(),
            geometricMean(r.getValue()), r.getValue().size(), r.getValue().stream().filter(x -> x > 3).count());
      }
      if (out != null) {
        write(report, out, Options.sfText(sf));
      }
    }
  }

  /**
   * The configuration name that runs the queries on DuckDB (all eight tables, loaded from the same generator), as are
   * names that start with {@code duckdb-}; a DuckDB configuration's value {@code storage=compressed} compresses its
   * tables as DuckDB stores them on disk, an empty one queries them as loaded (uncompressed in memory).
   */
  static final String DUCKDB = "duckdb";
  /** A DuckDB configuration's value that compresses its tables ({@link DuckDbTpchTables#compress}). */
  static final String DUCKDB_COMPRESSED = "storage=compressed";

  static boolean isDuckDb(String config) {
    return config.equals(DUCKDB) || config.startsWith(DUCKDB + "-");
  }

  /** The DuckDB databases the configurations ask for: one as loaded, one compressed, or none; loaded once each. */
  private static final class DuckDbDatabases implements AutoCloseable {
    private final Map<String, DuckDbTpchTables> byStorage = new LinkedHashMap<>();

    DuckDbDatabases(double sf, int threads, Map<String, String> configs) throws Exception {
      try {
        for (Map.Entry<String, String> config : configs.entrySet()) {
          String storage = config.getValue().strip();
          if (isDuckDb(config.getKey()) && !byStorage.containsKey(storage)) {
            if (!storage.isEmpty() && !storage.equals(DUCKDB_COMPRESSED)) {
              throw new IllegalArgumentException("DuckDB configuration " + config.getKey() + ": expected nothing or "
                  + DUCKDB_COMPRESSED + ", not " + storage);
            }
            byStorage.put(storage, load(sf, threads, storage.equals(DUCKDB_COMPRESSED)));
          }
        }
      } catch (Exception e) {
        close();
        throw e;
      }
    }

    private static DuckDbTpchTables load(double sf, int threads, boolean compressed) throws Exception {
      System.out.printf("loading TPC-H SF %s into DuckDB%s%n", Options.sfText(sf), compressed ? ", compressed" : "");
      long start = System.nanoTime();
      DuckDbTpchTables tables = DuckDbTpchTables.load(sf, threads, System.out);
      try {
        if (compressed) {
          tables.compress();
        }
      } catch (SQLException e) {
        tables.close();
        throw e;
      }
      System.out.printf("loaded into DuckDB in %.1f s%n", (System.nanoTime() - start) / 1e9);
      return tables;
    }

    /** A connection to the database of {@code storage} that closing does not close the database with. */
    Connection session(String storage) throws SQLException {
      Connection session = byStorage.get(storage.strip()).connection().unwrap(org.duckdb.DuckDBConnection.class)
          .duplicate();
      try (Statement s = session.createStatement()) {
        s.execute("use " + DuckDbTpchTables.DATABASE);
      }
      return session;
    }

    @Override public void close() throws SQLException {
      for (DuckDbTpchTables tables : byStorage.values()) {
        tables.close();
      }
    }
  }

  static double geometricMean(List<Double> values) {
    return Math.exp(values.stream().mapToDouble(Math::log).average().orElse(Double.NaN));
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

  /**
   * Sets the system properties a configuration names among its properties as {@code -Dname=value} (switches that are
   * no connection property, such as {@code -Dspillway.coprocess=false}) while its connection plans and runs; returns
   * their values before (null: unset), for {@link #restoreSystemProperties}.
   */
  static Map<String, String> setSystemProperties(String properties) {
    Map<String, String> before = new LinkedHashMap<>();
    for (String item : properties.split(";")) {
      String p = item.trim();
      int eq = p.indexOf('=');
      if (p.startsWith("-D") && eq > 2) {
        String name = p.substring(2, eq);
        before.put(name, System.getProperty(name));
        System.setProperty(name, p.substring(eq + 1));
      }
    }
    return before;
  }

  static void restoreSystemProperties(Map<String, String> before) {
    before.forEach((name, value) -> {
      if (value == null) {
        System.clearProperty(name);
      } else {
        System.setProperty(name, value);
      }
    });
  }

  /** A configuration's properties without its {@code -D} items: those of its JDBC connections. */
  static String connectionProperties(String properties) {
    StringBuilder out = new StringBuilder();
    for (String item : properties.split(";")) {
      if (!item.trim().startsWith("-D") && !item.isBlank()) {
        out.append(out.length() > 0 ? ";" : "").append(item.trim());
      }
    }
    return out.toString();
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

  /**
   * EXPLAIN ANALYZE of {@code sql} on a warm connection: where each operator ran and how long it took (or why it
   * could not run, in the file).
   */
  private static void writeAnalyzed(ConfigRuns config, String sql, Path file) throws IOException {
    StringBuilder text = new StringBuilder();
    Map<String, String> before = setSystemProperties(config.properties());
    try (Statement s = config.connection().createStatement(); ResultSet r = s.executeQuery("EXPLAIN ANALYZE " + sql)) {
      while (r.next()) {
        for (int c = 1; c <= r.getMetaData().getColumnCount(); c++) {
          text.append(c > 1 ? " | " : "").append(r.getString(c));
        }
        text.append('\n');
      }
    } catch (SQLException | RuntimeException e) {
      text.append("EXPLAIN ANALYZE failed: ").append(e.getMessage()).append('\n');
    } finally {
      restoreSystemProperties(before);
    }
    Files.createDirectories(file.getParent());
    Files.writeString(file, text);
  }

  /**
   * A connection of every configuration for one query, each opened with its configuration's system properties set; a
   * configuration whose connection fails to open is there with that failure and takes no runs.
   */
  private static List<ConfigRuns> open(String query, Map<String, String> configs, Path dir, DuckDbDatabases duckDb) {
    List<ConfigRuns> sessions = new ArrayList<>();
    for (Map.Entry<String, String> config : configs.entrySet()) {
      Map<String, String> before = setSystemProperties(config.getValue());
      try {
        Connection connection = isDuckDb(config.getKey()) ? duckDb.session(config.getValue())
            : DriverManager.getConnection("jdbc:spillway:dataDir=" + dir + ";" + connectionProperties(
                config.getValue()));
        sessions.add(new ConfigRuns(query, config.getKey(), config.getValue(), connection));
      } catch (SQLException | RuntimeException e) {
        sessions.add(ConfigRuns.failed(query, config.getKey(), e));
      } finally {
        restoreSystemProperties(before);
      }
    }
    return sessions;
  }

  /**
   * The order in which round {@code round} (warm-up rounds first, from 0) runs {@code n} configurations: rotated by
   * one every round, so that over {@code n} rounds each configuration runs once in every position (first after
   * another query's runs, last before the next round's).
   */
  static int[] roundOrder(int round, int n) {
    int[] order = new int[n];
    for (int i = 0; i < n; i++) {
      order[i] = (round + i) % n;
    }
    return order;
  }

  /**
   * The JVM's heap options, printed with the results: whether the heap was fixed and pre-touched changes Spillway's
   * times (a heap that grows during the runs pays page faults inside them), so a result says how it was measured.
   */
  static String heapFlags() {
    List<String> flags = java.lang.management.ManagementFactory.getRuntimeMXBean().getInputArguments().stream()
        .filter(a -> a.startsWith("-Xms") || a.startsWith("-Xmx") || a.contains("PreTouch") || a.contains("GC"))
        .toList();
    return flags.isEmpty() ? "(JVM defaults)" : String.join(" ", flags);
  }
}
