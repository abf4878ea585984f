package org.spillway.gpu.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.spillway.gpu.device.ArrowAllocators;
import org.spillway.gpu.device.CudaDevice;
import org.spillway.gpu.device.GpuRuntime;
import org.spillway.gpu.device.HostBuffer;
import org.spillway.gpu.device.HostMemoryKind;
import org.spillway.gpu.expr.AggCall;
import org.spillway.gpu.pipeline.ColumnBatch;
import org.spillway.gpu.vector.ColumnVector;
import org.spillway.gpu.pipeline.cpu.ColumnarPipeline;
import org.spillway.gpu.vector.ExprType;
import org.spillway.gpu.pipeline.gpu.FilterVariant;
import org.spillway.gpu.pipeline.gpu.GpuColumnCache;
import org.spillway.gpu.pipeline.gpu.GpuColumnarPipeline;
import org.spillway.gpu.pipeline.PipelineStage;
import org.spillway.gpu.pipeline.SourceBatch;
import org.spillway.gpu.transfer.ColumnType;
import org.spillway.gpu.transfer.HostColumn;
import org.spillway.gpu.transfer.TransferMethod;
import org.spillway.gpu.transfer.TransferOptions;

/**
 * Times GPU columnar pipelines over SF-10-sized random lineitem columns in pinned memory: the link bound
 * (raw pinned cuMemcpy, large and per batch buffer), Q6 uncached by transfer method, filter variant, kernel
 * and selectivity, a sweep of stream workers and slots, Q6 and Q1 with every column resident in the GPU
 * column cache, Q1 uncached, the per-run overhead of a one-batch query with a warm and a cold resource pool,
 * the CPU backend for reference, and Q6's filter returning rows ({@link PipelineRowsCases}: both directions of
 * the link). Times are medians over repetitions after a warm-up: the pipeline's RunStats (pass = streaming and
 * kernels, wall = the whole run) and wall clock; every GPU result is checked against the CPU backend's.
 * Usage: PipelineBenchmark [--rows 60000000] [--reps 5] [--out DIR] [--cases all|rows] (rows: the link bound
 * and the cases returning rows only)
 */
public final class PipelineBenchmark {
  private static final List<String> COLUMNS = List.of("case", "method", "variant", "kernel", "selected %", "GB",
      "pass ms", "wall ms", "GB/s", "of link", "note");

  private final CudaDevice device;
  private final int reps;
  private final BenchReport report;
  private double link = Double.NaN;

  private PipelineBenchmark(CudaDevice device, long rows, int reps) {
    this.device = device;
    this.reps = reps;
    this.report = new BenchReport(String.format("GPU columnar pipelines over %,d lineitem rows, %s", rows,
        device.name()), COLUMNS);
  }

  public static void main(String[] argv) throws Exception {
    long rows = 60_000_000;
    int reps = 5;
    Path out = Path.of("bench-out");
    String cases = "all";
    for (int i = 0; i < argv.length; i += 2) {
      switch (argv[i]) {
        case "--rows" -> rows = Long.parseLong(argv[i + 1]);
        case "--reps" -> reps = Integer.parseInt(argv[i + 1]);
        case "--out" -> out = Path.of(argv[i + 1]);
        case "--cases" -> cases = argv[i + 1];
        default -> throw new IllegalArgumentException("unknown option " + argv[i]
            + "; usage: PipelineBenchmark [--rows N] [--reps N] [--out DIR] [--cases all|rows]");
      }
    }
    if (!cases.equals("all") && !cases.equals("rows")) {
      throw new IllegalArgumentException("--cases must be all or rows, got " + cases);
    }
    CudaDevice device = GpuRuntime.device().orElseThrow(() -> new IllegalStateException(
        "PipelineBenchmark needs a CUDA device: " + GpuRuntime.unavailableReason()));
    PipelineBenchmark bench = new PipelineBenchmark(device, rows, reps);
    List<FieldVector> owned = new ArrayList<>();
    try (BufferAllocator allocator = ArrowAllocators.root(HostMemoryKind.PINNED)) {
      long t = System.nanoTime();
      List<SourceBatch> batches = PipelineWorkloads.lineitem(allocator, rows, 42, owned);
      System.out.printf("generated %d batches in %.1f s%n", batches.size(), (System.nanoTime() - t) / 1e9);
      try {
        bench.run(batches, cases.equals("rows"));
      } finally {
        owned.forEach(FieldVector::close);
      }
    }
    System.out.println();
    System.out.print(bench.report.toTable());
    Files.createDirectories(out);
    bench.report.writeCsv(out.resolve("pipeline.csv"));
  }

