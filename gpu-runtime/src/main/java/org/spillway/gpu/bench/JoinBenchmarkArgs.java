package org.spillway.gpu.bench;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.spillway.gpu.transfer.TransferMethod;

/**
 * JoinBenchmark's options. {@code --quick} is a subset meant for one device call of a few minutes: sizes / 2^4,
 * 3 runs, three points per sweep, a 512 MiB emulated GPU budget; the full run (sizes / 2^3, 5 runs, every point
 * of the papers' sweeps, a 4 GiB budget) is the default. Options given after {@code --quick} override it.
 * {@code --sizes} sets log2 |R| = |S| of triton-scaling (default: working sets from 1/4 to 4x the budget);
 * {@code --host-memory} caps what a case may hold in host memory (default 85% of the machine's), and joins
 * that would need more are skipped with the reason; {@code --deadline} skips what would start that many seconds after
 * the JVM started; {@code --max-pairs} skips the joins of a case whose output has more rows; {@code --cpu-only} runs the
 * CPU joins and DuckDB without a GPU (data in plain memory), a dry run of the harness.
 */
record JoinBenchmarkArgs(Path out, int shift, int runs, List<String> experiments, List<String> joins,
    TransferMethod method, List<TransferMethod> methods, long budget, List<Double> ratios, List<Double> zipf,
    List<Double> zipfBoth, List<Double> selectivity, List<Integer> sizes, int cpuThreads, long hostMemory,
    long deadlineSeconds, long maxPairs, boolean cpuOnly, boolean quick) {
  static JoinBenchmarkArgs parse(String[] argv) {
    Builder b = new Builder();
    for (int i = 0; i < argv.length; i++) {
      String flag = argv[i];
      if (flag.equals("--quick") || flag.equals("--cpu-only")) {
        if (flag.equals("--quick")) {
          b.quick();
        } else {
          b.cpuOnly = true;
        }
        continue;
      }
      if (i + 1 >= argv.length) {
        throw new IllegalArgumentException("option " + flag + " needs a value");
      }
      String v = argv[++i];
      switch (flag) {
        case "--out" -> b.out = Path.of(v);
        case "--shift" -> b.shift = Integer.parseInt(v);
        case "--runs" -> b.runs = Integer.parseInt(v);
        case "--experiments" -> b.experiments = list(v);
        case "--joins" -> b.joins = list(v);
        case "--method" -> b.method = TransferMethod.parse(v);
        case "--methods" -> b.methods = JoinBenchmark.methods(v);
        case "--budget" -> b.budget = JoinBenchmark.bytes(v);
        case "--ratios" -> b.ratios = JoinBenchmark.doubles(v);
        case "--zipf" -> b.zipf = JoinBenchmark.doubles(v);
        case "--zipf-both" -> b.zipfBoth = JoinBenchmark.doubles(v);
        case "--selectivity" -> b.selectivity = JoinBenchmark.doubles(v);
        case "--sizes" -> b.sizes = list(v).stream().map(Integer::parseInt).toList();
        case "--cpu-threads" -> b.cpuThreads = Integer.parseInt(v);
        case "--host-memory" -> b.hostMemory = JoinBenchmark.bytes(v);
        case "--deadline" -> b.deadlineSeconds = Long.parseLong(v);
        case "--max-pairs" -> b.maxPairs = Long.parseLong(v);
        default -> throw new IllegalArgumentException("unknown option " + flag);
      }
    }
    return b.build();
  }

  private static List<String> list(String v) {
    return Arrays.stream(v.split(",")).map(String::trim).filter(s -> !s.isEmpty()).toList();
  }

  /** The options while parsing, starting from the full run's defaults. */
  private static final class Builder {
    Path out = Path.of("docs/bench/join");
    int shift = 3;
    int runs = 5;
    List<String> experiments = JoinBenchmark.EXPERIMENTS;
    // DuckDB before the CPU joins: it runs while the Java copies of the relations do not exist yet
    List<String> joins = List.of("nopa", "triton", "duckdb", "cpu-nopa", "cpu-radix");
    TransferMethod method = TransferMethod.ZERO_COPY;
    List<TransferMethod> methods = List.of(TransferMethod.ZERO_COPY, TransferMethod.PINNED_COPY,
        TransferMethod.STAGED_COPY, TransferMethod.PAGEABLE_COPY);
    long budget = 4L << 30;
    List<Double> ratios = List.of(1.0, 2.0, 4.0, 8.0, 16.0, 32.0);
    List<Double> zipf = List.of(0.0, 0.25, 0.5, 0.75, 1.0, 1.25, 1.5, 1.75);
    List<Double> zipfBoth = List.of(0.0, 0.25, 0.5, 0.75, 1.0);
    List<Double> selectivity = List.of(0.0, 0.1, 0.25, 0.5, 0.75, 1.0);
    List<Integer> sizes = List.of();
    int cpuThreads = Runtime.getRuntime().availableProcessors();
    long hostMemory;
    long deadlineSeconds;
    long maxPairs = 1L << 31;
    boolean cpuOnly;
    boolean quick;

    void quick() {
      quick = true;
      shift = 4;
      runs = 3;
      budget = 512L << 20;
      ratios = List.of(1.0, 4.0, 16.0);
      zipf = List.of(0.0, 1.0, 1.75);
      zipfBoth = List.of(0.0, 0.5, 0.75);
      selectivity = List.of(0.1, 0.5, 1.0);
    }

    JoinBenchmarkArgs build() {
      for (String e : experiments) {
        if (!JoinBenchmark.EXPERIMENTS.contains(e)) {
          throw new IllegalArgumentException("unknown experiment '" + e + "'; known: " + JoinBenchmark.EXPERIMENTS);
        }
      }
      if (shift < 0 || shift > 12 || runs < 1 || cpuThreads < 1) {
        throw new IllegalArgumentException("--shift must be 0..12, --runs and --cpu-threads at least 1");
      }
      if (budget < (16L << 20) || hostMemory < 0 || deadlineSeconds < 0 || maxPairs < 1) {
        throw new IllegalArgumentException("--budget must be at least 16m, --host-memory and --deadline >= 0,"
            + " --max-pairs >= 1");
      }
      for (int log : sizes) {
        if (log < 10 || log > 31) {
          throw new IllegalArgumentException("--sizes takes log2 |R| = |S| in 10..31, got " + log);
        }
      }
      return new JoinBenchmarkArgs(out, shift, runs, experiments, joins, method, methods, budget, ratios, zipf,
          zipfBoth, selectivity, sizes, cpuThreads, hostMemory, deadlineSeconds, maxPairs, cpuOnly, quick);
    }
  }
}
