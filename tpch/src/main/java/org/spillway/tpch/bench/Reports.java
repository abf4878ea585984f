package org.spillway.tpch.bench;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import org.spillway.gpu.bench.BenchReport;
import org.spillway.tpch.TpchQueries;

/**
 * Turns TpchBenchmark's measurements into its table (stdout), a CSV of all rows and a bar chart per query, and
 * checks the results: every Spillway configuration must return exactly the rows of the first, and DuckDB's rows
 * up to the rounding of averages.
 */
final class Reports {
  /** Times are in milliseconds, so that two decimals resolve SF 1 runs too. */
  private static final List<String> COLUMNS = List.of("query", "config", "ran as", "ms", "min ms", "max ms",
      "pipeline ms", "moved GB", "link GB/s", "plan GB/s", "of link bound", "x DuckDB", "x CPU", "predicted ms",
      "result");

  private final List<Measurement> measurements;
  private final PinnedBandwidth link;
  private final Options options;
  private final BenchReport all;

  Reports(List<Measurement> measurements, PinnedBandwidth link, Options options) {
    this.measurements = List.copyOf(measurements);
    this.link = link;
    this.options = options;
    this.all = table("all");
  }

  private BenchReport table(String which) {
    String title = String.format(Locale.ROOT, "TPC-H %s at SF %s: milliseconds (median of %d), link bound at %.2f GB/s",
        which, options.sfText(), options.reps(), link.gbPerSecond());
    BenchReport report = new BenchReport(title, COLUMNS);
    for (Measurement m : measurements) {
      if (which.equals("all") || which.equals("Q" + m.query())) {
        report.row(row(m));
      }
    }
    return report;
  }

  private Object[] row(Measurement m) {
    long planBytes = planBytes(m.query());
    double s = m.median();
    Measurement duck = find(m.query(), Config.DUCKDB);
    Measurement cpu = find(m.query(), Config.CPU);
    double linkGbs = m.movedGb() / m.streamSeconds();
    double boundSeconds = planBytes / (link.gbPerSecond() * 1e9);
    return new Object[] {"Q" + m.query(), m.config().label(), ranAs(m), s * 1e3, m.min() * 1e3, m.max() * 1e3,
        m.pipelineSeconds() * 1e3, m.movedGb(), linkGbs, planBytes / s / 1e9, boundSeconds / s,
        duck == null ? Double.NaN : duck.median() / s, cpu == null ? Double.NaN : cpu.median() / s,
        predictedSeconds(m) * 1e3, result(m)};
  }

  private String ranAs(Measurement m) {
    if (m.config().equals(Config.DUCKDB)) {
      return "duckdb";
    }
    if (m.plan() == null) {
      return "";
    }
    String planned = m.plan().ranAs();
    String because = m.plan().cpuBecause();
    if (because != null && !m.config().engine().equals("cpu")) {
      planned += " (" + (because.length() > 60 ? because.substring(0, 57) + "..." : because) + ")";
    }
    return m.fallback() != null ? planned + ", ran on the cpu: " + m.fallback() : planned;
  }

  /** The cost model's prediction for what ran; the CPU backend's from another plan of the query if needed. */
  private double predictedSeconds(Measurement m) {
    if (m.plan() == null) {
      return Double.NaN;
    }
    if (m.plan().device().equals("gpu")) {
      return m.plan().predictedGpuMillis() / 1e3;
    }
    double cpu = m.plan().predictedCpuMillis();
    for (Measurement other : measurements) {
      if (Double.isNaN(cpu) && other.query() == m.query() && other.plan() != null) {
        cpu = other.plan().predictedCpuMillis();
      }
    }
    return cpu / 1e3;
  }

  /** "ok", or how the rows differ from DuckDB's or from the first Spillway configuration's, or the error. */
  private String result(Measurement m) {
    if (m.error() != null) {
      return "error: " + m.error();
    }
    Measurement duck = find(m.query(), Config.DUCKDB);
    if (duck != null && duck != m && duck.rows() != null) {
      String diff = duck.rows().differenceFrom(m.rows(), TpchQueries.orderByColumns(m.query()));
      if (diff != null) {
        return "differs from duckdb: " + diff;
      }
    }
    for (Measurement first : measurements) {
      if (m.plan() != null && first.query() == m.query() && first.plan() != null && first.rows() != null
          && first != m) {
        if (!Objects.equals(first.rows(), m.rows())) {
          return "differs from " + first.config().label() + ": " + first.rows().differenceFrom(m.rows());
        }
        break;
      }
    }
    return "ok";
  }

  private Measurement find(int query, Config config) {
    return measurements.stream().filter(m -> m.query() == query && m.config().equals(config) && m.error() == null)
        .findFirst().orElse(null);
  }

  /** Bytes the plan must move over the link: EXPLAIN's linkBytes of the scan, the same in every Spillway plan. */
  private long planBytes(int query) {
    return measurements.stream().filter(m -> m.query() == query && m.plan() != null && m.plan().planBytes() > 0)
        .mapToLong(m -> m.plan().planBytes()).findFirst().orElse(0);
  }

  void print(PrintStream out) {
    out.println();
    out.print(all.toTable());
    out.println();
    for (int q : options.queries()) {
      double bound = planBytes(q) / (link.gbPerSecond() * 1e9);
      out.printf(Locale.ROOT, "Q%d: plan moves %.3f GB; link bound %.4f s (%s)%n", q, planBytes(q) / 1e9, bound,
          link.source());
    }
    best(6, false).ifPresent(m -> out.printf(Locale.ROOT,
        "target: uncached Q6 >= 0.9 of the link bound: best GPU run %s reaches %.2f%n", m.config().label(),
        planBytes(6) / (link.gbPerSecond() * 1e9) / m.median()));
    Measurement duck = find(6, Config.DUCKDB);
    best(6, true).filter(m -> duck != null).ifPresent(m -> out.printf(Locale.ROOT,
        "target: cached Q6 >= 10x DuckDB: best cached GPU run %s is %.2fx DuckDB%n", m.config().label(),
        duck.median() / m.median()));
  }

  /** The fastest GPU configuration of a query, cached or not, that ran without error. */
  private java.util.Optional<Measurement> best(int query, boolean cached) {
    return measurements.stream().filter(m -> m.query() == query && m.config().engine().equals("gpu")
            && m.config().cached() == cached && m.error() == null)
        .min((a, b) -> Double.compare(a.median(), b.median()));
  }

  /**
   * Writes the CSV of all rows, and per query a CSV and a bar chart of seconds (the chart is skipped with a note
   * on a JRE without fonts; BenchReport's main redraws it from the query's CSV).
   */
  void write(Path dir, PrintStream out) throws IOException {
    Files.createDirectories(dir);
    String stem = "tpch-sf" + options.sfText();
    all.writeCsv(dir.resolve(stem + ".csv"));
    out.println("wrote " + dir.resolve(stem + ".csv"));
    for (int q : options.queries()) {
      Path png = dir.resolve(stem + "-q" + q + ".png");
      double bound = planBytes(q) / (link.gbPerSecond() * 1e9);
      BenchReport query = table("Q" + q);
      query.writeCsv(dir.resolve(stem + "-q" + q + ".csv"));
      try {
        query.writeBarChart(png, "config", "ms", "ms", bound * 1e3,
            String.format(Locale.ROOT, "link bound %.1f ms", bound * 1e3));
        out.println("wrote " + png);
      } catch (Throwable t) {  // a JRE without fonts: BenchReport's main redraws the chart from the CSV
        out.println("PNG not written: " + t);
      }
    }
  }
}
