package org.spillway.gpu.bench;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import org.spillway.gpu.join.hash.JoinHashTable;
import org.spillway.gpu.pipeline.scheduler.MorselScheduler;
import org.spillway.gpu.join.nopa.CpuNopaHashJoin;
import org.spillway.gpu.join.radix.CpuRadixJoin;
import org.spillway.gpu.join.EquiJoin;
import org.spillway.gpu.join.JoinInput;
import org.spillway.gpu.join.JoinOutput;
import org.spillway.gpu.join.JoinResult;
import org.spillway.gpu.join.JoinType;

/**
 * Throughput of the CPU joins on Pump Up the Volume's workloads, scaled down: A (8/8 B, |R| = |S|/16),
 * B (8/8 B, small R), C (4/4 B, |R| = |S|, widened to 8 B in Java) and the build:probe sweep 1:1 to 1:32.
 * Keys are foreign keys with exactly one match per probe tuple; the output is fused into count and sums.
 * Per case: one warm-up, then the median of the timed runs, each checked against the known answer.
 *
 * <p>The pipelined engine's {@link JoinHashTable} gets cases of its own (suite {@code table}): its build, then its
 * probe as the pipeline's probe runs it (first matches 64 probe rows at a time, then the following ones), on sparse
 * unique keys that all hit, on a build side filtered to one key in 16 (most probes miss, as in Q9 and Q21), and on
 * four build rows per key.
 *
 * <p>Usage: {@code CpuJoinBenchmark [--out DIR] [--threads N] [--runs N] [--shift N] [--suite joins|table|all]};
 * {@code --shift} divides every size by {@code 2^N} (default 0: A is 2^22 x 2^26).
 */
public final class CpuJoinBenchmark {
  private static final long SCRAMBLE = 0xD6E8FEB86659FD93L;
  /** Probe rows a {@link JoinHashTable} probe task takes, as a pipeline's morsel. */
  private static final int TABLE_MORSEL = 1 << 14;
  /** Probe rows whose first matches are looked up together, as the pipeline's probe does. */
  private static final int TABLE_GROUP = 64;

  private final int threads;
  private final int runs;
  private final int shift;
  private final BenchReport workloads;
  private final BenchReport ratios;
  private final BenchReport table;

  private CpuJoinBenchmark(int threads, int runs, int shift) {
    this.threads = threads;
    this.runs = runs;
    this.shift = shift;
    List<String> columns = List.of("case", "algorithm", "variant", "threads", "R rows", "S rows", "median ms",
        "min ms", "max ms", "G tuples/s");
    this.workloads = new BenchReport("CPU joins, Pump's workloads scaled down (G tuples/s, median of " + runs + ")",
        columns);
    this.ratios = new BenchReport("CPU joins, build:probe 1:1 to 1:32, |R| = 2^" + (21 - shift)
        + " (G tuples/s, median of " + runs + ")", columns);
    this.table = new BenchReport("Pipelined join hash table, build and probe (median of " + runs + ")",
        List.of("case", "threads", "R rows", "S rows", "build ms", "build CPU ms", "probe ms", "probe CPU ms",
            "probe G rows/s", "matches"));
  }

  /** One join input pair with the answer every run must reproduce. */
  private record Workload(String name, JoinInput build, JoinInput probe, long probeSum) {
    long tuples() {
      return (long) build.rows() + probe.rows();
    }
  }

  /**
   * R: a shuffled dense primary key 0..r-1 (scrambled by an odd multiplier when {@code sparse}, which
   * forces NOPA off the perfect-hash array); S: uniform foreign keys into R.
   */
  static Workload foreignKeyWorkload(String name, int r, int s, boolean sparse, boolean fourByte, long seed) {
    SplittableRandom random = new SplittableRandom(seed);
    long[] buildKeys = new long[r];
    long[] buildPayloads = new long[r];
    for (int i = 0; i < r; i++) {
      buildKeys[i] = i;
    }
    for (int i = r - 1; i > 0; i--) {
      int j = random.nextInt(i + 1);
      long t = buildKeys[i];
      buildKeys[i] = buildKeys[j];
      buildKeys[j] = t;
    }
    long[] probeKeys = new long[s];
    long[] probePayloads = new long[s];
    long probeSum = 0;
    // Payloads below 2^31 fit workload C's 4-byte columns too.
    for (int i = 0; i < r; i++) {
      buildPayloads[i] = random.nextInt(Integer.MAX_VALUE);
    }
    for (int i = 0; i < s; i++) {
      probeKeys[i] = random.nextInt(r);
      probePayloads[i] = random.nextInt(Integer.MAX_VALUE);
      probeSum += probePayloads[i];
    }
    if (sparse) {
      scramble(buildKeys);
      scramble(probeKeys);
    }
    if (fourByte) {
      return new Workload(name, JoinInput.ofInts(narrow(buildKeys), narrow(buildPayloads)),
          JoinInput.ofInts(narrow(probeKeys), narrow(probePayloads)), probeSum);
    }
    return new Workload(name, JoinInput.of(buildKeys, buildPayloads), JoinInput.of(probeKeys, probePayloads),
        probeSum);
  }

