package org.spillway.gpu.bench;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.spillway.gpu.index.IndexKind;
import org.spillway.gpu.pipeline.scheduler.MorselScheduler;

/** The arguments of {@link IndexJoinBenchmark}, parsed and checked. */
record IndexJoinBenchmarkArgs(Path out, List<Double> sizesGib, int probeKeys, List<Double> selectivities,
    double sweepGib, List<Integer> windows, List<IndexKind> kinds, List<String> joins, int runs, int threads,
    boolean cpuOnly) {
  private static final String USAGE = "IndexJoinBenchmark [--out DIR] [--sizes GIB,...] [--probe-keys N]"
      + " [--selectivities PERCENT,...] [--sweep-gib GIB] [--windows LOG2,...] [--kinds BINARY_SEARCH,...]"
      + " [--joins nopa,triton,cpu-inlj,cpu-nopa,cpu-radix] [--runs N] [--threads N] [--cpu-only]";
  private static final List<String> JOINS = List.of("nopa", "triton", "cpu-inlj", "cpu-nopa", "cpu-radix");

  static IndexJoinBenchmarkArgs parse(String[] args) {
    Path out = Path.of("docs/bench/index-join");
    List<Double> sizes = List.of(1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0);
    int probeKeys = 1 << 26;
    List<Double> selectivities = List.of(0.01, 0.1, 0.5, 1.0, 2.0, 5.0, 10.0, 20.0);
    double sweepGib = 8;
    List<Integer> windows = List.of(18, 20, 22, 24, 26);
    List<IndexKind> kinds = List.of(IndexKind.values());
    List<String> joins = JOINS;
    int runs = 5;
    int threads = MorselScheduler.THREADS;
    boolean cpuOnly = false;
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--out" -> out = Path.of(value(args, ++i));
        case "--sizes" -> sizes = doubles(value(args, ++i));
        case "--probe-keys" -> probeKeys = Integer.parseInt(value(args, ++i));
        case "--selectivities" -> selectivities = doubles(value(args, ++i));
        case "--sweep-gib" -> sweepGib = Double.parseDouble(value(args, ++i));
        case "--windows" -> windows = Arrays.stream(value(args, ++i).split(",")).map(Integer::valueOf).toList();
        case "--kinds" -> kinds = Arrays.stream(value(args, ++i).split(",")).map(IndexKind::valueOf).toList();
        case "--joins" -> joins = List.of(value(args, ++i).split(","));
        case "--runs" -> runs = Integer.parseInt(value(args, ++i));
        case "--threads" -> threads = Integer.parseInt(value(args, ++i));
        case "--cpu-only" -> cpuOnly = true;
        default -> throw new IllegalArgumentException("unknown argument '" + args[i] + "'; usage: " + USAGE);
      }
    }
    List<String> unknown = new ArrayList<>(joins);
    unknown.removeAll(JOINS);
    boolean positive = sizes.stream().allMatch(s -> s > 0) && sweepGib > 0
        && selectivities.stream().allMatch(s -> s > 0 && s <= 100);
    if (!positive || probeKeys < 1 || runs < 1 || threads < 1 || !unknown.isEmpty()
        || windows.stream().anyMatch(w -> w < 5 || w > 28)) {
      throw new IllegalArgumentException("--sizes and --sweep-gib are positive GiB, --selectivities percent in"
          + " (0, 100], --probe-keys, --runs and --threads at least 1, --windows 5..28 (log2 keys), --joins of "
          + JOINS + "; got " + sizes + ", " + sweepGib + ", " + selectivities + ", " + probeKeys + ", " + runs
          + ", " + threads + ", " + windows + ", " + joins);
    }
    return new IndexJoinBenchmarkArgs(out, sizes, probeKeys, selectivities, sweepGib, windows, kinds, joins, runs,
        threads, cpuOnly);
  }

  private static String value(String[] args, int i) {
    if (i >= args.length) {
      throw new IllegalArgumentException(args[i - 1] + " needs a value; usage: " + USAGE);
    }
    return args[i];
  }

  private static List<Double> doubles(String text) {
    return Arrays.stream(text.split(",")).map(Double::valueOf).toList();
  }
}
