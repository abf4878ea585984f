package org.spillway.gpu.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.stream.IntStream;
import org.apache.arrow.memory.util.MemoryUtil;
import org.spillway.gpu.device.CudaDevice;
import org.spillway.gpu.join.HostJoinInput;
import org.spillway.gpu.join.JoinInput;
import org.spillway.gpu.join.ZipfDistribution;
import org.spillway.gpu.transfer.ColumnType;
import org.spillway.gpu.transfer.HostColumn;

/**
 * Join workloads of Pump Up the Volume (Table 2) generated in parallel into pinned host memory, with the answer
 * every run must reproduce. R is a primary key: a permutation of 0..|R|-1 ({@code i * odd mod |R|}), multiplied
 * by an odd constant when {@code sparse} (unique, but far too spread for the array table); with
 * {@code bothSides} R instead draws its keys from the same Zipf ranks as S (identical skew on both sides, as in
 * Sioulas et al.'s Fig. 17: duplicate build keys, and more output rows than input rows; exponent 0 is uniform
 * with duplicates, their Fig. 19). S holds foreign keys:
 * with probability {@code selectivity} a key of R's key set (uniform, or Zipf-ranked with the hot ranks scattered
 * over it), otherwise a key outside it. A build payload is a hash of its key, so the expected sums are known too.
 * Every probe row draws exactly three numbers (payload, match, rank) from the SplittableRandom of its segment of
 * 2^20 rows, and a skewed build row one: {@link JoinBenchmarkDuckDb} rebuilds the same relations in SQL.
 */
final class JoinBenchmarkData {
  static final long PERMUTE = 0x9E3779B97F4A7C15L;
  static final long SPARSE = 0xD6E8FEB86659FD93L;
  static final int SEGMENT_BITS = 20;
  private static final int SEGMENT = 1 << SEGMENT_BITS;

  private JoinBenchmarkData() {}

  /** One workload: sizes (|R| a power of two), column width, key spread, skew and join selectivity. */
  record Spec(String name, long buildRows, long probeRows, ColumnType type, boolean sparse, double zipf,
      boolean bothSides, double selectivity, long seed) {
    Spec {
      if (Long.bitCount(buildRows) != 1 || probeRows < 0) {
        throw new IllegalArgumentException(name + ": |R| must be a power of two, got " + buildRows);
      }
    }

    /** A workload with a primary-key R (skew, if any, on S only). */
    Spec(String name, long buildRows, long probeRows, ColumnType type, boolean sparse, double zipf,
        double selectivity, long seed) {
      this(name, buildRows, probeRows, type, sparse, zipf, false, selectivity, seed);
    }

    long tuples() {
      return buildRows + probeRows;
    }

    /** Bytes a NOPA plan must move to the GPU at least: both relations' keys and payloads. */
    long planBytes() {
      return tuples() * 2L * type.width();
    }

    /** Whether R's keys are dense and unique, so that NOPA builds its array table (else linear probing). */
    boolean perfectHash() {
      return !sparse && !bothSides;
    }
  }

  /** A generated workload in host memory (pinned where a device generated it); close it to free. */
  static final class Workload implements AutoCloseable {
    final Spec spec;
    final HostJoinInput build;
    final HostJoinInput probe;
    final long matches;
    final long buildSum;
    final long probeSum;
    private final List<AutoCloseable> memory;
    private JoinInput cpuBuild;
    private JoinInput cpuProbe;

    private Workload(Spec spec, long[] address, List<AutoCloseable> memory, long[] answer) {
      this.spec = spec;
      this.memory = memory;
      ColumnType t = spec.type();
      this.build = HostJoinInput.of(new HostColumn("r_key", t, address[0], spec.buildRows()),
          new HostColumn("r_payload", t, address[1], spec.buildRows()));
      this.probe = HostJoinInput.of(new HostColumn("s_key", t, address[2], spec.probeRows()),
          new HostColumn("s_payload", t, address[3], spec.probeRows()));
      this.matches = answer[0];
      this.buildSum = answer[1];
      this.probeSum = answer[2];
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

    /** Drops the Java copies (and lets the heap shrink) so that the next join has the host memory. */
    void releaseCpuCopies() {
      if (cpuBuild != null || cpuProbe != null) {
        cpuBuild = null;
        cpuProbe = null;
        System.gc();
      }
    }

    /** Fails unless {@code t} (an INNER join fused into count and sums) is this workload's answer. */
    void check(JoinBenchmarkJoins.Timed t, String who) {
      if (t.rows() != matches || t.buildSum() != buildSum || t.probeSum() != probeSum) {
        throw new IllegalStateException(spec.name() + ": " + who + " (" + t.algorithm() + ") returned " + t.rows()
            + " rows, sums " + t.buildSum() + "/" + t.probeSum() + "; expected " + matches + " rows, sums "
            + buildSum + "/" + probeSum);
      }
    }

    @Override
    public void close() {
      for (AutoCloseable m : memory) {
        try {
          m.close();
        } catch (Exception e) {
          throw new IllegalStateException("freeing workload " + spec.name() + ": " + e, e);
        }
      }
      memory.clear();
    }
  }

