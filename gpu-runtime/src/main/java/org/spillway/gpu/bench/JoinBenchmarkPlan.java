package org.spillway.gpu.bench;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.spillway.gpu.transfer.ColumnType;
import org.spillway.gpu.transfer.TransferMethod;

/**
 * What each experiment of {@link JoinBenchmark} runs, without a GPU: its cases (workload, joins, transfer method,
 * emulated GPU budget) and whether a join of a case fits the host's memory. Workloads are sized as the papers'
 * divided by 2^shift (Pump Up the Volume: A = 2^27 x 2^31 and B = 2^18 x 2^31 of 8/8 B, C = 2^30 x 2^30 of 4/4 B);
 * the out-of-core experiments are sized against the budget instead.
 */
final class JoinBenchmarkPlan {
  private static final ColumnType I64 = ColumnType.INT64;
  private static final long GIB = 1L << 30;

  private JoinBenchmarkPlan() {}

  /** One case: a workload, the joins that run it, their transfer method and GPU budget (0: the device's). */
  record Case(String experiment, String name, double x, JoinBenchmarkData.Spec spec, List<String> joins,
      TransferMethod method, long budget) {}

  /** The cases of {@code experiment} under {@code a}. */
  static List<Case> cases(String experiment, JoinBenchmarkArgs a) {
    List<Case> out = new ArrayList<>();
    List<String> joins = a.joins();
    TransferMethod method = a.method();
    switch (experiment) {
      case "workloads" -> {
        out.add(new Case(experiment, "A dense 8/8B", 0, paper(a, "A dense", 27, 31, I64, false, 0, 1), joins, method, 0));
        out.add(new Case(experiment, "A sparse 8/8B", 0, paper(a, "A sparse", 27, 31, I64, true, 0, 1), joins, method,
            0));
        out.add(new Case(experiment, "B dense 8/8B", 0, paper(a, "B dense", 18, 31, I64, false, 0, 1), joins, method, 0));
        out.add(new Case(experiment, "C dense 4/4B", 0, paper(a, "C dense", 30, 30, ColumnType.INT32, false, 0, 1),
            joins, method, 0));
      }
      case "methods" -> {
        List<String> gpu = joins.stream().filter(JoinBenchmarkJoins::isGpu).toList();
        for (TransferMethod m : a.methods()) {
          out.add(new Case(experiment, "A, " + m.label(), 0, paper(a, "A dense", 27, 31, I64, false, 0, 1), gpu, m, 0));
        }
      }
      case "ratios" -> {  // P1 Fig. 18 (|R| fixed, S grows), P2 Fig. 21's joins; no emulated budget
        for (double ratio : a.ratios()) {
          long r = 1L << (27 - a.shift());
          var spec = new JoinBenchmarkData.Spec("1:" + (int) ratio, r, (long) (r * ratio), I64, false, 0, 1, 10);
          out.add(new Case(experiment, "1:" + (int) ratio + " dense 8/8B", ratio, spec, joins, method, 0));
        }
      }
      case "ratios-budget" -> {  // P2 Fig. 21: |S| = budget / 8 rows (1:1 is 4x the budget), |R| = |S| / ratio
        long s = Long.highestOneBit(a.budget() / 8);
        for (double ratio : a.ratios()) {
          long r = Math.max(1, Long.highestOneBit((long) (s / ratio)));
          var spec = new JoinBenchmarkData.Spec("budget 1:" + (int) ratio, r, s, I64, false, 0, 1, 50);
          out.add(new Case(experiment, String.format(Locale.ROOT, "1:%d, |S|=2^%d, table %.2fx", s / r, log2(s),
              16.0 * r / a.budget()), (double) s / r, spec, expand(joins, "nopa", "nopa", "nopa@gpu:full"), method,
              a.budget()));
        }
      }
      case "zipf" -> {  // P1 Fig. 19: skew helps a table in host memory
        for (double z : a.zipf()) {
          out.add(new Case(experiment, "A, Zipf " + z, z, paper(a, "A dense", 27, 31, I64, false, z, 1),
              expand(joins, "nopa", "nopa", "nopa@host"), method, 0));
        }
      }
      case "zipf-both" -> {  // Sioulas et al. Fig. 17: identical skew on both sides, in GPU memory (2^25 / 2^shift)
        long n = 1L << (25 - a.shift());
        for (double z : a.zipfBoth()) {
          var spec = new JoinBenchmarkData.Spec("both Zipf " + z, n, n, I64, false, z, true, 1, 60);
          out.add(new Case(experiment, "R,S Zipf " + z, z, spec, joins, method, 0));
        }
      }
      case "selectivity" -> {
        for (double s : a.selectivity()) {
          out.add(new Case(experiment, "A, selectivity " + s, s, paper(a, "A dense", 27, 31, I64, false, 0, s), joins,
              method, 0));
        }
      }
      case "scaling" -> {  // P1 Fig. 17: the table from a quarter of the budget to twice it, by placement
        int fullLog = log2(a.budget() / 16);
        for (int log = fullLog - 2; log <= fullLog + 1; log++) {
          long n = 1L << log;
          double share = 16.0 * n / a.budget();
          var spec = new JoinBenchmarkData.Spec("scaling 2^" + log, n, n, I64, false, 0, 1, 20 + log);
          out.add(new Case(experiment, String.format(Locale.ROOT, "R=S=2^%d, %.2fx", log, share), share, spec,
              expand(joins, "nopa", "nopa@gpu", "nopa@host", "nopa"), method, a.budget()));
        }
      }
      case "triton-scaling" -> {  // P2 Fig. 13: 16-byte |R| = |S|, working set from 1/4 to 4x the budget
        List<Integer> logs = a.sizes().isEmpty() ? range(log2(a.budget() / 128), log2(a.budget() / 8)) : a.sizes();
        for (int log : logs) {
          long n = 1L << log;
          double share = 32.0 * n / a.budget();
          var spec = new JoinBenchmarkData.Spec("R=S=2^" + log, n, n, I64, false, 0, 1, 70 + log);
          out.add(new Case(experiment, String.format(Locale.ROOT, "R=S=2^%d, %.2fx", log, share), share, spec,
              tritonScalingJoins(joins), method, a.budget()));
        }
      }
      default -> throw new IllegalArgumentException("unknown experiment " + experiment);
    }
    return out;
  }

