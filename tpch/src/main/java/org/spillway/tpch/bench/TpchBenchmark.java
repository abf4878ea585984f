package org.spillway.tpch.bench;

import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.spillway.gpu.device.GpuRuntime;
import org.spillway.tpch.ConsoleProgressBar;
import org.spillway.tpch.TpchGenerator;
import org.spillway.tpch.TpchQueries;

/**
 * TPC-H Q1 and Q6 on Spillway's GPU backend (each transfer method and filter variant, with and without the GPU
 * column cache), its CPU backend on all cores, the cost model's own choice (device=auto), and DuckDB on the same
 * machine and rows. Spillway is reached through JDBC only ({@code jdbc:spillway:}, the driver on the class path),
 * DuckDB through its JDBC driver. Data: lineitem's Q1/Q6 columns generated at the scale factor (or reused).
 * Reports per configuration the median statement time of several runs, the pipeline's own time and link bytes
 * from Spillway's trace, GB/s over the link, the ratio to the link bound (bytes the plan must move / raw pinned
 * copy bandwidth), speedups against DuckDB and the CPU backend, the cost model's prediction, and whether the
 * result equals DuckDB's (and every Spillway configuration's the others'). See docs/bench/tpch/README.md.
 */
public final class TpchBenchmark {
  /** The lineitem columns Q1 and Q6 read, as a {@link TpchGenerator#parseSelection} text. */
  public static final String LINEITEM_Q1_Q6 =
      "lineitem:l_quantity,l_extendedprice,l_discount,l_tax,l_returnflag,l_linestatus,l_shipdate";

  private final Options options;
  private final PrintStream out = System.out;
  private final List<Measurement> measurements = new ArrayList<>();
  private PipelineTrace trace;

  private TpchBenchmark(Options options) {
    this.options = options;
  }

  public static void main(String[] argv) throws Exception {
    Options options = Options.parse(argv);
    new TpchBenchmark(options).run();
  }

  private void run() throws Exception {
    Path dir = options.dataDir();
    out.printf(Locale.ROOT, "TPC-H SF %s, queries %s, engines %s, %d cores, %.0f GiB RAM, %s, Java %s%n",
        options.sfText(), options.queries(), options.engines(), Runtime.getRuntime().availableProcessors(),
        totalMemoryGib(), GpuRuntime.device().map(Object::toString).orElse("no GPU: "
            + GpuRuntime.unavailableReason()), System.getProperty("java.version"));
    trace = PipelineTrace.install();
    PinnedBandwidth link = null;
    if (options.merge() != null) {
      ResultsFile.Contents merged = ResultsFile.read(options.merge(), options.sf());
      measurements.addAll(merged.measurements());
      link = merged.link();
      out.println(merged.measurements().size() + " measurements merged from " + options.merge());
    }
    if (options.runsSpillway()) {
      ensureData(dir);
      link = PinnedBandwidth.measure();
      out.printf(Locale.ROOT, "link bound bandwidth: %.2f GB/s (%s)%n", link.gbPerSecond(), link.source());
    }
    if (options.engines().contains("duckdb")) {
      runDuckDb();
    }
    if (options.runsSpillway()) {
      runSpillway(dir);
    }
    Files.createDirectories(options.out());
    Path results = options.out().resolve("results-sf" + options.sfText() + ".tsv");
    ResultsFile.write(results, options.sf(), link, measurements);
    out.println("wrote " + results + " (another run joins it with --merge)");
    if (link == null) {
      out.println("no link bound bandwidth (a DuckDB-only run): merge these results into a Spillway run's report");
      return;
    }
    Reports reports = new Reports(measurements, link, options);
    reports.print(out);
    reports.write(options.out(), out);
  }

  private void ensureData(Path dir) {
    if (Files.isDirectory(dir.resolve("lineitem"))) {
      out.println("reusing the data in " + dir);
      return;
    }
    long start = System.nanoTime();
    out.println("generating lineitem's Q1/Q6 columns into " + dir);
    TpchGenerator.generate(dir, options.sf(), 0, new ConsoleProgressBar(out), TpchGenerator.parseSelection(
        LINEITEM_Q1_Q6));
    out.printf(Locale.ROOT, "generated in %.1f s%n", (System.nanoTime() - start) / 1e9);
  }

  private void runDuckDb() throws Exception {
    out.println("DuckDB: loading lineitem (same generator and parts)");
    try (DuckDbTpch duck = DuckDbTpch.load(options.sf(), Runtime.getRuntime().availableProcessors(), out)) {
      for (int q : options.queries()) {
        measure(Config.DUCKDB, q, duck.connection(), null);
      }
    }
  }

  private void runSpillway(Path dir) throws SQLException {
    String base = "jdbc:spillway:dataDir=" + dir + ";";
    long start = System.nanoTime();
    try (Connection c = DriverManager.getConnection(base + "device=cpu");
         Statement s = c.createStatement();
         ResultSet rs = s.executeQuery("select sum(l_quantity) from lineitem")) {
      rs.next();
    }
    out.printf(Locale.ROOT, "Spillway: lineitem loaded into host memory in %.1f s%n",
        (System.nanoTime() - start) / 1e9);
    for (int q : options.queries()) {
      for (Config config : options.spillwayConfigs()) {
        try (Connection c = DriverManager.getConnection(base + config.properties(options.gpuCache()))) {
          measure(config, q, c, explain(c, TpchQueries.sql(q, options.sf())));
        } catch (SQLException e) {
          measurements.add(Measurement.failed(config, q, e.getMessage()));
          out.printf("  Q%d %-40s failed: %s%n", q, config.label(), e.getMessage());
        }
      }
    }
  }

  private static ExplainedPlan explain(Connection c, String sql) throws SQLException {
    try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("explain plan for " + sql)) {
      rs.next();
      return ExplainedPlan.parse(rs.getString(1));
    }
  }

  /** Warm-up runs, then timed runs of one query on one configuration. */
  private void measure(Config config, int q, Connection c, ExplainedPlan plan) throws SQLException {
    String sql = TpchQueries.sql(q, options.sf());
    int reps = config.engine().equals("cpu") ? options.cpuReps() : options.reps();
    ResultRows rows = null;
    for (int i = 0; i < options.warmup(); i++) {
      rows = run(c, sql);
    }
    double[] seconds = new double[reps];
    List<PipelineTrace.Run> runs = new ArrayList<>();
    for (int i = 0; i < reps; i++) {
      trace.reset();
      long start = System.nanoTime();
      rows = run(c, sql);
      seconds[i] = (System.nanoTime() - start) / 1e9;
      if (trace.last() != null) {
        runs.add(trace.last());
      }
    }
    Measurement m = Measurement.of(config, q, seconds, runs, plan, rows);
    measurements.add(m);
    out.printf(Locale.ROOT, "  Q%d %-40s %8.4f s (median of %d)%s%n", q, config.label(), m.median(), reps,
        plan == null ? "" : ", planned as " + plan.ranAs());
  }

  private static ResultRows run(Connection c, String sql) throws SQLException {
    try (Statement s = c.createStatement()) {
      return ResultRows.read(s.executeQuery(sql));
    }
  }

  private static double totalMemoryGib() {
    if (ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os) {
      return os.getTotalMemorySize() / (double) (1L << 30);
    }
    return Double.NaN;
  }
}