  /**
   * Generates {@code spec} in parallel into pinned memory of {@code device}, or into plain off-heap memory where
   * {@code device} is null (CPU-only runs and tests).
   */
  static Workload generate(CudaDevice device, Spec spec) {
    int width = spec.type().width();
    List<AutoCloseable> memory = new ArrayList<>();
    long[] address = new long[4];
    try {
      long[] rows = {spec.buildRows(), spec.buildRows(), spec.probeRows(), spec.probeRows()};
      for (int b = 0; b < 4; b++) {
        long bytes = Math.max(width, rows[b] * width);
        if (device != null) {
          var buffer = device.pinnedAllocator().allocate(bytes);
          memory.add(buffer);
          address[b] = buffer.address();
        } else {
          long raw = MemoryUtil.allocateMemory(bytes);
          memory.add(() -> MemoryUtil.freeMemory(raw));
          address[b] = raw;
        }
      }
      AtomicIntegerArray counts = fillBuild(spec, address[0], address[1]);
      return new Workload(spec, address, memory, fillProbe(spec, counts, address[2], address[3]));
    } catch (RuntimeException | Error e) {
      for (AutoCloseable m : memory) {
        try {
          m.close();
        } catch (Exception suppressed) {
          e.addSuppressed(suppressed);
        }
      }
      throw e;
    }
  }

  /** Fills R; with skew on both sides returns how often each key ordinal occurs, else null (each once). */
  private static AtomicIntegerArray fillBuild(Spec spec, long keys, long payloads) {
    long n = spec.buildRows();
    boolean skewed = spec.bothSides();
    ZipfDistribution zipf = skewed && spec.zipf() > 0 ? new ZipfDistribution(Math.toIntExact(n), spec.zipf()) : null;
    AtomicIntegerArray counts = skewed ? new AtomicIntegerArray(Math.toIntExact(n)) : null;
    forEachSegment(n, spec.seed(), (first, end, random) -> {
      for (long i = first; i < end; i++) {
        long rank = !skewed ? i : zipf != null ? zipf.sample(random) : random.nextLong(n);
        long ordinal = (rank * PERMUTE) & (n - 1);
        if (counts != null) {
          counts.incrementAndGet((int) ordinal);
        }
        long key = key(spec, ordinal);
        put(spec.type(), keys, i, key);
        put(spec.type(), payloads, i, payloadOf(key));
      }
    });
    return counts;
  }

  /** Fills S; returns {output rows, build payload sum, probe payload sum} of the INNER join with R. */
  private static long[] fillProbe(Spec spec, AtomicIntegerArray counts, long keys, long payloads) {
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
          long ordinal = (rank * PERMUTE) & (n - 1);  // hot ranks scattered over R
          key = key(spec, ordinal);
          long copies = counts == null ? 1 : counts.get((int) ordinal);  // R rows with this key
          matches += copies;
          buildSum += copies * widen(spec.type(), payloadOf(key));
          probeSum += copies * widen(spec.type(), payload);
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

  /** Row {@code row} of {@code column}, widened to a long. */
  static long get(HostColumn column, long row) {
    return column.type() == ColumnType.INT32 ? MemoryUtil.getInt(column.addressOf(row))
        : MemoryUtil.getLong(column.addressOf(row));
  }

  private static long[] toArray(HostColumn column) {
    long n = column.rowCount();
    long[] out = new long[Math.toIntExact(n)];
    forEachSegment(n, 0, (first, end, random) -> {
      for (long i = first; i < end; i++) {
        out[(int) i] = get(column, i);
      }
    });
    return out;
  }

  private interface SegmentTask {
    void run(long first, long end, SplittableRandom random);
  }

  /**
   * Runs {@code task} over segments of 2^20 rows on all cores; segment s draws from its own stream, a
   * SplittableRandom seeded {@code seed * PERMUTE + s}, so the data does not depend on the parallelism.
   */
  private static void forEachSegment(long rows, long seed, SegmentTask task) {
    int segments = (int) ((rows + SEGMENT - 1) / SEGMENT);
    IntStream.range(0, segments).parallel().forEach(s -> task.run((long) s * SEGMENT,
        Math.min(rows, (long) (s + 1) * SEGMENT), new SplittableRandom(seed * PERMUTE + s)));
  }
}
