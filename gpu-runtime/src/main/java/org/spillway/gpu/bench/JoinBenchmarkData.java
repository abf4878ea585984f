package org.spillway.gpu.bench;

import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.stream.IntStream;
import org.apache.arrow.memory.util.MemoryUtil;
import org.spillway.gpu.cuda.CudaDevice;
import org.spillway.gpu.join.HostJoinInput;
import org.spillway.gpu.join.JoinInput;
import org.spillway.gpu.join.JoinOutput;
import org.spillway.gpu.join.JoinResult;
import org.spillway.gpu.join.ZipfDistribution;
import org.spillway.gpu.memory.HostBuffer;
import org.spillway.gpu.transfer.ColumnType;
import org.spillway.gpu.transfer.HostColumn;

/**
 * Join workloads of Pump Up the Volume (Table 2) generated in parallel into pinned host memory, with the answer
 * every run must reproduce. R is a primary key: a permutation of 0..|R|-1 ({@code i * odd mod |R|}), multiplied
 * by an odd constant when {@code sparse} (unique, but far too spread for the array table). S holds foreign keys:
 * with probability {@code selectivity} a key of R (uniform, or Zipf-ranked with the hot ranks scattered over
 * R), otherwise a key R lacks. A build payload is a hash of its key, so the expected sums are known too.
 */
final class JoinBenchmarkData {
  private static final long PERMUTE = 0x9E3779B97F4A7C15L;
  private static final long SPARSE = 0xD6E8FEB86659FD93L;
  private static final int SEGMENT = 1 << 20;

  private JoinBenchmarkData() {}

  /** One workload: sizes (|R| a power of two), column width, key spread, skew of S and join selectivity. */
  record Spec(String name, long buildRows, long probeRows, ColumnType type, boolean sparse, double zipf,
      double selectivity, long seed) {
    Spec {
      if (Long.bitCount(buildRows) != 1 || probeRows < 0) {
        throw new IllegalArgumentException(name + ": |R| must be a power of two, got " + buildRows);
      }
    }

    /** Bytes a NOPA plan must move to the GPU at least: both relations' keys and payloads. */
    long planBytes() {
      return (buildRows + probeRows) * 2L * type.width();
    }
  }

  /** A generated workload in pinned memory; close it to unpin and free. */
  static final class Workload implements AutoCloseable {
    final Spec spec;
    final HostJoinInput build;
    final HostJoinInput probe;
    final long matches;
    final long buildSum;
    final long probeSum;
    private final HostBuffer[] buffers;
    private JoinInput cpuBuild;
    private JoinInput cpuProbe;

    private Workload(Spec spec, HostBuffer[] buffers, long matches, long buildSum, long probeSum) {
      this.spec = spec;
      this.buffers = buffers;
      ColumnType t = spec.type();
      this.build = HostJoinInput.of(new HostColumn("r_key", t, buffers[0].address(), spec.buildRows()),
          new HostColumn("r_payload", t, buffers[1].address(), spec.buildRows()));
      this.probe = HostJoinInput.of(new HostColumn("s_key", t, buffers[2].address(), spec.probeRows()),
          new HostColumn("s_payload", t, buffers[3].address(), spec.probeRows()));
      this.matches = matches;
      this.buildSum = buildSum;
      this.probeSum = probeSum;
    }

    /** R as the CPU joins read it (copied into Java arrays once, widened to longs). */
    JoinInput cpuBuild() {
      if (cpuBuild == null) {
        cpuBuild = JoinInput.of(toArray(build.keys()), toArray(build.payloads()));
      }
      return cpuBuild;
    }

    JoinInput cpuProbe() {
      if (cpuProbe == null) {
        cpuProbe = JoinInput.of(toArray(probe.keys()), toArray(probe.payloads()));
      }
      return cpuProbe;
    }

    /** Fails unless {@code result} (INNER) is this workload's answer. */
    void check(JoinResult result, String who) {
      boolean ok = result.rowCount() == matches && (result.output() != JoinOutput.AGGREGATED
          || (result.buildPayloadSum() == buildSum && result.probePayloadSum() == probeSum));
      if (!ok) {
        throw new IllegalStateException(spec.name() + ": " + who + " (" + result.algorithm() + ") returned "
            + result.rowCount() + " rows" + (result.output() == JoinOutput.AGGREGATED ? ", sums "
            + result.buildPayloadSum() + "/" + result.probePayloadSum() : "") + "; expected " + matches + " rows, sums "
            + buildSum + "/" + probeSum);
      }
    }

    @Override
    public void close() {
      for (HostBuffer b : buffers) {
        if (b != null) {
          b.close();
        }
      }
    }
  }

