package org.spillway.gpu.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.function.LongSupplier;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.memory.util.MemoryUtil;
import org.spillway.gpu.device.ArrowAllocators;
import org.spillway.gpu.device.CudaDevice;
import org.spillway.gpu.device.GpuRuntime;
import org.spillway.gpu.device.HostCopy;
import org.spillway.gpu.device.HostMemoryKind;
import org.spillway.gpu.index.IndexKind;
import org.spillway.gpu.index.SortedKeyColumn;
import org.spillway.gpu.index.SortedKeyIndex;
import org.spillway.gpu.join.EquiJoin;
import org.spillway.gpu.join.GpuEquiJoin;
import org.spillway.gpu.join.HostJoinInput;
import org.spillway.gpu.join.JoinInput;
import org.spillway.gpu.join.JoinOutput;
import org.spillway.gpu.join.JoinResult;
import org.spillway.gpu.join.JoinType;
import org.spillway.gpu.join.inlj.GpuWindowedIndexJoin;
import org.spillway.gpu.join.inlj.JoinIndex;
import org.spillway.gpu.join.inlj.WindowedIndexJoin;
import org.spillway.gpu.join.nopa.CpuNopaHashJoin;
import org.spillway.gpu.join.nopa.NopaHashJoin;
import org.spillway.gpu.join.radix.CpuRadixJoin;
import org.spillway.gpu.join.triton.TritonJoin;
import org.spillway.gpu.pipeline.scheduler.MorselScheduler;
import org.spillway.gpu.transfer.ColumnType;
import org.spillway.gpu.transfer.HostColumn;

/**
 * The windowed index nested-loop join against the hash joins (issue #15), in the shape of Schmeißer, Lutz and
 * Markl's figures (EDBT 2025): the indexed relation R holds dense sorted 8-byte keys in pinned host memory
 * ({@code --sizes} GiB, Fig. 5 and 9), the probe S draws foreign keys of R uniformly (all match), and the
 * selectivity is |S| / |R|. Three sweeps: {@code size} (R grows, |S| fixed at {@code --probe-keys}),
 * {@code selectivity} (R fixed at {@code --sweep-gib}, |S| a share of it) and {@code window} (Fig. 7: the INLJ's
 * window from 2^18 to 2^26 keys). Each case runs the GPU windowed INLJ through each index (timed by its CUDA
 * events), GPU NOPA and Triton (building on S, probing R zero-copy; their own CUDA event times), and the CPU joins
 * (CPU INLJ, NOPA and radix join on all threads; wall clock). Hash joins aggregate (R's key is also its payload);
 * the INLJ emits its join index. Every join is checked: |S| pairs, and the rows found sum to the probe keys (R's
 * row of a dense key is the key). One warm-up, then the median of {@code --runs}. The crossover selectivity (and
 * R size) where the best hash join catches up with the best INLJ is printed and written beside the table.
 *
 * <p>Usage: {@code IndexJoinBenchmark [--out DIR] [--sizes GIB,...] [--probe-keys N] [--selectivities PERCENT,...]
 * [--sweep-gib GIB] [--windows LOG2,...] [--kinds BINARY_SEARCH,...] [--joins nopa,triton,cpu-inlj,cpu-nopa,
 * cpu-radix] [--runs N] [--threads N] [--cpu-only]}; writes {@code index-join.csv} and
 * {@code index-join-crossover.csv} into DIR. Draw a sweep with {@code BenchReport index-join.csv PNG case "Q/s"
 * Q/s}.
 */
public final class IndexJoinBenchmark {
  /** Keys a chunk of the parallel fill writes. */
  private static final int FILL_CHUNK = 1 << 20;

  private final IndexJoinBenchmarkArgs options;
  private final CudaDevice device;
  private final BenchReport report = new BenchReport("Windowed index join against hash joins", List.of("sweep",
      "case", "R GiB", "R rows", "S rows", "selectivity %", "window MiB", "join", "device", "ms", "total ms",
      "M keys/s", "Q/s", "note"));

  private IndexJoinBenchmark(IndexJoinBenchmarkArgs options, CudaDevice device) {
    this.options = options;
    this.device = device;
  }

  /** R: dense keys 0 .. rows-1 off-heap (pinned where a GPU runs), its indexes, and a Java copy for CPU joins. */
  private final class Relation implements AutoCloseable {
    final long rows;
    final ArrowBuf keys;
    final SortedKeyColumn column;
    final Map<IndexKind, SortedKeyIndex> indexes = new EnumMap<>(IndexKind.class);
    private final BufferAllocator allocator;
    private long[] javaKeys;