  private void run(List<SourceBatch> batches, boolean rowsOnly) {
    linkBound(batches);
    if (!rowsOnly) {
      aggregates(batches);
    }
    new PipelineRowsCases(device, reps, report, link, threads()).run(batches);
  }

  private void aggregates(List<SourceBatch> batches) {
    long from = PipelineWorkloads.day(1994, 1, 1);
    List<Object[]> selectivities = List.of(
        new Object[] {"Q6", PipelineWorkloads.q6()},
        new Object[] {"Q6 one month", PipelineWorkloads.q6(from, PipelineWorkloads.day(1994, 2, 1), 5, 7, 2400)},
        new Object[] {"Q6 three years, disc 0-5, qty<40", PipelineWorkloads.q6(from,
            PipelineWorkloads.day(1997, 1, 1), 0, 5, 4000)},
        new Object[] {"Q6 everything", PipelineWorkloads.q6(0, 100_000, 0, 10, 100_000)});
    for (Object[] s : selectivities) {
      @SuppressWarnings("unchecked")
      List<PipelineStage> stages = (List<PipelineStage>) s[1];
      String name = (String) s[0];
      List<Object[]> expected = rows(cpu(stages).run(batches, threads(), () -> false));
      double selected = selectedPercent(stages, batches);
      for (TransferMethod method : List.of(TransferMethod.PINNED_COPY, TransferMethod.ZERO_COPY)) {
        for (FilterVariant variant : FilterVariant.values()) {
          for (boolean specialized : new boolean[] {true, false}) {
            GpuColumnarPipeline p = gpu(stages).withFilterVariant(variant).withSelectionKernel(specialized);
            time(name, p, method, batches, expected, selected, "");
          }
        }
      }
    }
    List<PipelineStage> q6 = PipelineWorkloads.q6();
    List<Object[]> q6Expected = rows(cpu(q6).run(batches, threads(), () -> false));
    for (int workers : new int[] {1, 2, 4}) {
      for (int slots : new int[] {4, 8}) {
        GpuColumnarPipeline p = gpu(q6).withStreamWorkers(workers).withTransferOptions(
            new TransferOptions(TransferOptions.DEFAULT.chunkBytes(), slots, TransferOptions.DEFAULT.stagingThreads()));
        time("Q6 sweep", p, TransferMethod.PINNED_COPY, batches, q6Expected, Double.NaN,
            workers + " workers, " + slots + " slots");
      }
    }
    List<PipelineStage> q1 = PipelineWorkloads.q1();
    List<Object[]> q1Expected = rows(cpu(q1).run(batches, threads(), () -> false));
    for (TransferMethod method : List.of(TransferMethod.PINNED_COPY, TransferMethod.ZERO_COPY)) {
      for (FilterVariant variant : FilterVariant.values()) {
        time("Q1", gpu(q1).withFilterVariant(variant), method, batches, q1Expected, Double.NaN, "");
      }
      for (int workers : new int[] {1, 2}) {
        time("Q6 workers", gpu(q6).withStreamWorkers(workers), method, batches, q6Expected, Double.NaN,
            workers + " workers, 6 slots");
      }
    }
    try (GpuColumnCache cache = new GpuColumnCache(device, 16L << 30)) {
      for (FilterVariant variant : FilterVariant.values()) {
        time("Q6 cached", gpu(q6).withFilterVariant(variant).withCache(cache), TransferMethod.PINNED_COPY, batches,
            q6Expected, Double.NaN, "all columns resident");
        time("Q1 cached", gpu(q1).withFilterVariant(variant).withCache(cache), TransferMethod.PINNED_COPY, batches,
            q1Expected, Double.NaN, "all columns resident");
      }
      report.row("cache", "", "", "", Double.NaN, cache.residentBytes() / 1e9, Double.NaN, Double.NaN, Double.NaN,
          Double.NaN, cache.hits() + " hits, " + cache.misses() + " misses");
    }
    overhead(batches.subList(0, 1), q6);
    for (boolean cold : new boolean[] {false, true}) {  // the old per-run setup: 4 pipelines of 4 slots each run
      GpuColumnarPipeline p = gpu(q6).withStreamWorkers(4).withTransferOptions(new TransferOptions(
          TransferOptions.DEFAULT.chunkBytes(), 4, TransferOptions.DEFAULT.stagingThreads()));
      time(cold ? "Q6 setup per run" : "Q6 pooled", p, TransferMethod.PINNED_COPY, batches, q6Expected, Double.NaN,
          cold ? "4 workers x 4 slots, pool released before every run" : "4 workers x 4 slots, pool warm",
          cold ? () -> GpuColumnarPipeline.releaseIdleResources(device) : () -> { });
    }
    cpuReference("Q6", q6, batches);
    cpuReference("Q1", q1, batches);
  }

