package org.spillway.gpu.bench;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import org.spillway.gpu.device.CudaDevice;
import org.spillway.gpu.join.nopa.CpuNopaHashJoin;
import org.spillway.gpu.join.radix.CpuRadixJoin;
import org.spillway.gpu.join.EquiJoin;
import org.spillway.gpu.join.GpuEquiJoin;
import org.spillway.gpu.join.GpuJoinStats;
import org.spillway.gpu.join.nopa.HashTablePlacement;
import org.spillway.gpu.join.JoinOutput;
import org.spillway.gpu.join.JoinResult;
import org.spillway.gpu.join.JoinType;
import org.spillway.gpu.join.nopa.NopaHashJoin;
import org.spillway.gpu.join.nopa.NopaOptions;
import org.spillway.gpu.join.triton.TritonJoin;
import org.spillway.gpu.join.triton.TritonOptions;
import org.spillway.gpu.transfer.TransferMethod;

/**
 * The joins {@link JoinBenchmark} runs, by name: GPU joins over the workload's pinned columns, timed by the join
 * itself with CUDA events ({@link GpuJoinStats#totalNanos()}), the CPU joins on all cores, timed by wall clock
 * around {@code join}, and {@code duckdb} ({@link JoinBenchmarkDuckDb}). A GPU join's name is
 * {@code base[@placement][:option+option]}: {@code nopa@gpu}, {@code nopa@host}, {@code nopa@hybrid} force the
 * table's placement (plain {@code nopa} chooses against the budget); option {@code full} ignores the emulated
 * GPU budget (the whole device, e.g. {@code nopa@gpu:full}, the in-budget reference beyond the budget);
 * {@code triton} takes {@code cache=SHARE} (a forced share of the partitions cached in GPU memory; 0 is a plain
 * two-pass radix join, P2 Fig. 19) and {@code cpu-prefix} (the prefix sum on CPU threads, P2 Fig. 20). Other GPU
 * joins plug in through {@link #register}.
 */
public final class JoinBenchmarkJoins {
  /**
   * What a benchmark case hands a GPU join factory: device, transfer method, placement (or null), GPU budget
   * (0: the device's), and the options after the name's colon ("" if none; {@code full} is already applied).
   */
  public record Settings(CudaDevice device, TransferMethod method, HashTablePlacement placement, long tableBudget,
      String option) {
    /** The options split at '+', without empty ones. */
    public List<String> options() {
      return splitOptions(option);
    }
  }

  /** One run: what the join returned (count and both payload sums), its time and, for GPU joins, its report. */
  record Timed(String algorithm, long rows, long buildSum, long probeSum, long nanos, GpuJoinStats stats,
      String note) {
    static Timed of(JoinResult r, long nanos, GpuJoinStats stats) {
      return new Timed(r.algorithm(), r.rowCount(), r.buildPayloadSum(), r.probePayloadSum(), nanos, stats, "");
    }
  }

  /** A join under benchmark. */
  interface Runner extends AutoCloseable {
    Timed run(JoinBenchmarkData.Workload w);

    @Override
    void close();
  }

  static final String DUCKDB = "duckdb";
  private static final Map<String, Function<Settings, GpuEquiJoin>> GPU_JOINS = new LinkedHashMap<>();
  private static final Set<String> CPU_JOINS = Set.of("cpu-nopa", "cpu-radix");

  static {
    register("nopa", s -> {
      noOptions("nopa", s);
      return new NopaHashJoin(s.device(), NopaOptions.DEFAULT.withMethod(s.method()).withPlacement(s.placement())
          .withTableBudget(s.tableBudget()));
    });
    register("triton", JoinBenchmarkJoins::triton);
  }

  private JoinBenchmarkJoins() {}

  /** Makes the GPU join {@code name} available to the benchmark's {@code --joins}. */
  public static synchronized void register(String name, Function<Settings, GpuEquiJoin> factory) {
    GPU_JOINS.put(name, factory);
  }

  /** Known names, for usage messages. */
  static synchronized String known() {
    return String.join(", ", GPU_JOINS.keySet()) + " (with @gpu, @host, @hybrid and :options), "
        + String.join(", ", CPU_JOINS) + ", " + DUCKDB;
  }

  /** Spillway's CPU joins (not DuckDB). */
  static boolean isCpu(String name) {
    return CPU_JOINS.contains(name);
  }

