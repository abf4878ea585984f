package org.spillway.gpu.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;
import org.spillway.gpu.GpuRuntime;
import org.spillway.gpu.cuda.CudaDevice;
import org.spillway.gpu.join.GpuJoinStats;
import org.spillway.gpu.memory.DeviceAllocator;
import org.spillway.gpu.memory.HostBuffer;
import org.spillway.gpu.transfer.ColumnType;
import org.spillway.gpu.transfer.HostColumn;
import org.spillway.gpu.transfer.TransferMethod;

/**
 * GPU joins against the CPU joins on Pump Up the Volume's workloads (Lutz et al., SIGMOD 2020), scaled down by
 * 2^shift for the GPU machine's host: A, B and C (Table 2), the transfer methods (Fig. 12), build:probe 1:1 to 1:32
 * (Fig. 18), Zipf skew of S (Fig. 19), join selectivity (Fig. 20) and build-side scaling past an emulated GPU budget
 * by table placement (Fig. 17). Data is generated in parallel into pinned memory and every run's result is checked
 * against the known answer; each case is one warm-up and the median of {@code --runs} timed runs (GPU joins: CUDA
 * events, allocation excluded; CPU joins: wall clock). It reports G tuples/s = (|R| + |S|) / time, the bytes moved
 * to the GPU, the share of the link bound (the bytes the plan must move, both relations' keys and payloads, at the
 * pinned-copy bandwidth this run measures) and the ratio to the best CPU join, as a table, CSV and PNG per experiment.
 * {@code JoinBenchmark --redraw join.csv DIR} redraws the per-experiment CSVs and charts from a run's join.csv.
 */
public final class JoinBenchmark {
  static final List<String> COLUMNS = List.of("experiment", "case", "join", "variant", "x", "R rows", "S rows",
      "median ms", "min ms", "max ms", "G tuples/s", "GB to GPU", "of link bound", "x best CPU", "phases");
  static final List<String> EXPERIMENTS = List.of("workloads", "methods", "ratios", "zipf", "selectivity", "scaling");
  private static final String USAGE = "usage: JoinBenchmark [--out DIR] [--quick] [--shift N] [--runs N]"
      + " [--experiments " + String.join(",", EXPERIMENTS) + "] [--joins nopa,cpu-nopa,cpu-radix] [--method zero-copy]"
      + " [--methods LIST] [--budget 1g] [--ratios 1,2,..] [--zipf 0,0.5,..] [--selectivity 0,0.5,..]"
      + " [--cpu-threads N]";

  private final CudaDevice device;
  private final JoinBenchmarkArgs args;
  private final JoinBenchmarkCases cases;

  private JoinBenchmark(CudaDevice device, JoinBenchmarkArgs args) {
    this.device = device;
    this.args = args;
    this.cases = new JoinBenchmarkCases(device, args);
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
    CudaDevice device = GpuRuntime.device().orElseThrow(() -> new IllegalStateException(
        "JoinBenchmark needs a CUDA device: " + GpuRuntime.unavailableReason()));
    new JoinBenchmark(device, args).run();
  }

  private void run() throws Exception {
    System.out.printf(Locale.ROOT, "JoinBenchmark on %s, %d cores, GPU budget %d MiB; workloads = Pump Up the Volume's"
        + " / 2^%d; %d runs per case after a warm-up; method %s; joins %s; emulated table budget %d MiB (scaling)%n",
        device, Runtime.getRuntime().availableProcessors(), device.allocator().budget() >> 20, args.shift(),
        args.runs(), args.method().label(), args.joins(), args.budget() >> 20);
    cases.setLink(measureLink());
    Files.createDirectories(args.out());
    BenchReport all = new BenchReport("all", COLUMNS);
    try {
      for (String experiment : args.experiments()) {
        long t0 = System.nanoTime();
        BenchReport report = cases.run(experiment);
        System.out.println();
        System.out.print(report.toTable());
        System.out.printf(Locale.ROOT, "(%s took %.0f s)%n%n", experiment, (System.nanoTime() - t0) / 1e9);
        write(report, experiment);
        for (int i = 0; i < report.rowCount(); i++) {
          Object[] row = new Object[COLUMNS.size()];
          for (int c = 0; c < row.length; c++) {
            row[c] = report.cell(i, COLUMNS.get(c));
          }
          all.row(row);
        }
        all.writeCsv(args.out().resolve("join.csv"));  // after every experiment: a timeout keeps what finished
      }
    } finally {
      cases.close();
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

  /** Splits a join.csv by experiment into {@code out}: one CSV and one PNG each. */
  static void redraw(Path joinCsv, Path out) throws Exception {
    BenchReport all = BenchReport.readCsv("join", joinCsv);
    Files.createDirectories(out);
    for (String experiment : EXPERIMENTS) {
      BenchReport report = null;
      for (int i = 0; i < all.rowCount(); i++) {
        if (!all.cell(i, "experiment").equals(experiment)) {
          continue;
        }
        if (report == null) {
          report = new BenchReport("Joins: " + experiment + ", G tuples/s (median)", COLUMNS);
        }
        Object[] row = new Object[COLUMNS.size()];
        for (int c = 0; c < row.length; c++) {
          row[c] = all.cell(i, COLUMNS.get(c));
        }
        report.row(row);
      }
      if (report != null) {
        write(report, experiment, out);
      }
    }
  }

  private void write(BenchReport report, String experiment) throws Exception {
    write(report, experiment, args.out());
  }

  private static void write(BenchReport report, String experiment, Path dir) throws Exception {
    report.writeCsv(dir.resolve(experiment + ".csv"));
    BenchReport chart = new BenchReport(report.title(), List.of("label", "G tuples/s"));
    for (int i = 0; i < report.rowCount(); i++) {
      chart.row(report.cell(i, "case") + " " + report.cell(i, "join"), report.cell(i, "G tuples/s"));
    }
    try {
      chart.writeBarChart(dir.resolve(experiment + ".png"), "label", "G tuples/s", "G tuples/s", 0, "");
    } catch (Throwable t) {  // a JRE without fonts: the CSV is kept and BenchReport's main redraws it
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