  /**
   * P2 Fig. 13's series: NOPA placed against the budget, NOPA in the whole GPU memory (the in-budget reference
   * beyond the budget), the others, and last NOPA with a host table, the slowest, which a deadline drops first.
   */
  private static List<String> tritonScalingJoins(List<String> joins) {
    List<String> out = expand(joins, "nopa", "nopa", "nopa@gpu:full");
    if (joins.contains("nopa")) {
      out.add("nopa@host");
    }
    return out;
  }

  /** The joins with {@code name} replaced by {@code with} (the experiment's variants of it), where present. */
  static List<String> expand(List<String> joins, String name, String... with) {
    List<String> out = new ArrayList<>();
    for (String j : joins) {
      if (j.equals(name)) {
        out.addAll(List.of(with));
      } else {
        out.add(j);
      }
    }
    return out;
  }

  private static JoinBenchmarkData.Spec paper(JoinBenchmarkArgs a, String name, int buildLog, int probeLog,
      ColumnType type, boolean sparse, double zipf, double selectivity) {
    return new JoinBenchmarkData.Spec(name, 1L << (buildLog - a.shift()), 1L << (probeLog - a.shift()), type, sparse,
        zipf, selectivity, buildLog * 31L + probeLog);
  }

  private static List<Integer> range(int from, int to) {
    List<Integer> out = new ArrayList<>();
    for (int i = from; i <= to; i++) {
      out.add(i);
    }
    return out;
  }

  static int log2(long v) {
    return 63 - Long.numberOfLeadingZeros(v);
  }

  /** What a case may hold in host memory: all of it (pinned data, tables, DuckDB) and the Java heap's part. */
  record Limits(long hostBytes, long heapBytes) {
    /** {@code --host-memory} (default 85% of the machine's memory) and the JVM's maximum heap. */
    static Limits of(JoinBenchmarkArgs a) {
      long host = a.hostMemory();
      if (host == 0) {
        var os = (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        host = (long) (0.85 * os.getTotalMemorySize());
      }
      return new Limits(host, Runtime.getRuntime().maxMemory());
    }
  }

  /**
   * Host bytes {@code join} needs beyond the workload's own columns, and the Java heap's part of them: the CPU
   * joins' long[] copies and tables (a radix join's two passes keep both partitioned copies), DuckDB's tables
   * and hash table (estimated at 64 bytes per build row, plus a quarter), Triton's spilled partitions (at most the
   * whole working set) and NOPA's host part of the table (16-byte slots, twice next_pow2(|R|) for linear probing).
   */
  static long[] need(String join, JoinBenchmarkData.Spec s, long budget) {
    long t = s.tuples();
    long copies = 16 * t;
    long tableBytes = 16 * (s.perfectHash() ? s.buildRows() : 2 * s.buildRows());
    String base = JoinBenchmarkJoins.base(join);
    boolean full = join.contains(":full") || join.contains("+full");
    return switch (base) {
      case "cpu-nopa" -> new long[] {copies + (s.perfectHash() ? 9 * s.buildRows() : tableBytes),
          copies + (s.perfectHash() ? 9 * s.buildRows() : tableBytes)};
      case "cpu-radix" -> new long[] {copies + 32 * t, copies + 32 * t};
      case JoinBenchmarkJoins.DUCKDB -> new long[] {(long) (1.25 * (s.planBytes() + 64 * s.buildRows())), 0};
      case "triton" -> new long[] {full ? 0 : 16 * t, 0};
      case "nopa" -> new long[] {join.startsWith("nopa@host") ? tableBytes
          : join.startsWith("nopa@gpu") || full || budget == 0 ? 0 : Math.max(0, tableBytes - budget), 0};
      default -> new long[] {0, 0};
    };
  }

  /** Why {@code join} is not run on {@code s} (it would need more memory than {@code limits}), or null. */
  static String doesNotFit(String join, JoinBenchmarkData.Spec s, long budget, Limits limits) {
    long[] need = need(join, s, budget);
    long total = s.planBytes() + need[0];
    if (need[1] > limits.heapBytes()) {
      return String.format(Locale.ROOT, "skipped: needs ~%.1f GiB of Java heap, -Xmx allows %.1f GiB",
          need[1] / (double) GIB, limits.heapBytes() / (double) GIB);
    }
    if (total > limits.hostBytes()) {
      return String.format(Locale.ROOT, "skipped: needs ~%.1f GiB of host memory (data %.1f + join %.1f), over the"
          + " limit of %.1f GiB (--host-memory)", total / (double) GIB, s.planBytes() / (double) GIB,
          need[0] / (double) GIB, limits.hostBytes() / (double) GIB);
    }
    return null;
  }
}