  private static void scramble(long[] keys) {
    for (int i = 0; i < keys.length; i++) {
      keys[i] = keys[i] * SCRAMBLE;
    }
  }

  private static int[] narrow(long[] values) {
    return Arrays.stream(values).mapToInt(Math::toIntExact).toArray();
  }

  /** Times {@code join} on {@code w}: a warm-up, then {@code runs} checked runs; adds a row to {@code report}. */
  private void measure(BenchReport report, Workload w, EquiJoin join, int joinThreads, JoinOutput output) {
    double[] seconds = new double[runs];
    String variant = "";
    for (int run = -1; run < runs; run++) {
      long start = System.nanoTime();
      JoinResult result = join.join(w.build(), w.probe(), JoinType.INNER, output);
      long elapsed = System.nanoTime() - start;
      check(w, result);
      variant = result.algorithm() + (output == JoinOutput.MATERIALIZED ? " materialized" : "");
      if (run >= 0) {
        seconds[run] = elapsed / 1e9;
      }
    }
    Arrays.sort(seconds);
    double median = seconds[runs / 2];
    report.row(w.name(), join.name(), variant, joinThreads, w.build().rows(), w.probe().rows(), median * 1e3,
        seconds[0] * 1e3, seconds[runs - 1] * 1e3, w.tuples() / median / 1e9);
    System.out.printf("%-28s %-6s %-34s %d threads: %.3f s, %.3f G tuples/s%n", w.name(), join.name(), variant,
        joinThreads, median, w.tuples() / median / 1e9);
  }

  /** Every probe tuple has exactly one match, so the count and the probe payload sum are known. */
  private static void check(Workload w, JoinResult result) {
    if (result.rowCount() != w.probe().rows()) {
      throw new IllegalStateException(w.name() + ": " + result.algorithm() + " produced " + result.rowCount()
          + " rows, expected " + w.probe().rows());
    }
    if (result.output() == JoinOutput.AGGREGATED && result.probePayloadSum() != w.probeSum()) {
      throw new IllegalStateException(w.name() + ": " + result.algorithm() + " probe payload sum "
          + result.probePayloadSum() + ", expected " + w.probeSum());
    }
  }

  private void runAll(Workload w, BenchReport report, boolean alsoOneThreadAndMaterialized) {
    List<EquiJoin> joins = new ArrayList<>(List.of(new CpuNopaHashJoin(threads), new CpuRadixJoin(threads)));
    try {
      for (EquiJoin join : joins) {
        measure(report, w, join, threads, JoinOutput.AGGREGATED);
      }
      if (alsoOneThreadAndMaterialized) {
        for (EquiJoin join : joins) {
          measure(report, w, join, threads, JoinOutput.MATERIALIZED);
        }
        try (EquiJoin nopa = new CpuNopaHashJoin(1); EquiJoin radix = new CpuRadixJoin(1)) {
          measure(report, w, nopa, 1, JoinOutput.AGGREGATED);
          measure(report, w, radix, 1, JoinOutput.AGGREGATED);
        }
      }
    } finally {
      joins.forEach(EquiJoin::close);
    }
  }

  private int size(int log2) {
    return 1 << (log2 - shift);
  }

