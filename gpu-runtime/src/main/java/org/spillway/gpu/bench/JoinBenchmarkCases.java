package org.spillway.gpu.bench;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import org.spillway.gpu.cuda.CudaDevice;
import org.spillway.gpu.transfer.ColumnType;
import org.spillway.gpu.transfer.TransferMethod;

/**
 * The experiments of {@link JoinBenchmark}: which workloads each runs with which joins, and the measurement of one
 * case (warm-up, timed runs checked against the answer, median). Workloads are sized as Pump Up the Volume's
 * divided by 2^shift: A = 2^27 x 2^31 and B = 2^18 x 2^31 (8-byte keys and payloads), C = 2^30 x 2^30 (4/4 B).
 */
final class JoinBenchmarkCases implements AutoCloseable {
  private static final ColumnType I64 = ColumnType.INT64;

  private final CudaDevice device;
  private final JoinBenchmarkArgs args;
  private double linkGbPerSecond;
  private JoinBenchmarkData.Workload cached;

  JoinBenchmarkCases(CudaDevice device, JoinBenchmarkArgs args) {
    this.device = device;
    this.args = args;
  }

  void setLink(double gbPerSecond) {
    this.linkGbPerSecond = gbPerSecond;
  }

  BenchReport run(String experiment) {
    BenchReport report = new BenchReport(String.format(Locale.ROOT, "Joins: %s (Pump Up the Volume / 2^%d, %s),"
        + " G tuples/s, median of %d", experiment, args.shift(), device.name(), args.runs()), JoinBenchmark.COLUMNS);
    List<String> joins = args.joins();
    TransferMethod method = args.method();
    switch (experiment) {
      case "workloads" -> {
        measure(report, experiment, "A dense 8/8B", 0, spec("A dense", 27, 31, I64, false, 0, 1), joins, method, 0);
        measure(report, experiment, "A sparse 8/8B", 0, spec("A sparse", 27, 31, I64, true, 0, 1), joins, method, 0);
        measure(report, experiment, "B dense 8/8B", 0, spec("B dense", 18, 31, I64, false, 0, 1), joins, method, 0);
        measure(report, experiment, "C dense 4/4B", 0, spec("C dense", 30, 30, ColumnType.INT32, false, 0, 1), joins,
            method, 0);
      }
      case "methods" -> {
        for (TransferMethod m : args.methods()) {
          measure(report, experiment, "A, " + m.label(), 0, spec("A dense", 27, 31, I64, false, 0, 1),
              gpuJoins(), m, 0);
        }
      }
      case "ratios" -> {
        for (double ratio : args.ratios()) {
          long r = rows(27);
          var spec = new JoinBenchmarkData.Spec("1:" + (int) ratio, r, (long) (r * ratio), I64, false, 0, 1, 10);
          measure(report, experiment, "1:" + (int) ratio + " dense 8/8B", ratio, spec, joins, method, 0);
        }
      }
      case "zipf" -> {
        List<String> withHost = new ArrayList<>(joins);
        if (joins.contains("nopa")) {
          withHost.add(joins.indexOf("nopa") + 1, "nopa@host");  // P1 Fig. 19: skew helps a table in host memory
        }
        for (double z : args.zipf()) {
          measure(report, experiment, "A, Zipf " + z, z, spec("A dense", 27, 31, I64, false, z, 1), withHost,
              method, 0);
        }
      }
      case "selectivity" -> {
        for (double s : args.selectivity()) {
          measure(report, experiment, "A, selectivity " + s, s, spec("A dense", 27, 31, I64, false, 0, s), joins,
              method, 0);
        }
      }
      case "scaling" -> scaling(report, experiment, joins, method);
      default -> throw new IllegalArgumentException("unknown experiment " + experiment);
    }
    return report;
  }

  /**
   * P1 Fig. 17: |R| = |S| (dense 8/8 B, array table of 16 B per build row) grows from a quarter of the emulated
   * GPU budget to twice it; each GPU join with its table in GPU memory (while it fits), in host memory, and
   * placed automatically (GPU, then hybrid), beside the CPU joins.
   */
  private void scaling(BenchReport report, String experiment, List<String> joins, TransferMethod method) {
    int fullLog = 63 - Long.numberOfLeadingZeros(args.budget() / 16);
    List<String> placed = new ArrayList<>();
    for (String j : joins) {
      if (j.equals("nopa")) {
        placed.addAll(List.of("nopa@gpu", "nopa@host", "nopa"));
      } else {
        placed.add(j);
      }
    }
    for (int log = fullLog - 2; log <= fullLog + 1; log++) {
      long n = 1L << log;
      double tableShare = 16.0 * n / args.budget();
      var spec = new JoinBenchmarkData.Spec("scaling 2^" + log, n, n, I64, false, 0, 1, 20 + log);
      measure(report, experiment, String.format(Locale.ROOT, "R=S=2^%d, %.2fx", log, tableShare),
          tableShare, spec, placed, method, args.budget());
    }
  }

