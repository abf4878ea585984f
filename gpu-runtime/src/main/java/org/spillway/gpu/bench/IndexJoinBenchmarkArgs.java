package org.spillway.gpu.bench;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.spillway.gpu.index.IndexKind;
import org.spillway.gpu.join.inlj.TranslationSlices;
import org.spillway.gpu.pipeline.scheduler.MorselScheduler;

/**
 * The arguments of {@link IndexJoinBenchmark}, parsed and checked. A preset comes first; later arguments override it.
 * {@code --preset target} is issue #15's target measurement in one call: R of 32 GiB, |S| 0.01% to 20% of R's keys of
 * which 10% miss, RadixSpline and binary search on both devices against GPU NOPA and Triton, one run per point after
 * one warm-up per join, 30 s per point and 180 s in all. {@code --preset sizes} sweeps R over 1, 4, 16, 32 and 64 GiB
 * (prefixes of one allocation) at |S| of 0.1% and 1% of R's keys (10% misses), RadixSpline and binary search on both
 * devices against GPU NOPA (Triton's partitions of R would not fit beside R of 64 GiB in host memory), three runs per
 * point after one warm-up per join, 20 s per point and 240 s in all. {@code --reaches} lists the translation reaches
 * the GPU index joins run with, each a row of its own ({@code unlimited}, the default: one launch a window; a byte
 * count such as {@code 16g}: lookups in slices of that much of R, {@code TranslationSlices}).
 */
