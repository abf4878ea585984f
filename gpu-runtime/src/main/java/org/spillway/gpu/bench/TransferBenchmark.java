package org.spillway.gpu.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.IntStream;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.spillway.gpu.device.ArrowAllocators;
import org.spillway.gpu.device.CudaDevice;
import org.spillway.gpu.device.GpuRuntime;
import org.spillway.gpu.device.HostMemoryKind;
import org.spillway.gpu.ops.CpuColumnSum;
import org.spillway.gpu.ops.GpuColumnSum;
import org.spillway.gpu.ops.SumResult;
import org.spillway.gpu.transfer.ColumnType;
import org.spillway.gpu.transfer.HostColumn;
import org.spillway.gpu.transfer.TransferMethod;
import org.spillway.gpu.transfer.TransferOptions;

/**
 * Streams GiBs of random INT64 Arrow columns into the column_sum kernel with every transfer method and
 * reports GB/s (median over repetitions, CUDA events), CPU cores used, and the ratio to raw pinned
 * cuMemcpy bandwidth measured in the same run; every repetition's sums are checked against the CPU.
 * Usage: TransferBenchmark [--gib 8] [--columns 8] [--reps 5] [--chunk-mib 16[,..]] [--blocks-per-sm 4[,..]]
 * [--staging-threads 4,8,10,12] [--staging-chunk-mib 16[,..]] [--methods all|name,...] [--out DIR]
 */
public final class TransferBenchmark {
  private static final List<String> COLUMNS = List.of("method", "memory", "GB/s", "min GB/s", "max GB/s",
      "of raw", "CPU cores", "note");

  private final CudaDevice device;
  private final Args args;
  private final BenchReport report;
  private final CpuColumnSum cpu = new CpuColumnSum();
  private double raw = Double.NaN;

  private record Args(long bytes, int columns, int reps, long[] chunkBytes, int[] blocksPerSm, int[] stagingThreads,
      long[] stagingChunkBytes,
      List<TransferMethod> methods, Path out) {}

  private TransferBenchmark(CudaDevice device, Args args) {
    this.device = device;
    this.args = args;
    this.report = new BenchReport(String.format("Transfer methods: %d GiB of INT64 Arrow columns into a sum kernel, %s",
        args.bytes >> 30, device.name()), COLUMNS);
  }

  public static void main(String[] argv) throws Exception {
    Args args = parse(argv);
    CudaDevice device = GpuRuntime.device().orElseThrow(() -> new IllegalStateException(
        "TransferBenchmark needs a CUDA device: " + GpuRuntime.unavailableReason()));
    TransferBenchmark bench = new TransferBenchmark(device, args);
    bench.run();
    System.out.println();
    System.out.print(bench.report.toTable());
    Files.createDirectories(args.out);
    bench.report.writeCsv(args.out.resolve("transfer.csv"));
    try {
      bench.report.writeBarChart(args.out.resolve("transfer.png"), "method", "GB/s", "GB/s", bench.raw,
          "raw pinned cuMemcpy");
    } catch (Throwable t) {  // a JRE without fonts: the CSV is kept and BenchReport's main redraws it
      System.out.println("PNG not written: " + t);
    }
  }

  private void run() throws Exception {
    System.out.printf("device %s, budget %d MiB, %d cores%n", device, device.allocator().budget() >> 20,
        Runtime.getRuntime().availableProcessors());
    for (HostMemoryKind kind : List.of(HostMemoryKind.PINNED, HostMemoryKind.PAGEABLE, HostMemoryKind.MANAGED)) {
      List<TransferMethod> methods = args.methods.stream().filter(m -> m.nativeMemory() == kind).toList();
      if (kind == HostMemoryKind.PINNED || !methods.isEmpty()) {
        runOnMemory(kind, methods);
      }
    }
  }