  /** Raw pinned cuMemcpy: 256 MiB pieces of one 2 GiB buffer (the link), and each Q6 buffer of every batch. */
  private void linkBound(List<SourceBatch> batches) {
    long piece = 256L << 20;
    try (HostBuffer big = device.pinnedAllocator().allocate(8 * piece)) {
      RandomFill.fill(big.address(), ColumnType.INT64, 8 * piece / 8, 7);
      List<HostColumn> pieces = new ArrayList<>();
      for (int i = 0; i < 8; i++) {
        pieces.add(new HostColumn("piece" + i, ColumnType.INT64, big.address() + i * piece, piece / 8));
      }
      double[] gbs = MethodTimer.rawPinnedCopy(device, pieces, reps);
      link = MethodTimer.median(gbs);
      report.row("link: raw pinned cuMemcpy", "pinned copy", "", "", Double.NaN, 8 * piece / 1e9, Double.NaN,
          Double.NaN, link, 1.0, "8 x 256 MiB, CUDA events");
    }
    List<HostColumn> buffers = new ArrayList<>();
    for (SourceBatch b : batches) {
      for (int c = 0; c < 4; c++) {
        buffers.add(HostColumn.of(b.columns().get(c).getName(), c == 0 ? ColumnType.INT32 : ColumnType.INT64,
            b.columns().get(c).getDataBuffer(), b.rows()));
      }
    }
    double gbs = MethodTimer.median(MethodTimer.rawPinnedCopy(device, buffers, reps));
    long bytes = buffers.stream().mapToLong(HostColumn::byteLength).sum();
    report.row("raw cuMemcpy of each Q6 buffer", "pinned copy", "", "", Double.NaN, bytes / 1e9,
        bytes / gbs / 1e6, Double.NaN, gbs, gbs / link, buffers.size() + " copies on one stream");
  }

  /** Warm-up, then {@code reps} timed runs; each result must equal the CPU's. */
  private void time(String name, GpuColumnarPipeline p, TransferMethod method, List<SourceBatch> batches,
      List<Object[]> expected, double selected, String note) {
    time(name, p, method, batches, expected, selected, note, () -> { });
  }

  /** As above, calling {@code beforeEach} before every run (outside its timing only for the pass). */
  private void time(String name, GpuColumnarPipeline p, TransferMethod method, List<SourceBatch> batches,
      List<Object[]> expected, double selected, String note, Runnable beforeEach) {
    double[] pass = new double[reps];
    double[] wall = new double[reps];
    double[] kernel = new double[reps];
    GpuColumnarPipeline.RunStats stats = null;
    for (int r = -1; r < reps; r++) {
      beforeEach.run();
      long start = System.nanoTime();
      List<Object[]> actual = rows(p.run(device, method, batches, threads(), () -> false));
      long end = System.nanoTime();
      check(expected, actual, name + " " + method + " " + p.filterVariant());
      stats = p.lastRun();
      if (r >= 0) {
        pass[r] = stats.nanos() / 1e6;
        wall[r] = (end - start) / 1e6;
        kernel[r] = stats.kernelNanos() / 1e6;
      }
    }
    double passMs = MethodTimer.median(pass);
    long bytes = stats.bytes() + stats.cachedBytes();
    double gbs = stats.bytes() > 0 ? stats.bytes() / (passMs * 1e6) : bytes / (passMs * 1e6);
    report.row(name, method.label(), p.filterVariant().label(), stats.kernel(), selected, bytes / 1e9, passMs,
        MethodTimer.median(wall), gbs, stats.bytes() > 0 ? gbs / link : Double.NaN,
        (note.isEmpty() ? "" : note + "; ") + (stats.bytes() == 0 ? "no transfer" : "streamed")
            + (stats.kernelNanos() >= 0 ? String.format(", kernel %.3f ms", MethodTimer.median(kernel)) : "")
            + String.format(", pass min %.2f max %.2f", Arrays.stream(pass).min().orElse(0),
            Arrays.stream(pass).max().orElse(0)));
    System.out.printf("%s %s %s %s: pass %.2f ms, wall %.2f ms%n", name, method.label(), p.filterVariant().label(),
        stats.kernel(), passMs, MethodTimer.median(wall));
  }