  static boolean isGpu(String name) {
    return !isCpu(name) && !name.equals(DUCKDB);
  }

  /** The join before any placement or option, e.g. {@code nopa} for {@code nopa@host:full}. */
  static String base(String name) {
    int end = name.length();
    for (char c : new char[] {'@', ':'}) {
      int at = name.indexOf(c);
      end = at >= 0 ? Math.min(end, at) : end;
    }
    return name.substring(0, end);
  }

  /**
   * Opens the join {@code name} ({@code duckdb} is opened by the caller); {@code settings} carries everything but
   * what the name gives. Throws UnsupportedOperationException where the join cannot run these settings.
   */
  static Runner open(String name, Settings settings, int cpuThreads) {
    switch (name) {
      case "cpu-nopa":
        return cpu(new CpuNopaHashJoin(cpuThreads));
      case "cpu-radix":
        return cpu(new CpuRadixJoin(cpuThreads));
      default:
        break;
    }
    int colon = name.indexOf(':');
    String option = colon < 0 ? "" : name.substring(colon + 1);
    String placed = colon < 0 ? name : name.substring(0, colon);
    int at = placed.indexOf('@');
    HashTablePlacement placement = at < 0 ? settings.placement()
        : HashTablePlacement.valueOf(placed.substring(at + 1).toUpperCase(Locale.ROOT));
    List<String> options = new ArrayList<>(splitOptions(option));
    long budget = options.remove("full") ? 0 : settings.tableBudget();
    Function<Settings, GpuEquiJoin> factory;
    synchronized (JoinBenchmarkJoins.class) {
      factory = GPU_JOINS.get(base(name));
    }
    if (factory == null) {
      throw new IllegalArgumentException("unknown join '" + name + "'; known: " + known());
    }
    GpuEquiJoin join = factory.apply(new Settings(settings.device(), settings.method(), placement, budget,
        String.join("+", options)));
    return new Runner() {
      @Override
      public Timed run(JoinBenchmarkData.Workload w) {
        JoinResult result = join.join(w.build, w.probe, JoinType.INNER, JoinOutput.AGGREGATED);
        GpuJoinStats stats = join.lastStats();
        return Timed.of(result, stats.totalNanos(), stats);
      }

      @Override
      public void close() {
        join.close();
      }
    };
  }

  /** TritonJoin sized for the case's budget (the device's if none), with the name's forced knobs. */
  private static GpuEquiJoin triton(Settings s) {
    if (s.method() != TransferMethod.ZERO_COPY) {
      throw new UnsupportedOperationException("TritonJoin reads pinned host memory by zero-copy only, not by "
          + s.method().label());
    }
    if (s.placement() != null) {
      throw new IllegalArgumentException("TritonJoin has no table placement; got @" + s.placement().label());
    }
    TritonOptions o = s.tableBudget() > 0 ? TritonOptions.DEFAULT.withBudget(s.tableBudget()) : TritonOptions.DEFAULT;
    for (String option : s.options()) {
      if (option.startsWith("cache=")) {
        o = o.withCacheShare(Double.parseDouble(option.substring("cache=".length())));
      } else if (option.equals("cpu-prefix")) {
        o = o.withCpuPrefixSum(true);
      } else {
        throw new IllegalArgumentException("unknown triton option '" + option + "'; known: cache=SHARE, cpu-prefix,"
            + " full");
      }
    }
    return new TritonJoin(s.device(), o);
  }

  private static List<String> splitOptions(String text) {
    return Arrays.stream(text.split("\\+")).map(String::trim).filter(o -> !o.isEmpty()).toList();
  }

  private static void noOptions(String join, Settings s) {
    if (!s.options().isEmpty()) {
      throw new IllegalArgumentException(join + " takes no options but 'full'; got '" + s.option() + "'");
    }
  }

  private static Runner cpu(EquiJoin join) {
    return new Runner() {
      @Override
      public Timed run(JoinBenchmarkData.Workload w) {
        var build = w.cpuBuild();
        var probe = w.cpuProbe();
        long start = System.nanoTime();
        JoinResult result = join.join(build, probe, JoinType.INNER, JoinOutput.AGGREGATED);
        return Timed.of(result, System.nanoTime() - start, null);
      }

      @Override
      public void close() {
        join.close();
      }
    };
  }
}
