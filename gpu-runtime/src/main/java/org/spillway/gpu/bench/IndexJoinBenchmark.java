package org.spillway.gpu.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.function.BooleanSupplier;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.spillway.gpu.bench.IndexJoinBenchmarkData.Probe;
import org.spillway.gpu.bench.IndexJoinBenchmarkData.Relation;
import org.spillway.gpu.device.ArrowAllocators;
import org.spillway.gpu.device.CudaDevice;
import org.spillway.gpu.device.GpuRuntime;
import org.spillway.gpu.device.HostMemoryKind;
import org.spillway.gpu.index.IndexKind;
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
import org.spillway.gpu.join.inlj.TranslationSlices;
import org.spillway.gpu.join.inlj.WindowedIndexJoin;
import org.spillway.gpu.join.nopa.CpuNopaHashJoin;
import org.spillway.gpu.join.nopa.NopaHashJoin;
import org.spillway.gpu.join.radix.CpuRadixJoin;
import org.spillway.gpu.join.triton.TritonJoin;

/**
 * The windowed index nested-loop join against the hash joins (issue #15), in the shape of Schmeißer, Lutz and
 * Markl's figures (EDBT 2025): the indexed relation R holds sorted unique 8-byte keys with gaps ({@link SortedKeys})
 * in pinned host memory ({@code --sizes} GiB, Fig. 5 and 9), the probe S draws keys of R uniformly, a share
 * {@code --miss-share} of them moved into the gaps (misses), and the selectivity is |S| / |R|. Three sweeps:
 * {@code size} (R grows, |S| fixed at {@code --probe-keys}), {@code selectivity} (R fixed at {@code --sweep-gib}, |S|
 * a share of it) and {@code window} (Fig. 7: the INLJ's window from 2^18 to 2^26 keys). Each case runs the GPU
 * windowed INLJ through each index (timed by its CUDA events), the CPU one, GPU NOPA and Triton (building on S,
 * probing R zero-copy; their own CUDA event times), and the CPU hash joins (NOPA and radix join on all threads; wall
 * clock; while R fits a Java array). Hash joins aggregate (R's key is also its payload); the INLJ emits its join
 * index. Every join is checked: as many pairs as S has keys in R, and the rows found (payload sums) add up to theirs.
 * One warm-up (per point, or per join with {@code --warmup-once}), then the median of {@code --runs}.
 *
 * <p>A point (one join in one case) stops at {@code --point-limit-s}: the index joins are cancelled between windows,
 * and a join that exceeded the limit is not run on the cases after (they are larger); once {@code --budget-s} is
 * spent no further point starts. Skipped and stopped points get a row with the reason in {@code note}. The table is
 * rewritten to {@code index-join.csv} after every point, so a run cut short keeps what it measured; the crossover
 * selectivity (and R size) where the best hash join catches up with the best INLJ goes to
 * {@code index-join-crossover.csv}. {@code --preset target} is the target measurement in one call
 * ({@link IndexJoinBenchmarkArgs}). {@code IndexJoinChart} draws the CSV (on a machine with fonts), and the adapter's
 * {@code SpillwayIndexJoinPredictions} adds what the cost model predicts and picks at each point.
 *
 * <p>Usage: see {@link IndexJoinBenchmarkArgs}; docs/bench/index-join/README.md gives the command lines.
 */
public final class IndexJoinBenchmark {
  private final IndexJoinBenchmarkArgs options;
  private final CudaDevice device;
  private final BenchReport report = new BenchReport("Windowed index join against hash joins", List.of("sweep",
      "case", "R GiB", "R rows", "S rows", "selectivity %", "window MiB", "windows", "reach", "slices", "join",
      "device", "line", "ms", "total ms", "M keys/s", "Q/s", "note"));
  private final long started = System.nanoTime();
  /** Joins ("join device") that exceeded the point limit, and the case where they did. */
  private final Map<String, String> overLimit = new HashMap<>();
  /** Joins that ran their warm-up ({@code --warmup-once}). */
  private final Set<String> warm = new HashSet<>();

  private IndexJoinBenchmark(IndexJoinBenchmarkArgs options, CudaDevice device) {
    this.options = options;
    this.device = device;
  }