  private void runOnMemory(HostMemoryKind kind, List<TransferMethod> methods) throws Exception {
    List<TransferMethod> runnable = new ArrayList<>();
    for (TransferMethod m : methods) {
      var support = m.support(device);
      if (support.supported()) {
        runnable.add(m);
      } else {
        report.row(m.label(), kind.name().toLowerCase(), Double.NaN, Double.NaN, Double.NaN, Double.NaN, Double.NaN,
            "unsupported: " + support.reason());
      }
    }
    if (runnable.isEmpty() && kind != HostMemoryKind.PINNED) {
      return;
    }
    long perColumn = args.bytes / args.columns / 8 * 8;
    long t0 = System.nanoTime();
    try (BufferAllocator allocator = ArrowAllocators.root(kind)) {
      List<ArrowBuf> buffers = new ArrayList<>();
      List<HostColumn> columns = new ArrayList<>();
      List<SumResult> expected = new ArrayList<>();
      try {
        for (int c = 0; c < args.columns; c++) {
          ArrowBuf buf = allocator.buffer(perColumn);
          buffers.add(buf);
          RandomFill.fill(buf.memoryAddress(), ColumnType.INT64, perColumn / 8, 1000L * c + kind.ordinal());
          HostColumn column = HostColumn.of("c" + c, ColumnType.INT64, buf, perColumn / 8);
          columns.add(column);
        }
        System.out.printf("%s: %d x %d MiB allocated and filled in %.1f s%n", kind, args.columns, perColumn >> 20,
            (System.nanoTime() - t0) / 1e9);
        expected.addAll(cpuScan(kind, columns));
        if (kind == HostMemoryKind.PINNED) {
          raw = rawPinnedCopy(columns);
        }
        for (TransferMethod m : runnable) {
          if (m == TransferMethod.STAGED_COPY) {
            for (long chunk : args.stagingChunkBytes) {
              for (int threads : args.stagingThreads) {
                measure(m, kind, columns, expected, threads, new long[] {chunk},
                    m.label() + " (" + threads + " threads, " + (chunk >> 20) + " MiB)");
              }
            }
          } else {
            measure(m, kind, columns, expected, 1, args.chunkBytes, m.label());
          }
        }
      } finally {
        buffers.forEach(ArrowBuf::close);
      }
    }
  }

  /** The CPU reference sums, timed by wall clock: the CPU backend's scan bandwidth on this memory. */
  private List<SumResult> cpuScan(HostMemoryKind kind, List<HostColumn> columns) {
    double[] gbs = new double[args.reps];
    double[] cores = new double[args.reps];
    List<SumResult> sums = new ArrayList<>();
    for (int r = -1; r < args.reps; r++) {  // r = -1 warms up the JIT and the pages
      sums.clear();
      long cpu0 = MethodTimer.processCpuNanos();
      long t0 = System.nanoTime();
      for (HostColumn c : columns) {
        sums.add(cpu.sum(c));
      }
      long wall = System.nanoTime() - t0;
      if (r >= 0) {
        gbs[r] = totalBytes(columns) / (double) wall;
        cores[r] = (MethodTimer.processCpuNanos() - cpu0) / (double) wall;
      }
    }
    if (kind != HostMemoryKind.MANAGED) {
      addRow("CPU scan, " + kind.name().toLowerCase(), kind, gbs, MethodTimer.median(cores),
          "CPU backend " + cpu.describe() + ", wall clock", false);
    }
    return List.copyOf(sums);
  }

  private double rawPinnedCopy(List<HostColumn> columns) {
    double[] gbs = MethodTimer.rawPinnedCopy(device, columns, args.reps);
    addRow("raw pinned cuMemcpy", HostMemoryKind.PINNED, gbs, Double.NaN, "one cuMemcpyHtoDAsync per column", false);
    return MethodTimer.median(gbs);
  }