  /** Generates {@code spec} into pinned memory of {@code device}, in parallel. */
  static Workload generate(CudaDevice device, Spec spec) {
    int width = spec.type().width();
    HostBuffer[] buffers = new HostBuffer[4];
    try {
      long[] rows = {spec.buildRows(), spec.buildRows(), spec.probeRows(), spec.probeRows()};
      for (int b = 0; b < 4; b++) {
        buffers[b] = device.pinnedAllocator().allocate(Math.max(width, rows[b] * width));
      }
      fillBuild(spec, buffers[0].address(), buffers[1].address());
      long[] answer = fillProbe(spec, buffers[2].address(), buffers[3].address());
      return new Workload(spec, buffers, answer[0], answer[1], answer[2]);
    } catch (RuntimeException | Error e) {
      for (HostBuffer b : buffers) {
        if (b != null) {
          b.close();
        }
      }
      throw e;
    }
  }

  private static void fillBuild(Spec spec, long keys, long payloads) {
    long n = spec.buildRows();
    forEachSegment(n, spec.seed(), (first, end, random) -> {
      for (long i = first; i < end; i++) {
        long key = key(spec, (i * PERMUTE) & (n - 1));
        put(spec.type(), keys, i, key);
        put(spec.type(), payloads, i, payloadOf(key));
      }
    });
  }

  /** Fills S; returns {matches, build payload sum, probe payload sum} over the matching rows. */
  private static long[] fillProbe(Spec spec, long keys, long payloads) {
    long n = spec.buildRows();
    ZipfDistribution zipf = spec.zipf() > 0 ? new ZipfDistribution(Math.toIntExact(n), spec.zipf()) : null;
    AtomicLongArray answer = new AtomicLongArray(3);
    forEachSegment(spec.probeRows(), spec.seed() + 1, (first, end, random) -> {
      long matches = 0;
      long buildSum = 0;
      long probeSum = 0;
      for (long i = first; i < end; i++) {
        long payload = nonZero(spec.type(), random.nextLong());
        long key;
        if (random.nextDouble() < spec.selectivity()) {
          long rank = zipf != null ? zipf.sample(random) : random.nextLong(n);
          key = key(spec, (rank * PERMUTE) & (n - 1));  // hot ranks scattered over R
          matches++;
          buildSum += widen(spec.type(), payloadOf(key));
          probeSum += widen(spec.type(), payload);
        } else {
          key = key(spec, n + random.nextLong(n));  // outside R's key set
        }
        put(spec.type(), keys, i, key);
        put(spec.type(), payloads, i, payload);
      }
      answer.addAndGet(0, matches);
      answer.addAndGet(1, buildSum);
      answer.addAndGet(2, probeSum);
    });
    return new long[] {answer.get(0), answer.get(1), answer.get(2)};
  }

  /** The key of ordinal {@code k}: k itself (dense) or scrambled by an odd multiplier (a bijection, sparse). */
  private static long key(Spec spec, long k) {
    if (!spec.sparse()) {
      return k;
    }
    return spec.type() == ColumnType.INT32 ? (int) (k * SPARSE) : k * SPARSE;
  }

  private static long payloadOf(long key) {
    long h = (key ^ (key >>> 31)) * PERMUTE;
    return (h ^ (h >>> 29)) | 1;
  }

  private static long nonZero(ColumnType type, long v) {
    return type == ColumnType.INT32 ? ((int) v | 1) : v | 1;
  }

  private static long widen(ColumnType type, long v) {
    return type == ColumnType.INT32 ? (int) v : v;
  }

  private static void put(ColumnType type, long base, long row, long value) {
    if (type == ColumnType.INT32) {
      MemoryUtil.putInt(base + 4 * row, (int) value);
    } else {
      MemoryUtil.putLong(base + 8 * row, value);
    }
  }

  private static long[] toArray(HostColumn column) {
    long n = column.rowCount();
    long[] out = new long[Math.toIntExact(n)];
    forEachSegment(n, 0, (first, end, random) -> {
      for (long i = first; i < end; i++) {
        out[(int) i] = column.type() == ColumnType.INT32 ? MemoryUtil.getInt(column.addressOf(i))
            : MemoryUtil.getLong(column.addressOf(i));
      }
    });
    return out;
  }

  private interface SegmentTask {
    void run(long first, long end, SplittableRandom random);
  }

  /**
   * Runs {@code task} over segments of 2^20 rows on all cores; segment s draws from its own stream of
   * {@code seed}, so the data does not depend on the parallelism.
   */
  private static void forEachSegment(long rows, long seed, SegmentTask task) {
    int segments = (int) ((rows + SEGMENT - 1) / SEGMENT);
    IntStream.range(0, segments).parallel().forEach(s -> task.run((long) s * SEGMENT,
        Math.min(rows, (long) (s + 1) * SEGMENT), new SplittableRandom(seed * PERMUTE + s)));
  }
}
