package org.spillway.gpu.bench;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import org.spillway.gpu.device.CudaDevice;
import org.spillway.gpu.device.GpuMemoryException;

/**
 * Runs the cases of {@link JoinBenchmarkPlan}: generates each workload (once while consecutive cases share it),
 * times every join on it (a warm-up, then {@code runs} runs, each checked against the known answer; the median
 * is reported) and derives each row's ratios to the best Spillway CPU join, to DuckDB and, for Triton, to NOPA
 * with its table in GPU memory and to NOPA with a spilled (host or hybrid) table on the same case. A join that
 * fails is reported as FAILED and the run goes on; one that would not fit host memory, or would start after the
 * deadline, is skipped with the reason. Without a device (CPU-only runs) only the CPU joins and DuckDB run.
 */
final class JoinBenchmarkCases implements AutoCloseable {
  private static final int COLUMNS = JoinBenchmark.COLUMNS.size();

  private final CudaDevice device;
  private final JoinBenchmarkArgs args;
  private final JoinBenchmarkPlan.Limits limits;
  /** Milliseconds since the JVM started after which nothing new starts. */
  private final long deadline;
  private final List<String> failures = new ArrayList<>();
  private final String duckUnavailable = JoinBenchmarkDuckDb.unavailableReason();
  private double linkGbPerSecond = Double.NaN;
  private JoinBenchmarkData.Workload cached;
  private JoinBenchmarkDuckDb duck;

  JoinBenchmarkCases(CudaDevice device, JoinBenchmarkArgs args, JoinBenchmarkPlan.Limits limits) {
    this.device = device;
    this.args = args;
    this.limits = limits;
    this.deadline = args.deadlineSeconds() > 0 ? args.deadlineSeconds() * 1000 : Long.MAX_VALUE;
  }

  private boolean pastDeadline() {
    return ManagementFactory.getRuntimeMXBean().getUptime() > deadline;
  }

  void setLink(double gbPerSecond) {
    this.linkGbPerSecond = gbPerSecond;
  }

  /** Why the {@code duckdb} series is left out (its driver is missing), or null. */
  String duckUnavailable() {
    return duckUnavailable;
  }

  /** The joins that failed so far, one line each. */
  List<String> failures() {
    return failures;
  }

  /** Runs {@code experiment}'s cases into {@code report}, calling {@code checkpoint} after each case. */
  void run(String experiment, BenchReport report, Runnable checkpoint) {
    for (JoinBenchmarkPlan.Case c : JoinBenchmarkPlan.cases(experiment, args)) {
      if (pastDeadline()) {
        System.out.println("  " + c.name() + ": skipped, past the deadline of " + args.deadlineSeconds() + " s");
        continue;
      }
      measure(report, c);
      checkpoint.run();
    }
  }

  private void measure(BenchReport report, JoinBenchmarkPlan.Case c) {
    List<String> joins = c.joins().stream().filter(j -> device != null || !JoinBenchmarkJoins.isGpu(j))
        .filter(j -> duckUnavailable == null || !j.equals(JoinBenchmarkJoins.DUCKDB)).toList();
    var spec = c.spec();
    if (joins.isEmpty()) {
      return;
    }
    if (spec.planBytes() > limits.hostBytes()) {
      System.out.printf(Locale.ROOT, "  %s: skipped, its data alone (%.1f GiB) exceeds the host memory limit%n",
          c.name(), spec.planBytes() / (double) (1L << 30));
      return;
    }
    JoinBenchmarkData.Workload w = workload(spec);
    List<Object[]> rows = new ArrayList<>();
    for (String join : joins) {
      String skip = w.matches > args.maxPairs() ? "skipped: " + w.matches + " output rows > --max-pairs"
          : pastDeadline() ? "skipped: past the deadline"
          : JoinBenchmarkPlan.doesNotFit(join, spec, c.budget(), limits);
      if (skip != null) {
        System.out.printf(Locale.ROOT, "  %-36s %-14s %s%n", c.name(), join, skip);
        rows.add(note(c, join, skip));
      } else {
        Object[] row = measureJoin(c, join, w);
        if (row != null) {
          rows.add(row);
        }
      }
    }
    w.releaseCpuCopies();
    derive(rows);
    rows.forEach(report::row);
  }