  /** One case of a sweep: what the report's first columns say of it. */
  private record Case(String sweep, String label, long rRows, int sRows, long windowBytes) {}

  /**
   * A join as the report names it: {@code join} on {@code where} (gpu, cpu); the GPU index joins also by the
   * translation reach of their lookups ({@code reach}, "" for any other join) and the launches a window's lookups
   * take ({@code slices}, null for any other join). The engine's reach ({@link TranslationSlices#configuredReach})
   * keeps the join's plain line, which the cost model's predictions are read against; any other is a line of its own.
   */
  private record Point(String join, String where, String reach, Integer slices) {
    static Point of(String join, String where) {
      return new Point(join, where, "", null);
    }

    String line() {
      boolean plain = reach.isEmpty() || reach.equals(TranslationSlices.describe(TranslationSlices.configuredReach()));
      return join + " " + where + (plain ? "" : " reach " + reach);
    }
  }

  /** One execution of a join: returns its own time in nanoseconds (CUDA events), or -1 for the wall clock. */
  @FunctionalInterface
  private interface Execution {
    long run(BooleanSupplier cancelled);
  }

  private void run() throws IOException {
    Files.createDirectories(options.out());
    boolean sweepsR = !options.selectivities().isEmpty() || !options.windows().isEmpty();
    double largest = Math.max(options.sizesGib().stream().mapToDouble(g -> g).max().orElse(0),
        sweepsR ? options.sweepGib() : 0);
    if (largest == 0) {
      System.out.println("no sweep to run");
      return;
    }
    try (BufferAllocator allocator = device != null ? ArrowAllocators.root(HostMemoryKind.PINNED)
        : new RootAllocator();
         Relation all = new Relation(allocator, rowsOf(largest), options.threads())) {
      for (double gib : options.sizesGib()) {
        try (Relation r = all.prefix(rowsOf(gib))) {
          System.out.printf(Locale.ROOT, "%6.1f s  R %s GiB: the first %d keys of the %.1f GiB written%n",
              elapsedSeconds(), gib, r.rows, largest);
          if (options.sizeSelectivities().isEmpty()) {
            measure(allocator, r, new Case("size", "R " + gib + " GiB", r.rows, options.probeKeys(),
                WindowedIndexJoin.windowBytesFor(r.rows)), true);
          }
          for (double selectivity : options.sizeSelectivities()) {
            int sRows = probeRows(r, selectivity);
            if (sRows > 0) {
              measure(allocator, r, new Case(sizeSweep(selectivity), "R " + gib + " GiB sel " + selectivity + "%",
                  r.rows, sRows, WindowedIndexJoin.windowBytesFor(r.rows)), true);
            }
          }
        }
      }
      if (sweepsR) {
        try (Relation r = all.prefix(rowsOf(options.sweepGib()))) {
          for (double selectivity : options.selectivities()) {
            int sRows = probeRows(r, selectivity);
            if (sRows > 0) {
              measure(allocator, r, new Case("selectivity", "sel " + selectivity + "%", r.rows, sRows,
                  WindowedIndexJoin.windowBytesFor(r.rows)), true);
            }
          }
          for (int log : options.windows()) {
            measure(allocator, r, new Case("window", "W 2^" + log, r.rows, options.probeKeys(),
                (1L << log) * Long.BYTES), false);
          }
        }
      }
    }
    System.out.println(report.toTable());
    report.writeCsv(options.out().resolve("index-join.csv"));
    BenchReport crossovers = crossovers();
    System.out.println(crossovers.toTable());
    crossovers.writeCsv(options.out().resolve("index-join-crossover.csv"));
    System.out.printf(Locale.ROOT, "done in %.1f s%n", elapsedSeconds());
  }

  private static long rowsOf(double gib) {
    return Math.max(1, Math.round(gib * (1L << 30) / Long.BYTES));
  }

  /** The sweep over R's size at a selectivity: a chart and a crossover of its own. */
  static String sizeSweep(double selectivity) {
    return "size " + selectivity + "%";
  }

  /** |S| at {@code selectivity} percent of R's keys, or 0 (said why) where a join index cannot number them. */
  private static int probeRows(Relation r, double selectivity) {
    long sRows = Math.max(1, Math.round(r.rows * selectivity / 100));
    if (sRows > Integer.MAX_VALUE - 8) {
      System.out.printf("selectivity %s%% of %d rows: %d probe keys exceed a join index, skipped%n", selectivity,
          r.rows, sRows);
      return 0;
    }
    return (int) sRows;
  }

