package org.spillway.gpu.bench;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.stream.IntStream;
import org.apache.arrow.memory.util.MemoryUtil;
import org.spillway.gpu.device.CudaDevice;
import org.spillway.gpu.device.GpuRuntime;
import org.spillway.gpu.device.HostBuffer;
import org.spillway.gpu.join.GpuJoinStats;
import org.spillway.gpu.join.HostJoinInput;
import org.spillway.gpu.join.JoinOutput;
import org.spillway.gpu.join.JoinResult;
import org.spillway.gpu.join.JoinType;
import org.spillway.gpu.join.triton.TritonJoin;
import org.spillway.gpu.join.triton.TritonOptions;
import org.spillway.gpu.transfer.ColumnType;
import org.spillway.gpu.transfer.HostColumn;

/**
 * Throughput of the Triton join on the papers' workload (Lutz et al., SIGMOD '22, Sec. 6.1): R and S of
 * 2^k 16-byte {INT64 key, INT64 payload} rows each in pinned host memory, R's keys unique and shuffled, S's
 * keys uniform over R's (every probe row matches once), aggregated output. For each GPU budget (a multiple
 * of the working set |R|+|S| x 16 bytes) it reports the median of several runs: G tuples/s = (|R|+|S|) /
 * (prefix sum + pass 1 + pass 2 and join, CUDA events, allocation excluded), the phases, and the first
 * pass's read rate over the link in GB/s (and the join phase's, where it reads spilled partitions). Every
 * run's aggregate is checked against the generator's. Lists sweep every combination: prefix sum on the GPU or
 * the CPU, forced first-pass bits and second-level buffer sizes (-1: automatic).
 * Usage: TritonJoinBenchmark [--log2 27,29] [--budgets 2,0.5,0.25] [--runs 5] [--prefix gpu,cpu] [--bits1 -1]
 * [--l2 -1] [--pass1-blocks -1]
 */
public final class TritonJoinBenchmark {
  private TritonJoinBenchmark() {}

  public static void main(String[] argv) {
    int[] logs = {27};
    double[] budgets = {2, 0.5};
    int runs = 5;
    String[] prefixes = {"gpu"};
    int[] bits1 = {-1};
    int[] l2 = {-1};
    int[] blocks = {-1};
    for (int i = 0; i + 1 < argv.length; i += 2) {
      String v = argv[i + 1];
      switch (argv[i]) {
        case "--log2" -> logs = ints(v);
        case "--budgets" -> budgets = Arrays.stream(v.split(",")).mapToDouble(Double::parseDouble).toArray();
        case "--runs" -> runs = Integer.parseInt(v);
        case "--prefix" -> prefixes = v.split(",");
        case "--bits1" -> bits1 = ints(v);
        case "--l2" -> l2 = ints(v);
        case "--pass1-blocks" -> blocks = ints(v);
        default -> throw new IllegalArgumentException("unknown option " + argv[i] + "; usage: TritonJoinBenchmark "
            + "[--log2 27,29] [--budgets 2,0.5] [--runs 5] [--prefix gpu,cpu] [--bits1 -1] [--l2 -1] "
            + "[--pass1-blocks -1]");
      }
    }
    CudaDevice device = GpuRuntime.device().orElseThrow(() -> new IllegalStateException(
        "TritonJoinBenchmark needs a CUDA device: " + GpuRuntime.unavailableReason()));
    System.out.printf("Triton join, %s, allocator budget %d MiB, %d runs (median)%n", device.name(),
        device.allocator().budget() >> 20, runs);
    List<String> table = new ArrayList<>();
    table.add(String.format("%-5s %-8s %-4s %-5s %-4s %-32s %7s %7s %8s %8s %8s %8s %8s %8s", "log2", "budget",
        "ps", "l2", "blk", "variant", "Gtup/s", "ps ms", "pass1 ms", "join ms", "p1 GB/s", "jn GB/s", "toDev GB", "toHst GB"));
    for (int log : logs) {
      try (Workload w = new Workload(device, 1L << log, 1L << log, 0x5EED + log)) {
        long workingSet = 16 * (w.buildRows + w.probeRows);
        for (double share : budgets) {
          for (String prefix : prefixes) {
            for (int b1 : bits1) {
              for (int l2Tuples : l2) {
                for (int g : blocks) {
                  TritonOptions options = TritonOptions.DEFAULT.withCpuPrefixSum(prefix.equals("cpu"))
                      .withBits(b1, -1).withL2Tuples(l2Tuples).withPass1Blocks(g)
                      .withBudget(Math.min((long) (share * workingSet), device.allocator().availableBytes()));
                  table.add(measure(device, w, log, share, prefix, options, runs));
                  System.out.println(table.get(table.size() - 1));
                }
              }
            }
          }
        }
      }
    }
    System.out.println();
    table.forEach(System.out::println);
  }

  private static int[] ints(String list) {
    return Arrays.stream(list.split(",")).mapToInt(Integer::parseInt).toArray();
  }