    Relation(BufferAllocator allocator, long rows) {
      this.allocator = allocator;
      this.rows = rows;
      this.keys = allocator.buffer(rows * Long.BYTES);
      long address = keys.memoryAddress();
      int chunks = (int) ((rows + FILL_CHUNK - 1) / FILL_CHUNK);
      MorselScheduler.forEach(chunks, options.threads(), () -> false, (worker, chunk) -> {
        for (long i = (long) chunk * FILL_CHUNK; i < Math.min(rows, (chunk + 1L) * FILL_CHUNK); i++) {
          MemoryUtil.putLong(address + i * Long.BYTES, i);
        }
      });
      this.column = SortedKeyColumn.ofLongs(address, rows);
    }

    SortedKeyIndex index(IndexKind kind) {
      return indexes.computeIfAbsent(kind, k -> k.build(column, allocator, options.threads()));
    }

    HostColumn hostColumn() {
      return new HostColumn("R keys", ColumnType.INT64, keys.memoryAddress(), rows);
    }

    /** The keys as a Java array for the CPU hash joins, or null beyond an array's size. */
    long[] javaKeys() {
      if (javaKeys == null && rows < Integer.MAX_VALUE - 8) {
        javaKeys = new long[(int) rows];
        Arrays.setAll(javaKeys, i -> i);
      }
      return javaKeys;
    }

    @Override
    public void close() {
      indexes.values().forEach(SortedKeyIndex::close);
      keys.close();
    }
  }

  /** One case's probe: |S| keys of R drawn uniformly, on the heap and off-heap, and their sum. */
  private record Probe(long[] keys, ArrowBuf offHeap, long sum) implements AutoCloseable {
    static Probe draw(BufferAllocator allocator, long rRows, int rows, long seed) {
      SplittableRandom random = new SplittableRandom(seed);
      long[] keys = random.longs(rows, 0, rRows).toArray();
      ArrowBuf offHeap = allocator.buffer((long) rows * Long.BYTES);
      HostCopy.put(offHeap.memoryAddress(), keys, 0, rows);
      return new Probe(keys, offHeap, Arrays.stream(keys).sum());
    }

    HostColumn hostColumn() {
      return new HostColumn("S keys", ColumnType.INT64, offHeap.memoryAddress(), keys.length);
    }

    @Override
    public void close() {
      offHeap.close();
    }
  }

  /** One case of a sweep: what the report's first columns say of it. */
  private record Case(String sweep, String label, long rRows, int sRows, long windowBytes) {}

  private void run() throws IOException {
    try (BufferAllocator allocator = device != null ? ArrowAllocators.root(HostMemoryKind.PINNED)
        : new RootAllocator()) {
      for (double gib : options.sizesGib()) {
        try (Relation r = new Relation(allocator, rowsOf(gib))) {
          measure(allocator, r, new Case("size", "R " + gib + " GiB", r.rows, options.probeKeys(),
              WindowedIndexJoin.DEFAULT_WINDOW_BYTES), true);
        }
      }
      try (Relation r = new Relation(allocator, rowsOf(options.sweepGib()))) {
        for (double selectivity : options.selectivities()) {
          long sRows = Math.max(1, Math.round(r.rows * selectivity / 100));
          if (sRows > Integer.MAX_VALUE - 8) {
            System.out.printf("selectivity %s%% of %d rows: %d probe keys exceed a join index, skipped%n",
                selectivity, r.rows, sRows);
            continue;
          }
          measure(allocator, r, new Case("selectivity", "sel " + selectivity + "%", r.rows, (int) sRows,
              WindowedIndexJoin.DEFAULT_WINDOW_BYTES), true);
        }
        for (int log : options.windows()) {
          measure(allocator, r, new Case("window", "W 2^" + log, r.rows, options.probeKeys(),
              (1L << log) * Long.BYTES), false);
        }
      }
    }
    System.out.println(report.toTable());
    Files.createDirectories(options.out());
    report.writeCsv(options.out().resolve("index-join.csv"));
    BenchReport crossovers = crossovers();
    System.out.println(crossovers.toTable());
    crossovers.writeCsv(options.out().resolve("index-join-crossover.csv"));
  }

  private static long rowsOf(double gib) {
    return Math.max(1, Math.round(gib * (1L << 30) / Long.BYTES));
  }

  /** Runs every join of the case ({@code hashJoins} false: the index joins only) and reports each. */
  private void measure(BufferAllocator allocator, Relation r, Case c, boolean hashJoins) {
    try (Probe s = Probe.draw(allocator, r.rows, c.sRows(), c.rRows() ^ c.sRows())) {
      for (IndexKind kind : options.kinds()) {
        SortedKeyIndex index = r.index(kind);
        if (device != null) {
          GpuWindowedIndexJoin join = new GpuWindowedIndexJoin(device, index, c.windowBytes());
          time(c, "inlj/" + kind, "gpu", s, () -> {
            checkIndex(join.join(s.hostColumn(), null, JoinType.INNER, () -> false), s, kind);
            return join.lastStats().gpuNanos();
          });
        }
        if (options.joins().contains("cpu-inlj")) {
          WindowedIndexJoin join = new WindowedIndexJoin(index, c.windowBytes(), options.threads());
          time(c, "inlj/" + kind, "cpu", s, () -> {
            checkIndex(join.join(s.keys(), null, JoinType.INNER), s, kind);
            return -1;
          });
        }
      }
      if (hashJoins) {
        for (String name : options.joins()) {
          hashJoin(r, c, s, name);
        }
      }
    }
  }