  /**
   * Runs every join of the case ({@code hashJoins} false: the index joins only) and reports each: the GPU's joins
   * first (the index joins, then the hash joins in the order {@code --joins} names them), then the CPU's, so that a
   * run whose budget ends within a case has the GPU's comparison. A case whose probe would start after the budget is
   * spent reports its joins as skipped without drawing it.
   */
  private void measure(BufferAllocator allocator, Relation r, Case c, boolean hashJoins) {
    if (budgetSpent()) {
      skipCase(c, hashJoins);
      return;
    }
    try (Probe s = Probe.draw(allocator, r.rows, c.sRows(), options.missShare(), c.rRows() ^ c.sRows())) {
      for (IndexKind kind : options.kinds()) {
        for (long reach : device != null ? options.reaches() : List.<Long>of()) {
          SortedKeyIndex index = r.index(kind);
          try (GpuWindowedIndexJoin join = new GpuWindowedIndexJoin(device, index, c.windowBytes(), reach)) {
            int tuples = join.windowTuples(Long.BYTES);
            Point point = new Point("inlj/" + kind, "gpu", TranslationSlices.describe(reach), join.slicesPerWindow());
            time(c, point, (c.sRows() + tuples - 1) / tuples, cancelled -> {
              checkIndex(join.join(s.hostColumn(), null, JoinType.INNER, cancelled), s, kind);
              return join.lastStats().gpuNanos();
            });
          }
        }
      }
      for (String name : hashJoins ? options.joins() : List.<String>of()) {
        if (gpuHashJoin(name)) {
          hashJoin(r, c, s, name);
        }
      }
      for (IndexKind kind : options.kinds()) {
        if (options.runs("cpu-inlj")) {
          WindowedIndexJoin join = new WindowedIndexJoin(r.index(kind), c.windowBytes(), options.threads());
          time(c, Point.of("inlj/" + kind, "cpu"), join.windowCount(c.sRows()), cancelled -> {
            checkIndex(join.join(s.keys(), null, JoinType.INNER, cancelled), s, kind);
            return -1;
          });
        }
      }
      for (String name : hashJoins ? options.joins() : List.<String>of()) {
        if (!gpuHashJoin(name)) {
          hashJoin(r, c, s, name);
        }
      }
    }
  }

  /** The joins a case would run, each reported as skipped: the budget was spent before the case began. */
  private void skipCase(Case c, boolean hashJoins) {
    for (IndexKind kind : options.kinds()) {
      for (long reach : device != null ? options.reaches() : List.<Long>of()) {
        skipped(c, new Point("inlj/" + kind, "gpu", TranslationSlices.describe(reach), null), "budget spent");
      }
      if (options.runs("cpu-inlj")) {
        skipped(c, Point.of("inlj/" + kind, "cpu"), "budget spent");
      }
    }
    for (String name : hashJoins ? options.joins() : List.<String>of()) {
      boolean gpu = gpuHashJoin(name);
      if (!name.equals("cpu-inlj") && (!gpu || device != null)) {
        skipped(c, Point.of(name, gpu ? "gpu" : "cpu"), "budget spent");
      }
    }
  }

  private static boolean gpuHashJoin(String name) {
    return name.equals("nopa") || name.equals("triton");
  }

  private void hashJoin(Relation r, Case c, Probe s, String name) {
    if (gpuHashJoin(name)) {
      if (device == null) {
        return;
      }
      try (GpuEquiJoin join = name.equals("nopa") ? new NopaHashJoin(device) : new TritonJoin(device)) {
        HostJoinInput build = HostJoinInput.of(s.hostColumn(), s.hostColumn());
        HostJoinInput probe = HostJoinInput.of(r.hostColumn(), r.hostColumn());
        time(c, Point.of(name, "gpu"), null, cancelled -> {
          checkSums(join.join(build, probe, JoinType.INNER, JoinOutput.AGGREGATED), s, name);
          return join.lastStats().totalNanos();
        });
      }
    } else if (name.equals("cpu-nopa") || name.equals("cpu-radix")) {
      long[] rKeys = r.javaKeys();
      if (rKeys == null) {
        skipped(c, Point.of(name, "cpu"), "R of " + r.rows + " rows exceeds a Java array");
        return;
      }
      try (EquiJoin join = name.equals("cpu-nopa") ? new CpuNopaHashJoin(options.threads())
          : new CpuRadixJoin(options.threads())) {
        JoinInput build = JoinInput.of(s.keys(), s.keys());
        JoinInput probe = JoinInput.of(rKeys, rKeys);
        time(c, Point.of(name, "cpu"), null, cancelled -> {
          checkSums(join.join(build, probe, JoinType.INNER, JoinOutput.AGGREGATED), s, name);
          return -1;
        });
      }
    }
  }

