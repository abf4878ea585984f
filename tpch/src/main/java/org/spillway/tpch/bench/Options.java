package org.spillway.tpch.bench;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * TpchBenchmark's options: {@code --sf 1 --data-dir DIR --queries 1,6 --engines duckdb,cpu,gpu,auto
 * --methods "pinned copy,zero-copy" --variants predication,branching --cache off,on --gpu-cache 40g --reps 5
 * --cpu-reps 5 --warmup 1 --out DIR --merge FILE}. The data directory defaults to
 * {@code $TMPDIR/spillway-tpch-q1q6-sf<SF>} (generated there when it holds no lineitem), the output to
 * {@code tpch-bench-sf<SF>}; {@code --merge} names the results file of an earlier run (e.g. DuckDB's alone, in
 * another device call), whose measurements join this run's report.
 */
record Options(double sf, String sfText, Path dataDir, List<Integer> queries, List<String> engines,
    List<String> methods, List<String> variants, List<String> cache, String gpuCache, int reps, int cpuReps,
    int warmup, Path out, Path merge) {

  static Options parse(String[] argv) {
    BenchArgs args = BenchArgs.parse(argv, "TpchBenchmark");
    double sf = args.number("--sf", 1);
    String sfText = sfText(sf);
    Path dir = args.path("--data-dir", Path.of(System.getProperty("java.io.tmpdir"), "spillway-tpch-q1q6-sf" + sfText));
    List<Integer> queries = args.list("--queries", "1,6").stream().map(Integer::parseInt).toList();
    for (int q : queries) {
      if (q != 1 && q != 6) {
        throw new IllegalArgumentException("TpchBenchmark: --queries takes 1 and 6 (the data holds their columns)");
      }
    }
    List<String> engines = args.list("--engines", "duckdb,cpu,gpu,auto");
    for (String e : engines) {
      if (!List.of("duckdb", "cpu", "gpu", "auto").contains(e)) {
        throw new IllegalArgumentException("TpchBenchmark: --engines takes duckdb, cpu, gpu, auto, not " + e);
      }
    }
    int reps = (int) args.number("--reps", 5);
    Options options = new Options(sf, sfText, dir, queries, engines, args.list("--methods", "pinned copy,zero-copy"),
        args.list("--variants", "predication,branching"), args.list("--cache", "off,on"),
        args.text("--gpu-cache", "40g"), reps, (int) args.number("--cpu-reps", reps),
        (int) args.number("--warmup", 1), args.path("--out", Path.of("tpch-bench-sf" + sfText)),
        args.path("--merge", null));
    args.finish();
    if (reps < 1 || options.cpuReps() < 1 || options.warmup() < 0) {
      throw new IllegalArgumentException("TpchBenchmark: --reps and --cpu-reps must be >= 1, --warmup >= 0");
    }
    return options;
  }

  /** Whether this run measures Spillway at all (a DuckDB-only run needs neither its data nor a GPU). */
  boolean runsSpillway() {
    return engines.stream().anyMatch(e -> !e.equals("duckdb"));
  }

  /**
   * The Spillway configurations in run order: the CPU backend; the GPU with each method and variant uncached,
   * then with the cache (with the first method, which only serves misses); then the cost model's choices.
   */
  List<Config> spillwayConfigs() {
    List<Config> configs = new ArrayList<>();
    if (engines.contains("cpu")) {
      configs.add(Config.CPU);
    }
    if (engines.contains("gpu")) {
      if (cache.contains("off")) {
        for (String method : methods) {
          for (String variant : variants) {
            configs.add(new Config("gpu", method, variant, false));
          }
        }
      }
      if (cache.contains("on")) {
        for (String variant : variants) {
          configs.add(new Config("gpu", methods.get(0), variant, true));
        }
      }
    }
    if (engines.contains("auto")) {
      for (String c : cache) {
        configs.add(new Config("auto", "", "", c.equals("on")));
      }
    }
    return configs;
  }

  /** A scale factor as file names and reports write it: 10, not 10.0; 0.01 as it is. */
  static String sfText(double sf) {
    return sf == Math.rint(sf) ? String.valueOf((long) sf) : String.valueOf(sf);
  }
}
