package org.spillway.gpu.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;
import org.spillway.gpu.device.CudaDevice;
import org.spillway.gpu.device.DeviceAllocator;
import org.spillway.gpu.device.GpuRuntime;
import org.spillway.gpu.device.HostBuffer;
import org.spillway.gpu.join.GpuJoinStats;
import org.spillway.gpu.transfer.ColumnType;
import org.spillway.gpu.transfer.HostColumn;
import org.spillway.gpu.transfer.TransferMethod;

/**
 * GPU joins against the CPU joins and DuckDB on the workloads of Pump Up the Volume (P1, Lutz et al., SIGMOD 2020)
 * and Triton Join (P2, SIGMOD 2022), scaled down for the GPU machine's host: P1's A, B and C (Table 2), the
 * transfer methods (Fig. 12), build:probe 1:1 to 1:32 (P1 Fig. 18; P2 Fig. 21 under the emulated GPU budget),
 * Zipf skew of S (P1 Fig. 19) and of both sides (Sioulas et al. Fig. 17), join selectivity (P1 Fig. 20),
 * build-side scaling past the budget by table placement (P1 Fig. 17) and equal-size 16-byte relations growing to
 * 4x the budget, Triton against NOPA and the CPU (P2 Fig. 13). See {@link JoinBenchmarkPlan} for the cases and
 * {@link JoinBenchmarkCases} for how each is measured and checked. It reports G tuples/s = (|R| + |S|) / time,
 * the bytes moved each way, the share of the link bound (the bytes the plan must move, both relations' keys and
 * payloads, at the pinned-copy bandwidth this run measures) and ratios to the best CPU join, to DuckDB and, for
 * Triton, to in-budget and spilled NOPA, as a table, CSV and PNG (bars; lines for sweeps) per experiment.
 * {@code JoinBenchmark --redraw join.csv DIR} redraws the per-experiment CSVs and charts from a run's join.csv.
 */
public final class JoinBenchmark {
  static final List<String> COLUMNS = List.of("experiment", "case", "join", "variant", "x", "R rows", "S rows",
      "median ms", "min ms", "max ms", "G tuples/s", "GB to GPU", "GB to host", "of link bound", "x best CPU",
      "x DuckDB", "x in-budget NOPA", "x spilled NOPA", "phases");
  static final List<String> EXPERIMENTS = List.of("workloads", "methods", "ratios", "ratios-budget", "zipf",
      "zipf-both", "selectivity", "scaling", "triton-scaling");
  /** The x axis of each sweep's line chart: label, and whether it is logarithmic. */
  private static final Map<String, String> SWEEPS = Map.of("ratios", "log:probe rows per build row",
      "ratios-budget", "log:probe rows per build row", "zipf", "Zipf exponent of S",
      "zipf-both", "Zipf exponent of R and S", "selectivity", "join selectivity",
      "scaling", "log:NOPA table / GPU budget", "triton-scaling", "log:working set (|R|+|S|) x 16 B / GPU budget");
  private static final String USAGE = "usage: JoinBenchmark [--out DIR] [--quick] [--cpu-only] [--shift N] [--runs N]"
      + " [--experiments " + String.join(",", EXPERIMENTS) + "] [--joins nopa,triton,duckdb,cpu-nopa,cpu-radix]"
      + " [--method zero-copy] [--methods LIST] [--budget 4g] [--sizes 25,26,..] [--ratios 1,2,..] [--zipf 0,0.5,..]"
      + " [--zipf-both 0,0.5,..] [--selectivity 0,0.5,..] [--cpu-threads N] [--host-memory 100g] [--deadline S]"
      + " [--max-pairs N] | --redraw join.csv DIR";

  private final CudaDevice device;
  private final JoinBenchmarkArgs args;
  private final JoinBenchmarkCases cases;

  private JoinBenchmark(CudaDevice device, JoinBenchmarkArgs args) {
    this.device = device;
    this.args = args;
    this.cases = new JoinBenchmarkCases(device, args, JoinBenchmarkPlan.Limits.of(args));
  }