  private void hashJoin(Relation r, Case c, Probe s, String name) {
    if (name.equals("nopa") || name.equals("triton")) {
      if (device == null) {
        return;
      }
      try (GpuEquiJoin join = name.equals("nopa") ? new NopaHashJoin(device) : new TritonJoin(device)) {
        HostJoinInput build = HostJoinInput.of(s.hostColumn(), s.hostColumn());
        HostJoinInput probe = HostJoinInput.of(r.hostColumn(), r.hostColumn());
        time(c, name, "gpu", s, () -> {
          checkSums(join.join(build, probe, JoinType.INNER, JoinOutput.AGGREGATED), s, name);
          return join.lastStats().totalNanos();
        });
      }
    } else if (name.equals("cpu-nopa") || name.equals("cpu-radix")) {
      long[] rKeys = r.javaKeys();
      if (rKeys == null) {
        time(c, name, "cpu", s, () -> {
          throw new UnsupportedOperationException("R of " + r.rows + " rows exceeds a Java array");
        });
        return;
      }
      try (EquiJoin join = name.equals("cpu-nopa") ? new CpuNopaHashJoin(options.threads())
          : new CpuRadixJoin(options.threads())) {
        JoinInput build = JoinInput.of(s.keys(), s.keys());
        JoinInput probe = JoinInput.of(rKeys, rKeys);
        time(c, name, "cpu", s, () -> {
          checkSums(join.join(build, probe, JoinType.INNER, JoinOutput.AGGREGATED), s, name);
          return -1;
        });
      }
    }
  }

  /**
   * Runs {@code join} once to warm up and then {@link IndexJoinBenchmarkArgs#runs} times; it returns its own time in
   * nanoseconds (CUDA events) or -1 for the wall clock. Reports the medians.
   */
  private void time(Case c, String join, String where, Probe s, LongSupplier run) {
    double[] own = new double[options.runs()];
    double[] wall = new double[options.runs()];
    try {
      for (int i = -1; i < options.runs(); i++) {
        long start = System.nanoTime();
        long nanos = run.getAsLong();
        long elapsed = System.nanoTime() - start;
        if (i >= 0) {
          own[i] = (nanos < 0 ? elapsed : nanos) / 1e6;
          wall[i] = elapsed / 1e6;
        }
      }
    } catch (WrongResult e) {
      throw e;
    } catch (RuntimeException e) {  // a join that cannot run this case (memory, limits) leaves the others running
      String note = e.getClass().getSimpleName() + ": " + e.getMessage();
      report.row(c.sweep(), c.label() + " " + join + " " + where, gib(c.rRows()), c.rRows(), c.sRows(),
          selectivity(c), c.windowBytes() / 1048576.0, join, where, Double.NaN, Double.NaN, Double.NaN, Double.NaN,
          note);
      System.out.printf(Locale.ROOT, "%-11s %-14s %-20s %-3s failed: %s%n", c.sweep(), c.label(), join, where, note);
      return;
    }
    double ms = median(own);
    report.row(c.sweep(), c.label() + " " + join + " " + where, gib(c.rRows()), c.rRows(), c.sRows(),
        selectivity(c), c.windowBytes() / 1048576.0, join, where, ms, median(wall), c.sRows() / ms / 1e3,
        1e3 / ms, "");
    System.out.printf(Locale.ROOT, "%-11s %-14s %-20s %-3s %10.2f ms%n", c.sweep(), c.label(), join, where, ms);
  }

  /** A join returned a wrong result: the benchmark stops, whatever else it would measure. */
  static final class WrongResult extends IllegalStateException {
    WrongResult(String message) {
      super(message);
    }
  }

  private static double median(double[] values) {
    double[] sorted = values.clone();
    Arrays.sort(sorted);
    return sorted[sorted.length / 2];
  }

  private static double gib(long rows) {
    return rows * (double) Long.BYTES / (1L << 30);
  }

  private static double selectivity(Case c) {
    return 100.0 * c.sRows() / c.rRows();
  }

  /** Every probe key matches its own row: |S| pairs whose build rows sum to the keys. */
  private static void checkIndex(JoinIndex index, Probe s, IndexKind kind) {
    long sum = Arrays.stream(index.buildRows()).sum();
    if (index.size() != s.keys().length || sum != s.sum()) {
      throw new WrongResult("INLJ through " + kind + " found " + index.size() + " pairs (rows summing to "
          + sum + "), expected " + s.keys().length + " (summing to " + s.sum() + ")");
    }
  }