  private static String measure(CudaDevice device, Workload w, int log, double share, String prefix,
      TritonOptions options, int runs) {
    long[] total = new long[runs];
    long[][] phases = new long[runs][3];
    GpuJoinStats stats = null;
    try (TritonJoin join = new TritonJoin(device, options)) {
      for (int run = -1; run < runs; run++) {  // run -1 warms up
        JoinResult result = join.join(w.build, w.probe, JoinType.INNER, JoinOutput.AGGREGATED);
        w.check(result);
        stats = join.lastStats();
        if (run >= 0) {
          total[run] = stats.totalNanos();
          for (int p = 0; p < 3; p++) {
            phases[run][p] = stats.phases().get(p).nanos();
          }
        }
      }
    }
    long median = median(total);
    long ps = median(Arrays.stream(phases).mapToLong(p -> p[0]).toArray());
    long pass1 = median(Arrays.stream(phases).mapToLong(p -> p[1]).toArray());
    long joinPhase = median(Arrays.stream(phases).mapToLong(p -> p[2]).toArray());
    long tuples = w.buildRows + w.probeRows;
    long pass1Bytes = 16 * tuples;
    long joinReads = stats.bytesToDevice() - pass1Bytes - (prefix.equals("cpu") ? 0 : 8 * tuples);
    return String.format(Locale.ROOT, "%-5d %-8s %-4s %-5s %-4s %-32s %7.3f %7.1f %8.1f %8.1f %8.1f %8.1f %8.2f %8.2f",
        log, share + "xWS", prefix, options.l2Tuples() < 0 ? "auto" : options.l2Tuples(),
        options.pass1Blocks() < 0 ? "auto" : options.pass1Blocks(), stats.variant(),
        tuples / (double) median, ps / 1e6, pass1 / 1e6, joinPhase / 1e6, pass1Bytes / (double) pass1,
        joinReads / (double) joinPhase, stats.bytesToDevice() / 1e9, stats.bytesToHost() / 1e9);
  }

  private static long median(long[] values) {
    long[] sorted = values.clone();
    Arrays.sort(sorted);
    return sorted[sorted.length / 2];
  }

  /** R (unique shuffled keys) and S (foreign keys uniform over R) in pinned host memory, with expected sums. */
  private static final class Workload implements AutoCloseable {
    final long buildRows;
    final long probeRows;
    final HostJoinInput build;
    final HostJoinInput probe;
    private final HostBuffer[] buffers = new HostBuffer[4];
    private long buildSum;
    private long probeSum;

    Workload(CudaDevice device, long buildRows, long probeRows, long seed) {
      this.buildRows = buildRows;
      this.probeRows = probeRows;
      for (int i = 0; i < 4; i++) {
        buffers[i] = device.pinnedAllocator().allocate(8 * (i < 2 ? buildRows : probeRows));
      }
      long rk = buffers[0].address();
      long rp = buffers[1].address();
      long sk = buffers[2].address();
      long sp = buffers[3].address();
      int segments = 256;
      long[] sums = new long[2 * segments];
      IntStream.range(0, segments).parallel().forEach(g -> {
        SplittableRandom random = new SplittableRandom(seed * 31 + g);
        for (long i = g * buildRows / segments; i < (g + 1) * buildRows / segments; i++) {
          MemoryUtil.putLong(rk + 8 * i, key(i));  // a bijection of i: unique and shuffled
          MemoryUtil.putLong(rp + 8 * i, random.nextLong());
        }
      });
      IntStream.range(0, segments).parallel().forEach(g -> {
        SplittableRandom random = new SplittableRandom(~seed * 31 + g);
        for (long i = g * probeRows / segments; i < (g + 1) * probeRows / segments; i++) {
          long target = random.nextLong(buildRows);
          long payload = random.nextLong();
          MemoryUtil.putLong(sk + 8 * i, key(target));
          MemoryUtil.putLong(sp + 8 * i, payload);
          sums[2 * g] += MemoryUtil.getLong(rp + 8 * target);
          sums[2 * g + 1] += payload;
        }
      });
      for (int g = 0; g < segments; g++) {
        buildSum += sums[2 * g];
        probeSum += sums[2 * g + 1];
      }
      build = HostJoinInput.of(new HostColumn("r_key", ColumnType.INT64, rk, buildRows),
          new HostColumn("r_payload", ColumnType.INT64, rp, buildRows));
      probe = HostJoinInput.of(new HostColumn("s_key", ColumnType.INT64, sk, probeRows),
          new HostColumn("s_payload", ColumnType.INT64, sp, probeRows));
    }

    private static long key(long i) {
      return (i + 1) * 0xD6E8FEB86659FD93L;
    }

    void check(JoinResult result) {
      if (result.rowCount() != probeRows || result.buildPayloadSum() != buildSum
          || result.probePayloadSum() != probeSum) {
        throw new IllegalStateException(String.format("wrong join result %s: %d rows, sums %d %d; expected %d rows, "
            + "sums %d %d", result.algorithm(), result.rowCount(), result.buildPayloadSum(),
            result.probePayloadSum(), probeRows, buildSum, probeSum));
      }
    }

    @Override
    public void close() {
      for (HostBuffer b : buffers) {
        b.close();
      }
    }
  }
}