  public static void main(String[] argv) throws Exception {
    if (argv.length == 3 && argv[0].equals("--redraw")) {  // no GPU: charts from a join.csv (device JREs lack fonts)
      redraw(Path.of(argv[1]), Path.of(argv[2]));
      return;
    }
    JoinBenchmarkArgs args;
    try {
      args = JoinBenchmarkArgs.parse(argv);
    } catch (IllegalArgumentException e) {
      System.err.println(e.getMessage());
      System.err.println(USAGE);
      System.exit(2);
      return;
    }
    List<String> failures = run(args);
    if (!failures.isEmpty()) {
      System.out.println("\n" + failures.size() + " join(s) FAILED:");
      failures.forEach(f -> System.out.println("  " + f));
      System.exit(1);
    }
  }

  /** Runs the benchmark {@code args} describe; returns the joins that failed. */
  static List<String> run(JoinBenchmarkArgs args) throws Exception {
    CudaDevice device = args.cpuOnly() ? null : GpuRuntime.device().orElseThrow(() -> new IllegalStateException(
        "JoinBenchmark needs a CUDA device (or --cpu-only): " + GpuRuntime.unavailableReason()));
    return new JoinBenchmark(device, args).run();
  }

  private List<String> run() throws Exception {
    JoinBenchmarkPlan.Limits limits = JoinBenchmarkPlan.Limits.of(args);
    System.out.printf(Locale.ROOT, "JoinBenchmark on %s, %d cores (%d used by CPU joins and DuckDB), host memory"
        + " limit %.1f GiB, Java heap %.1f GiB; workloads = the papers' / 2^%d; %d runs per case after a warm-up;"
        + " method %s; joins %s; emulated GPU budget %d MiB%n", device == null ? "no GPU (--cpu-only)" : device
        + ", GPU memory budget " + (device.allocator().budget() >> 20) + " MiB",
        Runtime.getRuntime().availableProcessors(), args.cpuThreads(), limits.hostBytes() / (double) (1L << 30),
        limits.heapBytes() / (double) (1L << 30), args.shift(), args.runs(), args.method().label(), args.joins(),
        args.budget() >> 20);
    if (args.joins().contains(JoinBenchmarkJoins.DUCKDB) && cases.duckUnavailable() != null) {
      System.out.println("duckdb series skipped: " + cases.duckUnavailable());
    }
    if (device != null) {
      cases.setLink(measureLink());
    }
    Files.createDirectories(args.out());
    BenchReport all = new BenchReport("all", COLUMNS);
    all.writeCsv(args.out().resolve("join.csv"));
    try {
      for (String experiment : args.experiments()) {
        long t0 = System.nanoTime();
        BenchReport report = new BenchReport(String.format(Locale.ROOT, "Joins: %s (papers' sizes / 2^%d, budget"
            + " %d MiB, %s), G tuples/s, median of %d", experiment, args.shift(), args.budget() >> 20,
            device == null ? "CPU only" : device.name(), args.runs()), COLUMNS);
        cases.run(experiment, report, () -> checkpoint(all, report, experiment));
        if (report.rowCount() == 0) {
          continue;
        }
        System.out.println();
        System.out.print(report.toTable());
        System.out.printf(Locale.ROOT, "(%s took %.0f s)%n%n", experiment, (System.nanoTime() - t0) / 1e9);
        write(report, experiment, args.out());
        copyRows(report, all);
        all.writeCsv(args.out().resolve("join.csv"));
      }
    } finally {
      cases.close();
    }
    return cases.failures();
  }

  /** After every case: join.csv with what finished so far, so that a timeout keeps it. */
  private void checkpoint(BenchReport all, BenchReport current, String experiment) {
    try {
      BenchReport sofar = new BenchReport("all", COLUMNS);
      copyRows(all, sofar);
      copyRows(current, sofar);
      sofar.writeCsv(args.out().resolve("join.csv"));
      current.writeCsv(args.out().resolve(experiment + ".csv"));
    } catch (Exception e) {
      System.out.println("checkpoint not written: " + e);
    }
  }