  /** Wall time of a one-batch query: pooled resources warm, and released before every run (cold). */
  private void overhead(List<SourceBatch> one, List<PipelineStage> stages) {
    List<Object[]> expected = rows(cpu(stages).run(one, threads(), () -> false));
    for (boolean cold : new boolean[] {false, true}) {
      GpuColumnarPipeline p = gpu(stages);
      double[] wall = new double[reps * 4];
      for (int r = -1; r < wall.length; r++) {
        if (cold) {
          GpuColumnarPipeline.releaseIdleResources(device);
        }
        long start = System.nanoTime();
        check(expected, rows(p.run(device, TransferMethod.PINNED_COPY, one, threads(), () -> false)), "overhead");
        if (r >= 0) {
          wall[r] = (System.nanoTime() - start) / 1e6;
        }
      }
      long bytes = p.lastRun().bytes();
      report.row("one-batch Q6", "pinned copy", p.filterVariant().label(), p.lastRun().kernel(), Double.NaN,
          bytes / 1e9, p.lastRun().nanos() / 1e6, MethodTimer.median(wall), Double.NaN, Double.NaN,
          cold ? "pool released before every run (creates pipelines, streams, buffers)" : "pool warm");
    }
    double[] cpuMs = new double[reps * 4];
    for (int r = -1; r < cpuMs.length; r++) {
      long start = System.nanoTime();
      cpu(stages).run(one, threads(), () -> false);
      if (r >= 0) {
        cpuMs[r] = (System.nanoTime() - start) / 1e6;
      }
    }
    report.row("one-batch Q6", "", "", "CPU backend", Double.NaN, Double.NaN, Double.NaN, MethodTimer.median(cpuMs),
        Double.NaN, Double.NaN, threads() + " threads");
  }

  private void cpuReference(String name, List<PipelineStage> stages, List<SourceBatch> batches) {
    double[] ms = new double[Math.max(3, reps / 2)];
    for (int r = -1; r < ms.length; r++) {
      long start = System.nanoTime();
      cpu(stages).run(batches, threads(), () -> false);
      if (r >= 0) {
        ms[r] = (System.nanoTime() - start) / 1e6;
      }
    }
    report.row(name, "", "", "CPU backend", Double.NaN, Double.NaN, Double.NaN, MethodTimer.median(ms), Double.NaN,
        Double.NaN, threads() + " threads, same data");
  }

  /** Percent of rows that pass the filter (a CPU COUNT(*) of the same filter). */
  private static double selectedPercent(List<PipelineStage> stages, List<SourceBatch> batches) {
    List<PipelineStage> count = List.of(stages.get(0), new PipelineStage.Aggregate(new int[0],
        List.of(new AggCall(AggCall.Kind.COUNT, -1, ExprType.INT64))));
    long rows = batches.stream().mapToLong(SourceBatch::rows).sum();
    ColumnBatch result = cpu(count).run(batches, threads(), () -> false).get(0);
    return 100.0 * result.columns()[0].longs[0] / rows;
  }

  private static GpuColumnarPipeline gpu(List<PipelineStage> stages) {
    return new GpuColumnarPipeline(PipelineWorkloads.LINEITEM_TYPES, stages);
  }

  private static ColumnarPipeline cpu(List<PipelineStage> stages) {
    return new ColumnarPipeline(PipelineWorkloads.LINEITEM_TYPES, stages);
  }

  private static int threads() {
    return Runtime.getRuntime().availableProcessors();
  }

  /** Result rows as value lists, sorted, for comparison. */
  private static List<Object[]> rows(List<ColumnBatch> batches) {
    List<Object[]> out = new ArrayList<>();
    for (ColumnBatch b : batches) {
      for (int r = 0; r < b.rows(); r++) {
        Object[] row = new Object[b.columns().length];
        for (int c = 0; c < row.length; c++) {
          ColumnVector v = b.columns()[c];
          row[c] = v.isNull(r) ? null : v.longs != null ? (Object) v.longs[r] : (Object) v.doubles[r];
        }
        out.add(row);
      }
    }
    out.sort((x, y) -> Arrays.asList(x).toString().compareTo(Arrays.asList(y).toString()));
    return out;
  }

  private static void check(List<Object[]> expected, List<Object[]> actual, String what) {
    boolean same = expected.size() == actual.size();
    for (int i = 0; same && i < expected.size(); i++) {
      same = Arrays.equals(expected.get(i), actual.get(i));
    }
    if (!same) {
      throw new IllegalStateException(what + ": GPU result differs from the CPU's: " + describe(actual) + " vs "
          + describe(expected));
    }
  }

  private static String describe(List<Object[]> rows) {
    return rows.stream().map(Arrays::toString).toList().toString();
  }
}