  /**
   * Runs a point: one warm-up (unless {@code --warmup-once} and the join had one), then {@link
   * IndexJoinBenchmarkArgs#runs} runs, and reports the medians. Within the point limit: an execution that starts
   * after it is not run, one that is still running is cancelled where the join can be (the index joins, between
   * windows); a warm-up that took half the limit counts as the run (the code it warms ran on the earlier cases).
   * {@code windows}: the windows an index join cuts S into, which its row records (null for a hash join).
   */
  private void time(Case c, Point point, Integer windows, Execution execution) {
    String key = point.line();
    if (overLimit.containsKey(key)) {
      skipped(c, point, "skipped: over the point limit at " + overLimit.get(key));
      return;
    }
    if (budgetSpent()) {
      skipped(c, point, "budget spent");
      return;
    }
    double limit = options.pointLimitSeconds();
    long deadline = limit > 0 ? System.nanoTime() + (long) (limit * 1e9) : Long.MAX_VALUE;
    BooleanSupplier cancelled = () -> System.nanoTime() > deadline;
    boolean warmUp = !(options.warmupOnce() && warm.contains(key));
    List<double[]> runs = new ArrayList<>();  // own ms, wall ms
    String note = "";
    try {
      for (int i = warmUp ? -1 : 0; i < options.runs(); i++) {
        if (cancelled.getAsBoolean()) {
          note = "stopped after " + runs.size() + " run(s) at the " + limit + " s point limit";
          overLimit.put(key, c.label());
          break;
        }
        long start = System.nanoTime();
        long nanos = execution.run(cancelled);
        long elapsed = System.nanoTime() - start;
        double[] run = {(nanos < 0 ? elapsed : nanos) / 1e6, elapsed / 1e6};
        warm.add(key);
        if (i >= 0 || limit > 0 && elapsed > limit * 1e9 / 2) {
          runs.add(run);
          note = i < 0 ? "warm-up counted (a long run)" : note;
        }
        if (i < 0 && !runs.isEmpty()) {
          break;
        }
      }
    } catch (WrongResult e) {
      throw e;
    } catch (CancellationException e) {
      overLimit.put(key, c.label());
      note = "stopped at the " + limit + " s point limit" + (runs.isEmpty() ? "" : " after " + runs.size() + " run(s)");
    } catch (RuntimeException e) {  // a join that cannot run this case (memory, limits) leaves the others running
      note = e.getClass().getSimpleName() + ": " + e.getMessage();
      runs.clear();
    }
    if (limit > 0 && System.nanoTime() > deadline) {
      overLimit.put(key, c.label());
    }
    if (runs.isEmpty()) {
      skipped(c, point, note);
      return;
    }
    double ms = median(runs.stream().mapToDouble(r -> r[0]).toArray());
    double wall = median(runs.stream().mapToDouble(r -> r[1]).toArray());
    row(c, point, windows, ms, wall, note);
    System.out.printf(Locale.ROOT, "%6.1f s  %-11s %-14s %-34s %10.2f ms %s%n", elapsedSeconds(), c.sweep(),
        c.label(), point.line(), ms, note);
  }

  /** A point without a time: skipped, stopped or failed, {@code note} says which. */
  private void skipped(Case c, Point point, String note) {
    row(c, point, null, Double.NaN, Double.NaN, note);
    System.out.printf(Locale.ROOT, "%6.1f s  %-11s %-14s %-34s %s%n", elapsedSeconds(), c.sweep(), c.label(),
        point.line(), note);
  }