  /** Appends {@code from}'s rows to {@code to}; columns {@code from} lacks (an older CSV) stay empty. */
  private static void copyRows(BenchReport from, BenchReport to) {
    for (int i = 0; i < from.rowCount(); i++) {
      Object[] row = new Object[to.columns().size()];
      for (int c = 0; c < row.length; c++) {
        String column = to.columns().get(c);
        Object v = from.columns().contains(column) ? from.cell(i, column) : "";
        row[c] = column.endsWith(" rows") && v instanceof Double d ? (Object) d.longValue() : v;  // read from a CSV
      }
      to.row(row);
    }
  }

  /** Median GB/s of plain cuMemcpyHtoDAsync from a 1 GiB pinned buffer: the link bound's bandwidth. */
  private double measureLink() {
    long bytes = 1L << 30;
    try (HostBuffer buffer = device.pinnedAllocator().allocate(bytes)) {
      RandomFill.fill(buffer.address(), ColumnType.INT64, bytes / 8, 42);
      double[] gbs = MethodTimer.rawPinnedCopy(device,
          List.of(new HostColumn("link", ColumnType.INT64, buffer.address(), bytes / 8)), 5);
      double median = MethodTimer.median(gbs);
      System.out.printf(Locale.ROOT, "pinned copy host->GPU: %.2f GB/s median of %s%n", median, Arrays.toString(gbs));
      return median;
    }
  }

  /** Splits a join.csv (of this or an older layout) by experiment into {@code out}: CSV and PNGs each. */
  static void redraw(Path joinCsv, Path out) throws Exception {
    BenchReport all = BenchReport.readCsv("join", joinCsv);
    Files.createDirectories(out);
    for (String experiment : EXPERIMENTS) {
      BenchReport one = new BenchReport("one", all.columns());
      for (int i = 0; i < all.rowCount(); i++) {
        if (all.cell(i, "experiment").equals(experiment)) {
          Object[] row = new Object[all.columns().size()];
          for (int c = 0; c < row.length; c++) {
            row[c] = all.cell(i, all.columns().get(c));
          }
          one.row(row);
        }
      }
      if (one.rowCount() > 0) {
        BenchReport report = new BenchReport("Joins: " + experiment + ", G tuples/s (median)", COLUMNS);
        copyRows(one, report);
        write(report, experiment, out);
      }
    }
  }

  private static void write(BenchReport report, String experiment, Path dir) throws Exception {
    report.writeCsv(dir.resolve(experiment + ".csv"));
    BenchReport chart = new BenchReport(report.title(), List.of("label", "G tuples/s"));
    for (int i = 0; i < report.rowCount(); i++) {
      chart.row(report.cell(i, "case") + " " + report.cell(i, "join"), report.cell(i, "G tuples/s"));
    }
    try {
      chart.writeBarChart(dir.resolve(experiment + ".png"), "label", "G tuples/s", "G tuples/s", 0, "");
      String axis = SWEEPS.get(experiment);
      if (axis != null) {
        BenchLineChart.write(report, dir.resolve(experiment + "-lines.png"), "join", "x", "G tuples/s",
            axis.startsWith("log:"), axis.replace("log:", ""));
      }
    } catch (Throwable t) {  // a JRE without fonts: the CSV is kept and --redraw draws the charts elsewhere
      System.out.println("PNG not written: " + t);
    }
  }

  /** The phases of a GPU run as text, e.g. {@code key-stats 3.1; build 10.2; probe 40.0 ms}. */
  static String phases(GpuJoinStats stats) {
    if (stats == null) {
      return "";
    }
    return stats.phases().stream().map(p -> String.format(Locale.ROOT, "%s %.1f", p.name(), p.nanos() / 1e6))
        .collect(Collectors.joining("; ")) + " ms";
  }

  /** Parses "1g", "512m" etc. */
  static long bytes(String text) {
    return DeviceAllocator.parseBytes("--budget", text);
  }

  static List<Double> doubles(String text) {
    List<Double> out = new ArrayList<>();
    for (String s : text.split(",")) {
      out.add(Double.parseDouble(s.trim()));
    }
    return out;
  }

  static List<TransferMethod> methods(String text) {
    return Arrays.stream(text.split(",")).map(String::trim).map(TransferMethod::parse).toList();
  }
}