  /** One join's row: median of the timed runs, or a row saying why there is none; null if it cannot run here. */
  private Object[] measureJoin(JoinBenchmarkPlan.Case c, String join, JoinBenchmarkData.Workload w) {
    JoinBenchmarkJoins.Timed[] runs = new JoinBenchmarkJoins.Timed[args.runs()];
    try (JoinBenchmarkJoins.Runner runner = open(c, join)) {
      for (int r = -1; r < runs.length; r++) {
        JoinBenchmarkJoins.Timed t = runner.run(w);
        w.check(t, join);
        if (r >= 0) {
          runs[r] = t;
        }
      }
    } catch (UnsupportedOperationException e) {
      System.out.printf(Locale.ROOT, "  %-36s %-14s not run: %s%n", c.name(), join, e.getMessage());
      return null;
    } catch (GpuMemoryException | IllegalArgumentException e) {
      if (e instanceof IllegalArgumentException && !join.contains("@gpu")) {
        return failed(c, join, e);
      }
      System.out.printf(Locale.ROOT, "  %-36s %-14s %s%n", c.name(), join, e.getMessage());
      return note(c, join, "does not fit the GPU budget");
    } catch (RuntimeException e) {
      return failed(c, join, e);
    }
    Arrays.sort(runs, Comparator.comparingLong(JoinBenchmarkJoins.Timed::nanos));
    JoinBenchmarkJoins.Timed median = runs[runs.length / 2];
    var spec = c.spec();
    double seconds = median.nanos() / 1e9;
    var stats = median.stats();
    double rate = spec.tuples() / seconds / 1e9;
    double ofLink = stats != null ? spec.planBytes() / (linkGbPerSecond * 1e9) / seconds : Double.NaN;
    String phases = stats != null ? JoinBenchmark.phases(stats) : median.note();
    System.out.printf(Locale.ROOT, "  %-36s %-14s %-34s %9.2f ms %7.3f G tuples/s%s %s%n", c.name(), join,
        median.algorithm(), seconds * 1e3, rate, stats != null ? String.format(Locale.ROOT, " %.2f of link bound;",
        ofLink) : "", phases);
    Object[] row = note(c, join, median.algorithm());
    set(row, "median ms", seconds * 1e3);
    set(row, "min ms", runs[0].nanos() / 1e6);
    set(row, "max ms", runs[runs.length - 1].nanos() / 1e6);
    set(row, "G tuples/s", rate);
    set(row, "GB to GPU", stats != null ? stats.bytesToDevice() / 1e9 : Double.NaN);
    set(row, "GB to host", stats != null ? stats.bytesToHost() / 1e9 : Double.NaN);
    set(row, "of link bound", ofLink);
    set(row, "phases", phases);
    return row;
  }

  private JoinBenchmarkJoins.Runner open(JoinBenchmarkPlan.Case c, String join) {
    if (join.equals(JoinBenchmarkJoins.DUCKDB)) {
      long heap = Runtime.getRuntime().totalMemory();
      return duck().runner(Math.max(1L << 30, limits.hostBytes() - c.spec().planBytes() - heap - (2L << 30)));
    }
    var settings = new JoinBenchmarkJoins.Settings(device, c.method(), null, c.budget(), "");
    return JoinBenchmarkJoins.open(join, settings, args.cpuThreads());
  }

  private JoinBenchmarkDuckDb duck() {
    if (duck == null) {
      try {
        duck = JoinBenchmarkDuckDb.open(args.cpuThreads());
        System.out.println("DuckDB " + duck.version() + " on " + args.cpuThreads() + " threads");
      } catch (Exception e) {
        throw new IllegalStateException("DuckDB did not open: " + e.getMessage(), e);
      }
    }
    return duck;
  }