  /**
   * A build side of {@code r} sparse keys ({@code duplicates} rows each) of which one in {@code keep} is kept (the
   * others NULL, as a filter below the build would drop them), probed by {@code s} keys drawn from all {@code r}.
   */
  private void measureTable(String name, int r, int duplicates, int keep, int s, long seed) {
    SplittableRandom random = new SplittableRandom(seed);
    long[] buildKeys = new long[r * duplicates];
    long[] validity = new long[(buildKeys.length + 63) / 64];
    long[] payloads = new long[buildKeys.length];
    long[] hitsPerKey = new long[r];
    for (int i = 0; i < buildKeys.length; i++) {
      buildKeys[i] = i % r;
    }
    for (int i = buildKeys.length - 1; i > 0; i--) {
      int j = random.nextInt(i + 1);
      long t = buildKeys[i];
      buildKeys[i] = buildKeys[j];
      buildKeys[j] = t;
    }
    for (int i = 0; i < buildKeys.length; i++) {
      int key = (int) buildKeys[i];
      buildKeys[i] = key * SCRAMBLE;
      payloads[i] = random.nextInt(1 << 20);
      if (key % keep == 0) {
        validity[i >>> 6] |= 1L << i;
        hitsPerKey[key]++;
      }
    }
    long[] probeKeys = new long[s];
    long expected = 0;
    for (int i = 0; i < s; i++) {
      int key = random.nextInt(r);
      probeKeys[i] = key * SCRAMBLE;
      expected += hitsPerKey[key];
    }
    double[] buildSeconds = new double[runs];
    double[] probeSeconds = new double[runs];
    double[] buildCpuSeconds = new double[runs];
    double[] probeCpuSeconds = new double[runs];
    int morsels = (s + TABLE_MORSEL - 1) / TABLE_MORSEL;
    for (int run = -1; run < runs; run++) {
      long start = System.nanoTime();
      long startCpu = processCpuNanos();
      JoinHashTable hashTable = JoinHashTable.build(buildKeys, validity, buildKeys.length, threads, () -> false);
      long built = System.nanoTime();
      long builtCpu = processCpuNanos();
      long[] matches = new long[morsels];
      long[] sums = new long[morsels];
      MorselScheduler.forEach(morsels, threads, () -> false, (w, m) -> {
        int[] firsts = new int[TABLE_GROUP];
        JoinHashTable.ProbeScratch scratch = new JoinHashTable.ProbeScratch(TABLE_GROUP);
        long count = 0;
        long sum = 0;
        for (int from = m * TABLE_MORSEL, end = Math.min(s, from + TABLE_MORSEL); from < end; from += TABLE_GROUP) {
          int to = Math.min(end, from + TABLE_GROUP);
          hashTable.firsts(probeKeys, null, from, to, firsts, scratch);
          for (int i = 0; i < to - from; i++) {
            for (int p = firsts[i]; p >= 0; p = hashTable.next(p)) {
              count++;
              sum += payloads[hashTable.row(p)];
            }
          }
        }
        matches[m] = count;
        sums[m] = sum;
      });
      long probed = System.nanoTime();
      long probedCpu = processCpuNanos();
      long total = Arrays.stream(matches).sum();
      if (total != expected || Arrays.stream(sums).sum() < 0) {
        throw new IllegalStateException(name + ": " + total + " matches, expected " + expected);
      }
      if (run >= 0) {
        buildSeconds[run] = (built - start) / 1e9;
        probeSeconds[run] = (probed - built) / 1e9;
        buildCpuSeconds[run] = (builtCpu - startCpu) / 1e9;
        probeCpuSeconds[run] = (probedCpu - builtCpu) / 1e9;
      }
    }
    double build = median(buildSeconds);
    double probe = median(probeSeconds);
    double buildCpu = median(buildCpuSeconds);
    double probeCpu = median(probeCpuSeconds);
    table.row(name, threads, buildKeys.length, s, build * 1e3, buildCpu * 1e3, probe * 1e3, probeCpu * 1e3,
        s / probe / 1e9, expected);
    System.out.printf("%-36s %d threads: build %.1f ms (CPU %.1f ms), probe %.1f ms (CPU %.1f ms), %.3f G probe"
        + " rows/s%n", name, threads, build * 1e3, buildCpu * 1e3, probe * 1e3, probeCpu * 1e3, s / probe / 1e9);
  }

  private static double median(double[] values) {
    double[] sorted = values.clone();
    Arrays.sort(sorted);
    return sorted[sorted.length / 2];
  }

