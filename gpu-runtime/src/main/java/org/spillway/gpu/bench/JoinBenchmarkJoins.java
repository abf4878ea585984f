package org.spillway.gpu.bench;

import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import org.spillway.gpu.cuda.CudaDevice;
import org.spillway.gpu.join.CpuNopaHashJoin;
import org.spillway.gpu.join.CpuRadixJoin;
import org.spillway.gpu.join.EquiJoin;
import org.spillway.gpu.join.GpuEquiJoin;
import org.spillway.gpu.join.GpuJoinStats;
import org.spillway.gpu.join.HashTablePlacement;
import org.spillway.gpu.join.JoinOutput;
import org.spillway.gpu.join.JoinResult;
import org.spillway.gpu.join.JoinType;
import org.spillway.gpu.join.NopaHashJoin;
import org.spillway.gpu.join.NopaOptions;
import org.spillway.gpu.transfer.TransferMethod;

/**
 * The joins {@link JoinBenchmark} runs, by name: GPU joins over the workload's pinned columns, timed by the join
 * itself with CUDA events ({@link GpuJoinStats#totalNanos()}), and the CPU joins on all cores, timed by wall
 * clock around {@code join}. {@code nopa} takes a table placement after an at sign: {@code nopa@gpu},
 * {@code nopa@host}, {@code nopa@hybrid}; plain {@code nopa} chooses against the budget. Other GPU joins (e.g.
 * TritonJoin) plug in through {@link #register}.
 */
public final class JoinBenchmarkJoins {
  /** What a benchmark case hands a GPU join factory: device, transfer method, placement (or null), GPU budget. */
  public record Settings(CudaDevice device, TransferMethod method, HashTablePlacement placement, long tableBudget) {}

  /** One run: the result, its time and, for GPU joins, what the join reported. */
  record Timed(JoinResult result, long nanos, GpuJoinStats stats) {}

  /** A join under benchmark. */
  interface Runner extends AutoCloseable {
    Timed run(JoinBenchmarkData.Workload w);

    boolean gpu();

    @Override
    void close();
  }

  private static final Map<String, Function<Settings, GpuEquiJoin>> GPU_JOINS = new LinkedHashMap<>();
  private static final Set<String> CPU_JOINS = Set.of("cpu-nopa", "cpu-radix");

  static {
    register("nopa", s -> new NopaHashJoin(s.device(), NopaOptions.DEFAULT.withMethod(s.method())
        .withPlacement(s.placement()).withTableBudget(s.tableBudget())));
  }

  private JoinBenchmarkJoins() {}

  /** Makes the GPU join {@code name} available to the benchmark's {@code --joins}. */
  public static synchronized void register(String name, Function<Settings, GpuEquiJoin> factory) {
    GPU_JOINS.put(name, factory);
  }

  /** Known names, for usage messages. */
  static synchronized String known() {
    return String.join(", ", GPU_JOINS.keySet()) + " (with @gpu, @host, @hybrid), " + String.join(", ", CPU_JOINS);
  }

  static boolean isCpu(String name) {
    return CPU_JOINS.contains(name);
  }

  /** Opens the join {@code name}; {@code settings} carries everything but a placement that the name gives. */
  static Runner open(String name, Settings settings, int cpuThreads) {
    switch (name) {
      case "cpu-nopa":
        return cpu(new CpuNopaHashJoin(cpuThreads));
      case "cpu-radix":
        return cpu(new CpuRadixJoin(cpuThreads));
      default:
        break;
    }
    int at = name.indexOf('@');
    String base = at < 0 ? name : name.substring(0, at);
    HashTablePlacement placement = at < 0 ? settings.placement()
        : HashTablePlacement.valueOf(name.substring(at + 1).toUpperCase(Locale.ROOT));
    Function<Settings, GpuEquiJoin> factory;
    synchronized (JoinBenchmarkJoins.class) {
      factory = GPU_JOINS.get(base);
    }
    if (factory == null) {
      throw new IllegalArgumentException("unknown join '" + name + "'; known: " + known());
    }
    GpuEquiJoin join = factory.apply(new Settings(settings.device(), settings.method(), placement,
        settings.tableBudget()));
    return new Runner() {
      @Override
      public Timed run(JoinBenchmarkData.Workload w) {
        JoinResult result = join.join(w.build, w.probe, JoinType.INNER, JoinOutput.AGGREGATED);
        GpuJoinStats stats = join.lastStats();
        return new Timed(result, stats.totalNanos(), stats);
      }

      @Override
      public boolean gpu() {
        return true;
      }

      @Override
      public void close() {
        join.close();
      }
    };
  }

  private static Runner cpu(EquiJoin join) {
    return new Runner() {
      @Override
      public Timed run(JoinBenchmarkData.Workload w) {
        var build = w.cpuBuild();
        var probe = w.cpuProbe();
        long start = System.nanoTime();
        JoinResult result = join.join(build, probe, JoinType.INNER, JoinOutput.AGGREGATED);
        return new Timed(result, System.nanoTime() - start, null);
      }

      @Override
      public boolean gpu() {
        return false;
      }

      @Override
      public void close() {
        join.close();
      }
    };
  }
}