  /** Times the method for every chunk size and grid size asked for; labels carry them when several are swept. */
  private void measure(TransferMethod method, HostMemoryKind kind, List<HostColumn> columns, List<SumResult> expected,
      int stagingThreads, long[] chunks, String label) {
    boolean sweep = chunks.length > 1 || args.blocksPerSm.length > 1;
    for (long chunk : chunks) {
      for (int blocks : args.blocksPerSm) {
        String setting = "chunk " + (chunk >> 20) + " MiB, " + blocks + " blocks/SM";
        TransferOptions options = TransferOptions.DEFAULT.withChunkBytes(chunk).withStagingThreads(stagingThreads);
        MethodTimer.Timing t = MethodTimer.time(device, method, options, blocks, columns, expected, args.reps);
        addRow(sweep ? label + " [" + setting + "]" : label, kind, t.gbPerSecond(), t.medianCpuCores(), setting, true);
      }
    }
  }

  private void addRow(String label, HostMemoryKind kind, double[] gbs, double cores, String note, boolean ofRaw) {
    double med = MethodTimer.median(gbs);
    double ratio = ofRaw ? med / raw : Double.NaN;
    double min = Arrays.stream(gbs).min().orElse(Double.NaN);
    double max = Arrays.stream(gbs).max().orElse(Double.NaN);
    report.row(label, kind.name().toLowerCase(), med, min, max, ratio, cores, note);
    System.out.printf("%-28s %-8s %7.2f GB/s (min %.2f, max %.2f) %s cores %.2f%n", label, kind, med, min, max,
        Double.isNaN(ratio) ? "" : String.format("%.3f of raw,", ratio), cores);
  }

  private static long totalBytes(List<HostColumn> columns) {
    return columns.stream().mapToLong(HostColumn::byteLength).sum();
  }

  private static Args parse(String[] argv) {
    long bytes = 8L << 30;
    int columns = 8;
    int reps = 5;
    long[] chunk = {TransferOptions.DEFAULT.chunkBytes()};
    int[] blocks = {GpuColumnSum.DEFAULT_BLOCKS_PER_SM};
    int[] staging = IntStream.of(4, 8, 10, 12, TransferOptions.DEFAULT.stagingThreads()).distinct()
        .sorted().toArray();
    long[] stagingChunks = {TransferOptions.DEFAULT.chunkBytes()};
    List<TransferMethod> methods = List.of(TransferMethod.values());
    Path out = Path.of("docs/bench/transfer");
    for (int i = 0; i < argv.length; i++) {
      String flag = argv[i];
      if (i + 1 >= argv.length) {
        throw new IllegalArgumentException("option " + flag + " needs a value");
      }
      String v = argv[++i];
      switch (flag) {
        case "--gib" -> bytes = (long) (Double.parseDouble(v) * (1L << 30));
        case "--columns" -> columns = Integer.parseInt(v);
        case "--reps" -> reps = Integer.parseInt(v);
        case "--chunk-mib" -> chunk = Arrays.stream(v.split(",")).mapToLong(x -> Long.parseLong(x) << 20).toArray();
        case "--blocks-per-sm" -> blocks = Arrays.stream(v.split(",")).mapToInt(Integer::parseInt).toArray();
        case "--staging-chunk-mib" ->
            stagingChunks = Arrays.stream(v.split(",")).mapToLong(x -> Long.parseLong(x) << 20).toArray();
        case "--staging-threads" -> staging = Arrays.stream(v.split(",")).mapToInt(Integer::parseInt).toArray();
        case "--methods" -> methods = v.equals("all") ? methods
            : Arrays.stream(v.split(",")).map(TransferMethod::parse).toList();
        case "--out" -> out = Path.of(v);
        default -> throw new IllegalArgumentException("unknown option " + flag
            + " (known: --gib --columns --reps --chunk-mib --blocks-per-sm --staging-threads --staging-chunk-mib"
            + " --methods --out)");
      }
    }
    return new Args(bytes, columns, reps, chunk, blocks, staging, stagingChunks, methods, out);
  }
}