  /** |S| pairs whose payloads (the keys on both sides) sum to the probe keys. */
  private static void checkSums(JoinResult result, Probe s, String join) {
    if (result.rowCount() != s.keys().length || result.buildPayloadSum() != s.sum()
        || result.probePayloadSum() != s.sum()) {
      throw new WrongResult(join + " joined " + result.rowCount() + " pairs (sums " + result
          .buildPayloadSum() + ", " + result.probePayloadSum() + "), expected " + s.keys().length + " (sum "
          + s.sum() + ")");
    }
  }

  /**
   * Where the best hash join catches up with the best index join, per sweep and device class of the index join:
   * along the selectivity sweep (the INLJ wins below it) and the size sweep (the INLJ wins above it).
   */
  private BenchReport crossovers() {
    BenchReport out = new BenchReport("Crossover of the best INLJ and the best hash join", List.of("sweep",
        "INLJ device", "crossover", "unit", "note"));
    for (String sweep : List.of("selectivity", "size")) {
      for (String where : List.of("gpu", "cpu")) {
        List<double[]> points = new ArrayList<>();  // x, best INLJ ms, best hash ms
        for (int row = 0; row < report.rowCount(); row++) {
          if (!report.cell(row, "sweep").equals(sweep)) {
            continue;
          }
          double x = ((Number) report.cell(row, sweep.equals("size") ? "R GiB" : "selectivity %")).doubleValue();
          double ms = ((Number) report.cell(row, "ms")).doubleValue();
          if (Double.isNaN(ms)) {
            continue;
          }
          boolean inlj = report.cell(row, "join").toString().startsWith("inlj/");
          if (inlj && !report.cell(row, "device").equals(where)) {
            continue;
          }
          double[] point = points.stream().filter(p -> p[0] == x).findFirst().orElse(null);
          if (point == null) {
            point = new double[] {x, Double.POSITIVE_INFINITY, Double.POSITIVE_INFINITY};
            points.add(point);
          }
          point[inlj ? 1 : 2] = Math.min(point[inlj ? 1 : 2], ms);
        }
        points.removeIf(p -> Double.isInfinite(p[1]) || Double.isInfinite(p[2]));
        if (points.isEmpty()) {
          continue;
        }
        points.sort((a, b) -> Double.compare(a[0], b[0]));
        double[] x = points.stream().mapToDouble(p -> p[0]).toArray();
        double[] inljMs = points.stream().mapToDouble(p -> p[1]).toArray();
        double[] hashMs = points.stream().mapToDouble(p -> p[2]).toArray();
        double at = crossover(x, inljMs, hashMs);
        String note = !Double.isNaN(at) ? "" : inljMs[0] < hashMs[0] ? "INLJ faster over the whole sweep"
            : "hash join faster over the whole sweep";
        out.row(sweep, where, at, sweep.equals("size") ? "R GiB" : "selectivity %", note);
      }
    }
    return out;
  }

  /**
   * Where the ratio of {@code inljMs} to {@code hashMs} first crosses 1 along ascending {@code x}, interpolated on
   * log scales between the two points around it; NaN when it does not cross.
   */
  static double crossover(double[] x, double[] inljMs, double[] hashMs) {
    for (int i = 0; i < x.length; i++) {
      double ratio = Math.log(inljMs[i] / hashMs[i]);
      if (ratio == 0) {
        return x[i];
      }
      if (i > 0) {
        double before = Math.log(inljMs[i - 1] / hashMs[i - 1]);
        if (Math.signum(before) != Math.signum(ratio)) {
          double t = before / (before - ratio);
          return Math.exp(Math.log(x[i - 1]) + t * (Math.log(x[i]) - Math.log(x[i - 1])));
        }
      }
    }
    return Double.NaN;
  }

  public static void main(String[] args) throws IOException {
    IndexJoinBenchmarkArgs options = IndexJoinBenchmarkArgs.parse(args);
    CudaDevice device = null;
    if (!options.cpuOnly()) {
      device = GpuRuntime.device().orElse(null);
      if (device == null) {
        System.out.println("No GPU (" + GpuRuntime.unavailableReason() + "): CPU joins only");
      }
    }
    System.out.printf("Index join: R %s GiB, |S| %d, selectivities %s%%, sweep R %s GiB, windows 2^%s, %d runs, %d"
        + " threads, %s, Java %s%n", options.sizesGib(), options.probeKeys(), options.selectivities(),
        options.sweepGib(), options.windows(), options.runs(), options.threads(),
        device == null ? "CPU only" : device.toString(), Runtime.version());
    new IndexJoinBenchmark(options, device).run();
  }
}