  /** Adds a point to the table and rewrites the CSV, so that a run cut short keeps what it measured. */
  private void row(Case c, Point point, Integer windows, double ms, double wall, String note) {
    report.row(c.sweep(), c.label() + " " + point.line(), gib(c.rRows()), c.rRows(), c.sRows(), selectivity(c),
        c.windowBytes() / 1048576.0, windows, point.reach(), point.slices(), point.join(), point.where(),
        point.line(), ms, wall, c.sRows() / ms / 1e3, 1e3 / ms, note);
    try {
      report.writeCsv(options.out().resolve("index-join.csv"));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write " + options.out().resolve("index-join.csv"), e);
    }
  }

  private boolean budgetSpent() {
    return options.budgetSeconds() > 0 && elapsedSeconds() > options.budgetSeconds();
  }

  private double elapsedSeconds() {
    return (System.nanoTime() - started) / 1e9;
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

  /** The probe keys R holds each match their own row: that many pairs, whose rows sum to theirs. */
  private static void checkIndex(JoinIndex index, Probe s, IndexKind kind) {
    long sum = Arrays.stream(index.buildRows()).parallel().sum();
    if (index.size() != s.matches() || sum != s.matchedRowSum()) {
      throw new WrongResult("INLJ through " + kind + " found " + index.size() + " pairs (rows summing to "
          + sum + "), expected " + s.matches() + " (summing to " + s.matchedRowSum() + ")");
    }
  }

  /** As many pairs as probe keys R holds, whose payloads (the keys on both sides) sum to those keys. */
  private static void checkSums(JoinResult result, Probe s, String join) {
    if (result.rowCount() != s.matches() || result.buildPayloadSum() != s.matchedKeySum()
        || result.probePayloadSum() != s.matchedKeySum()) {
      throw new WrongResult(join + " joined " + result.rowCount() + " pairs (sums " + result
          .buildPayloadSum() + ", " + result.probePayloadSum() + "), expected " + s.matches() + " (sum "
          + s.matchedKeySum() + ")");
    }
  }

  /**
   * Where the best hash join catches up with the best index join, per sweep and device class of the index join:
   * along the selectivity sweep (the INLJ wins below it) and the size sweep (the INLJ wins above it).
   */
  private BenchReport crossovers() {
    BenchReport out = new BenchReport("Crossover of the best INLJ and the best hash join", List.of("sweep",
        "INLJ device", "crossover", "unit", "note"));
    for (String sweep : sweeps(report)) {
      if (sweep.equals("window")) {  // index joins only
        continue;
      }
      boolean bySize = sweep.startsWith("size");
      for (String where : List.of("gpu", "cpu")) {
        List<double[]> points = new ArrayList<>();  // x, best INLJ ms, best hash ms
        for (int row = 0; row < report.rowCount(); row++) {
          if (!report.cell(row, "sweep").equals(sweep)) {
            continue;
          }
          double x = ((Number) report.cell(row, bySize ? "R GiB" : "selectivity %")).doubleValue();
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
        out.row(sweep, where, at, bySize ? "R GiB" : "selectivity %", note);
      }
    }
    return out;
  }

  /** The sweeps of {@code report}, in the order of their first rows. */
  static List<String> sweeps(BenchReport report) {
    Set<String> sweeps = new LinkedHashSet<>();
    for (int row = 0; row < report.rowCount(); row++) {
      sweeps.add(report.cell(row, "sweep").toString());
    }
    return List.copyOf(sweeps);
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
    System.out.printf("Index join: R %s GiB, |S| %d, selectivities %s%%, sweep R %s GiB, windows 2^%s, kinds %s,"
        + " GPU INLJ translation reaches %s, joins %s, %d runs, %s misses, point limit %s s, budget %s s, %d threads,"
        + " %s, Java %s%n",
        options.sizesGib(), options.probeKeys(), options.selectivities(), options.sweepGib(), options.windows(),
        options.kinds(), options.reaches().stream().map(TranslationSlices::describe).toList(), options.joins(),
        options.runs(), options.missShare(), options.pointLimitSeconds(),
        options.budgetSeconds(), options.threads(), device == null ? "CPU only" : device.toString(),
        Runtime.version());
    new IndexJoinBenchmark(options, device).run();
  }
}