  private Object[] failed(JoinBenchmarkPlan.Case c, String join, RuntimeException e) {
    String line = c.experiment() + " / " + c.name() + " / " + join + ": " + e;
    failures.add(line);
    System.out.println("  FAILED " + line);
    e.printStackTrace(System.out);
    return note(c, join, "FAILED: " + e.getMessage());
  }

  /** A row with the case and {@code variant} and no measurements. */
  private static Object[] note(JoinBenchmarkPlan.Case c, String join, String variant) {
    Object[] row = new Object[COLUMNS];
    Arrays.fill(row, Double.NaN);
    set(row, "experiment", c.experiment());
    set(row, "case", c.name());
    set(row, "join", join);
    set(row, "variant", variant);
    set(row, "x", c.x());
    set(row, "R rows", c.spec().buildRows());
    set(row, "S rows", c.spec().probeRows());
    set(row, "phases", "");
    return row;
  }

  /**
   * Ratios of each row's G tuples/s within the case: to the fastest Spillway CPU join, to DuckDB and, for Triton,
   * to the fastest NOPA whose table sat wholly in GPU memory and to the fastest whose table spilled.
   */
  static void derive(List<Object[]> rows) {
    double cpu = best(rows, r -> JoinBenchmarkJoins.isCpu(text(r, "join")));
    double duckdb = best(rows, r -> text(r, "join").equals(JoinBenchmarkJoins.DUCKDB));
    double inBudget = best(rows, r -> isNopa(r) && text(r, "variant").endsWith("/gpu"));
    double spilled = best(rows, r -> isNopa(r) && (text(r, "variant").contains("/host")
        || text(r, "variant").contains("/hybrid")));
    for (Object[] r : rows) {
      double rate = (Double) get(r, "G tuples/s");
      set(r, "x best CPU", rate / cpu);
      set(r, "x DuckDB", rate / duckdb);
      boolean triton = JoinBenchmarkJoins.base(text(r, "join")).equals("triton");
      set(r, "x in-budget NOPA", triton ? rate / inBudget : Double.NaN);
      set(r, "x spilled NOPA", triton ? rate / spilled : Double.NaN);
    }
  }

  private static boolean isNopa(Object[] row) {
    return JoinBenchmarkJoins.base(text(row, "join")).equals("nopa");
  }

  private static double best(List<Object[]> rows, java.util.function.Predicate<Object[]> which) {
    double best = Double.NaN;
    for (Object[] r : rows) {
      double rate = (Double) get(r, "G tuples/s");
      if (which.test(r) && !Double.isNaN(rate)) {
        best = Double.isNaN(best) ? rate : Math.max(best, rate);
      }
    }
    return best;
  }

  private static String text(Object[] row, String column) {
    return String.valueOf(get(row, column));
  }

  private static Object get(Object[] row, String column) {
    return row[JoinBenchmark.COLUMNS.indexOf(column)];
  }

  private static void set(Object[] row, String column, Object value) {
    row[JoinBenchmark.COLUMNS.indexOf(column)] = value;
  }

  private JoinBenchmarkData.Workload workload(JoinBenchmarkData.Spec spec) {
    if (cached != null && cached.spec.equals(spec)) {
      return cached;
    }
    closeWorkload();
    long t0 = System.nanoTime();
    cached = JoinBenchmarkData.generate(device, spec);
    System.out.printf(Locale.ROOT, "generated %s: |R| %d, |S| %d, %s, %d matches in %.1f s%n", spec.name(),
        spec.buildRows(), spec.probeRows(), spec.type(), cached.matches, (System.nanoTime() - t0) / 1e9);
    return cached;
  }

  private void closeWorkload() {
    if (cached != null) {
      cached.close();
      cached = null;
    }
  }

  @Override
  public void close() {
    closeWorkload();
    if (duck != null) {
      try {
        duck.close();
      } catch (Exception e) {
        System.out.println("DuckDB did not close cleanly: " + e);
      }
      duck = null;
    }
  }
}