  private List<String> gpuJoins() {
    return args.joins().stream().filter(j -> !JoinBenchmarkJoins.isCpu(j)).toList();
  }

  private JoinBenchmarkData.Spec spec(String name, int buildLog, int probeLog, ColumnType type, boolean sparse,
      double zipf, double selectivity) {
    return new JoinBenchmarkData.Spec(name, rows(buildLog), rows(probeLog), type, sparse, zipf, selectivity,
        buildLog * 31L + probeLog);
  }

  private long rows(int paperLog2) {
    return 1L << (paperLog2 - args.shift());
  }

  private JoinBenchmarkData.Workload workload(JoinBenchmarkData.Spec spec) {
    if (cached != null && cached.spec.equals(spec)) {
      return cached;
    }
    close();
    long t0 = System.nanoTime();
    cached = JoinBenchmarkData.generate(device, spec);
    System.out.printf(Locale.ROOT, "generated %s: |R| %d, |S| %d, %s, %d matches in %.1f s%n", spec.name(),
        spec.buildRows(), spec.probeRows(), spec.type(), cached.matches, (System.nanoTime() - t0) / 1e9);
    return cached;
  }

  /** Times each join on the case: a warm-up, then {@code runs} runs, each checked; adds one row per join. */
  private void measure(BenchReport report, String experiment, String name, double x, JoinBenchmarkData.Spec spec,
      List<String> joins, TransferMethod method, long budget) {
    JoinBenchmarkData.Workload w = workload(spec);
    long tuples = spec.buildRows() + spec.probeRows();
    List<Object[]> rows = new ArrayList<>();
    double bestCpu = Double.NaN;
    for (String join : joins) {
      JoinBenchmarkJoins.Timed[] runs = new JoinBenchmarkJoins.Timed[args.runs()];
      var settings = new JoinBenchmarkJoins.Settings(device, method, null, budget);
      try (JoinBenchmarkJoins.Runner runner = JoinBenchmarkJoins.open(join, settings, args.cpuThreads())) {
        for (int r = -1; r < runs.length; r++) {
          JoinBenchmarkJoins.Timed t = runner.run(w);
          w.check(t.result(), join);
          if (r >= 0) {
            runs[r] = t;
          }
        }
      } catch (IllegalArgumentException e) {
        if (!join.endsWith("@gpu")) {
          throw e;
        }
        System.out.println("  " + name + " " + join + ": " + e.getMessage());
        rows.add(new Object[] {experiment, name, join, "does not fit the GPU budget", x, spec.buildRows(),
            spec.probeRows(), Double.NaN, Double.NaN, Double.NaN, Double.NaN, Double.NaN, Double.NaN, Double.NaN, ""});
        continue;
      }
      Arrays.sort(runs, Comparator.comparingLong(JoinBenchmarkJoins.Timed::nanos));
      JoinBenchmarkJoins.Timed median = runs[runs.length / 2];
      double seconds = median.nanos() / 1e9;
      boolean gpu = median.stats() != null;
      double ofLink = gpu ? spec.planBytes() / (linkGbPerSecond * 1e9) / seconds : Double.NaN;
      double gbMoved = gpu ? median.stats().bytesToDevice() / 1e9 : Double.NaN;
      double rate = tuples / seconds / 1e9;
      if (!gpu) {
        bestCpu = Double.isNaN(bestCpu) ? rate : Math.max(bestCpu, rate);
      }
      rows.add(new Object[] {experiment, name, join, median.result().algorithm(), x, spec.buildRows(),
          spec.probeRows(), seconds * 1e3, runs[0].nanos() / 1e6, runs[runs.length - 1].nanos() / 1e6, rate, gbMoved,
          ofLink, gpu ? Double.NaN : 1.0, JoinBenchmark.phases(median.stats())});
      System.out.printf(Locale.ROOT, "  %-36s %-10s %-34s %9.2f ms %7.3f G tuples/s%s%n", name, join,
          median.result().algorithm(), seconds * 1e3, tuples / seconds / 1e9,
          gpu ? String.format(Locale.ROOT, " %.2f of link bound; %s", ofLink, JoinBenchmark.phases(median.stats())) : "");
    }
    int ratio = JoinBenchmark.COLUMNS.indexOf("x best CPU");
    int rate = JoinBenchmark.COLUMNS.indexOf("G tuples/s");
    for (Object[] row : rows) {  // every join's speed over the fastest CPU join's on this case
      if (row[rate] instanceof Double r && !r.isNaN()) {
        row[ratio] = r / bestCpu;
      }
      report.row(row);
    }
  }

  @Override
  public void close() {
    if (cached != null) {
      cached.close();
      cached = null;
    }
  }
}