record IndexJoinBenchmarkArgs(Path out, List<Double> sizesGib, List<Double> sizeSelectivities, int probeKeys,
    List<Double> selectivities, double sweepGib, List<Integer> windows, List<IndexKind> kinds, List<Long> reaches,
    List<String> joins,
    int runs, int threads, boolean cpuOnly, double missShare, double pointLimitSeconds, double budgetSeconds,
    boolean warmupOnce) {
  private static final String USAGE = "IndexJoinBenchmark [--preset target|sizes] [--out DIR]"
      + " [--sizes GIB,...|none] [--size-selectivities PERCENT,...|none] [--probe-keys N]"
      + " [--selectivities PERCENT,...|none] [--sweep-gib GIB] [--windows LOG2,...|none]"
      + " [--kinds BINARY_SEARCH,...] [--reaches unlimited,16g,...] [--joins nopa,triton,cpu-inlj,cpu-nopa,cpu-radix] [--runs N] [--threads N]"
      + " [--miss-share FRACTION] [--point-limit-s S] [--budget-s S] [--warmup-once] [--cpu-only]";
  private static final List<String> JOINS = List.of("nopa", "triton", "cpu-inlj", "cpu-nopa", "cpu-radix");

  /** Whether a join named in {@code --joins} runs. */
  boolean runs(String join) {
    return joins.contains(join);
  }

  static IndexJoinBenchmarkArgs parse(String[] args) {
    Path out = Path.of("docs/bench/index-join");
    List<Double> sizes = List.of(1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0);
    List<Double> sizeSelectivities = List.of();
    int probeKeys = 1 << 26;
    List<Double> selectivities = List.of(0.01, 0.1, 0.5, 1.0, 2.0, 5.0, 10.0, 20.0);
    double sweepGib = 8;
    List<Integer> windows = List.of(18, 20, 22, 24, 26);
    List<IndexKind> kinds = List.of(IndexKind.values());
    List<Long> reaches = List.of(TranslationSlices.configuredReach());
    List<String> joins = JOINS;
    int runs = 5;
    int threads = MorselScheduler.THREADS;
    boolean cpuOnly = false;
    double missShare = 0;
    double pointLimit = 0;
    double budget = 0;
    boolean warmupOnce = false;
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--preset" -> {
          String preset = value(args, ++i);
          if (!preset.equals("target") && !preset.equals("sizes")) {
            throw new IllegalArgumentException("--preset knows 'target' and 'sizes', not '" + preset + "'; usage: "
                + USAGE);
          }
          boolean target = preset.equals("target");
          sizes = target ? List.of() : List.of(1.0, 4.0, 16.0, 32.0, 64.0);
          sizeSelectivities = target ? List.of() : List.of(0.1, 1.0);
          selectivities = target ? List.of(0.01, 0.1, 1.0, 5.0, 20.0) : List.of();
          sweepGib = 32;
          windows = List.of();
          kinds = List.of(IndexKind.RADIXSPLINE, IndexKind.BINARY_SEARCH);
          joins = target ? List.of("cpu-inlj", "nopa", "triton") : List.of("cpu-inlj", "nopa");
          runs = target ? 1 : 3;
          missShare = 0.1;
          pointLimit = target ? 30 : 20;
          budget = target ? 180 : 240;
          warmupOnce = true;
        }
        case "--out" -> out = Path.of(value(args, ++i));
        case "--sizes" -> sizes = doubles(value(args, ++i));
        case "--size-selectivities" -> sizeSelectivities = doubles(value(args, ++i));
        case "--probe-keys" -> probeKeys = Integer.parseInt(value(args, ++i));
        case "--selectivities" -> selectivities = doubles(value(args, ++i));
        case "--sweep-gib" -> sweepGib = Double.parseDouble(value(args, ++i));
        case "--windows" -> windows = list(value(args, ++i)).stream().map(Integer::valueOf).toList();
        case "--kinds" -> kinds = list(value(args, ++i)).stream().map(IndexKind::valueOf).toList();
        case "--reaches" -> reaches = list(value(args, ++i)).stream().map(TranslationSlices::parseReach).toList();
        case "--joins" -> joins = list(value(args, ++i));
        case "--runs" -> runs = Integer.parseInt(value(args, ++i));
        case "--threads" -> threads = Integer.parseInt(value(args, ++i));
        case "--miss-share" -> missShare = Double.parseDouble(value(args, ++i));
        case "--point-limit-s" -> pointLimit = Double.parseDouble(value(args, ++i));
        case "--budget-s" -> budget = Double.parseDouble(value(args, ++i));
        case "--warmup-once" -> warmupOnce = true;
        case "--cpu-only" -> cpuOnly = true;
        default -> throw new IllegalArgumentException("unknown argument '" + args[i] + "'; usage: " + USAGE);
      }
    }
    List<String> unknown = new ArrayList<>(joins);
    unknown.removeAll(JOINS);
    boolean positive = sizes.stream().allMatch(s -> s > 0) && sweepGib > 0
        && selectivities.stream().allMatch(s -> s > 0 && s <= 100)
        && sizeSelectivities.stream().allMatch(s -> s > 0 && s <= 100);
    if (!positive || probeKeys < 1 || runs < 1 || threads < 1 || !unknown.isEmpty()
        || windows.stream().anyMatch(w -> w < 5 || w > 28) || missShare < 0 || missShare > 1 || pointLimit < 0
        || budget < 0) {
      throw new IllegalArgumentException("--sizes and --sweep-gib are positive GiB, --selectivities and"
          + " --size-selectivities percent in (0, 100], --probe-keys, --runs and --threads at least 1, --windows"
          + " 5..28 (log2 keys), --joins of " + JOINS + ", --miss-share in [0, 1], --point-limit-s and --budget-s not"
          + " negative (0: none); got " + sizes + ", " + sweepGib + ", " + selectivities + ", " + sizeSelectivities
          + ", " + probeKeys + ", " + runs + ", " + threads + ", " + windows + ", " + joins + ", " + missShare + ", "
          + pointLimit + ", " + budget);
    }
    return new IndexJoinBenchmarkArgs(out, sizes, sizeSelectivities, probeKeys, selectivities, sweepGib, windows,
        kinds, reaches, joins, runs, threads, cpuOnly, missShare, pointLimit, budget, warmupOnce);
  }

  private static String value(String[] args, int i) {
    if (i >= args.length) {
      throw new IllegalArgumentException(args[i - 1] + " needs a value; usage: " + USAGE);
    }
    return args[i];
  }

  /** Comma-separated values; "none" is the empty list (a sweep left out). */
  private static List<String> list(String text) {
    return text.equalsIgnoreCase("none") ? List.of() : List.of(text.split(","));
  }

  private static List<Double> doubles(String text) {
    return list(text).stream().map(Double::valueOf).toList();
  }
}