  /**
   * CPU time of the whole process: on a machine shared with other work, wall time counts the waits for a core, CPU
   * time only the work.
   */
  private static long processCpuNanos() {
    return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
        .getProcessCpuTime();
  }

  private void runTable() {
    measureTable("table unique, all hit", size(22), 1, 1, size(25), 21);
    measureTable("table unique, build 1 in 16", size(22), 1, 16, size(25), 22);
    measureTable("table 4 rows per key, all hit", size(20), 4, 1, size(25), 23);
    measureTable("table 4 rows per key, build 1 in 16", size(20), 4, 16, size(25), 24);
    System.out.println(table.toTable());
  }

  private void run(Path out) throws IOException {
    runAll(foreignKeyWorkload("A dense 8/8B", size(22), size(26), false, false, 1), workloads, true);
    runAll(foreignKeyWorkload("A sparse 8/8B", size(22), size(26), true, false, 2), workloads, false);
    runAll(foreignKeyWorkload("B dense 8/8B", size(13), size(26), false, false, 3), workloads, false);
    runAll(foreignKeyWorkload("C dense 4/4B", size(25), size(25), false, true, 4), workloads, false);
    for (int ratio = 1; ratio <= 32; ratio *= 2) {
      runAll(foreignKeyWorkload("1:" + ratio + " sparse 8/8B", size(21), size(21) * ratio, true, false, 10 + ratio),
          ratios, false);
    }
    System.out.println();
    System.out.println(workloads.toTable());
    System.out.println(ratios.toTable());
    Files.createDirectories(out);
    workloads.writeCsv(out.resolve("workloads.csv"));
    ratios.writeCsv(out.resolve("ratios.csv"));
    labelled(workloads).writeBarChart(out.resolve("workloads.png"), "label", "G tuples/s", "G tuples/s", 0, "");
    labelled(ratios).writeBarChart(out.resolve("ratios.png"), "label", "G tuples/s", "G tuples/s", 0, "");
  }

  /** The report with a bar label (case, algorithm, threads, output) in front, for the chart. */
  private static BenchReport labelled(BenchReport report) {
    List<String> columns = new ArrayList<>(List.of("label"));
    columns.addAll(report.columns());
    BenchReport out = new BenchReport(report.title(), columns);
    for (int i = 0; i < report.rowCount(); i++) {
      Object[] row = new Object[columns.size()];
      String variant = report.cell(i, "variant").toString();
      row[0] = report.cell(i, "case") + " " + report.cell(i, "algorithm") + " "
          + ((Number) report.cell(i, "threads")).intValue() + "T" + (variant.endsWith("materialized") ? " mat" : "");
      for (int c = 0; c < report.columns().size(); c++) {
        row[c + 1] = report.cell(i, report.columns().get(c));
      }
      out.row(row);
    }
    return out;
  }

  public static void main(String[] args) throws IOException {
    Path out = Path.of("docs/bench/cpu-join");
    int threads = Runtime.getRuntime().availableProcessors();
    int runs = 5;
    int shift = 0;
    String suite = "all";
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--out" -> out = Path.of(args[++i]);
        case "--threads" -> threads = Integer.parseInt(args[++i]);
        case "--runs" -> runs = Integer.parseInt(args[++i]);
        case "--shift" -> shift = Integer.parseInt(args[++i]);
        case "--suite" -> suite = args[++i];
        default -> throw new IllegalArgumentException("unknown argument '" + args[i]
            + "'; usage: CpuJoinBenchmark [--out DIR] [--threads N] [--runs N] [--shift N] [--suite joins|table|all]");
      }
    }
    if (shift < 0 || shift > 12 || runs < 1 || !List.of("joins", "table", "all").contains(suite)) {
      throw new IllegalArgumentException("--shift must be 0..12, --runs at least 1 and --suite joins, table or all,"
          + " got " + shift + ", " + runs + ", " + suite);
    }
    System.out.printf("CPU joins: %d threads, %d runs, sizes / 2^%d, Java %s%n", threads, runs, shift,
        Runtime.version());
    CpuJoinBenchmark benchmark = new CpuJoinBenchmark(threads, runs, shift);
    if (!suite.equals("joins")) {
      benchmark.runTable();
    }
    if (!suite.equals("table")) {
      benchmark.run(out);
    }
  }
}
