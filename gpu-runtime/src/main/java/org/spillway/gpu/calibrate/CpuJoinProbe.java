package org.spillway.gpu.calibrate;

import java.io.PrintStream;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.function.Supplier;
import org.spillway.gpu.bench.MethodTimer;
import org.spillway.gpu.join.radix.CpuRadixJoin;
import org.spillway.gpu.join.EquiJoin;
import org.spillway.gpu.join.JoinInput;
import org.spillway.gpu.join.JoinOutput;
import org.spillway.gpu.join.JoinResult;
import org.spillway.gpu.join.JoinType;

/**
 * Measures the CPU joins' rates on this machine with all cores, in tuples (|R| + |S|) per second of a whole join
 * (build and probe) with aggregated output: the rates the join cost model charges the CPU NOPA and radix joins. The
 * NOPA workloads run the join that candidate runs in a query, the pipelined hash join ({@link PipelinedHashJoin}: a
 * direct array for the dense keys, the unchained table for the sparse ones); the radix workload the radix join.
 * Constants measured once on an H100 host predicted the H200 host's NOPA join 1.9x too slow, so the CPU side of
 * the join choice needs this machine's numbers as much as the GPU side does. Build keys are unique and every
 * probe key is drawn from them (exactly one match), so the row count and the probe payload sum are known and
 * a broken join cannot calibrate.
 */
final class CpuJoinProbe {
  /** Probe rows per build row of the large workloads. */
  static final int PROBE_PER_BUILD = MachineProfile.CPU_JOIN_PROBE_PER_BUILD;
  /** Build rows of the cached workload: a 256 KiB table, within any last-level cache (Pump's workload B). */
  static final int CACHED_BUILD_ROWS = 1 << 13;
  /** Probe rows at most, so that the full calibration stays within seconds (2^26: 1 GiB of keys and payloads). */
  static final int MAX_PROBE_ROWS = 1 << 26;
  /** Bytes per probe row: an 8-byte key and an 8-byte payload. */
  static final int PROBE_ROW_BYTES = 16;
  /**
   * Untimed runs first: the JIT compiles the build and probe loops during the first run (on-stack replacement
   * of one morsel loop per thread), so the first run is the interpreter's and the second still partly so.
   */
  private static final int WARMUP_RUNS = 2;
  /** An odd multiplier: a bijection on 64-bit keys that spreads 0..R-1 over the whole range (sparse keys). */
  private static final long SPARSE = 0xBF58476D1CE4E5B9L;
  private static final long SCATTER = 1_000_000_007L;

  private CpuJoinProbe() {}

  /**
   * Median rates of {@code reps} runs per workload with a probe side of about {@code bytes} of keys and
   * payloads (capped at {@link #MAX_PROBE_ROWS} rows) and a build side 1/{@link #PROBE_PER_BUILD} of it, whose
   * unchained hash table takes 24 to 32 B a key (a 16-byte tuple and 8 to 16 B of directory).
   */
  static Map<String, Double> tuplesPerSecond(long bytes, int reps, PrintStream progress) {
    int probeRows = (int) Math.min(MAX_PROBE_ROWS, Math.max(PROBE_PER_BUILD * CACHED_BUILD_ROWS,
        bytes / PROBE_ROW_BYTES));
    return tuplesPerSecond(probeRows / PROBE_PER_BUILD, probeRows, reps, progress);
  }

  /** Median rates of {@code reps} runs per workload: R = {@code buildRows}, S = {@code probeRows}. */
  static Map<String, Double> tuplesPerSecond(int buildRows, int probeRows, int reps, PrintStream progress) {
    int threads = Runtime.getRuntime().availableProcessors();
    Map<String, Double> rates = new LinkedHashMap<>();
    SplittableRandom random = new SplittableRandom(8);
    long[] payloads = random.longs(probeRows, 0, Integer.MAX_VALUE).toArray();
    long[] buildPayloads = random.longs(buildRows, 0, Integer.MAX_VALUE).toArray();
    long payloadSum = 0;
    for (long p : payloads) {
      payloadSum += p;
    }
    try (EquiJoin radix = new CpuRadixJoin(threads)) {
      long[] buildKeys = scatteredRange(buildRows);
      long[] probeKeys = drawFrom(buildKeys, new long[probeRows], random);
      double tuples = (double) buildRows + probeRows;
      time(rates, MachineProfile.CPU_JOIN_NOPA_PERFECT_HASH, () -> PipelinedHashJoin.run(buildKeys, buildPayloads,
          probeKeys, payloads, threads), tuples, probeRows, payloadSum, reps, threads, progress);
      sparse(buildKeys);
      sparse(probeKeys);
      time(rates, MachineProfile.CPU_JOIN_NOPA_LINEAR_PROBING, () -> PipelinedHashJoin.run(buildKeys, buildPayloads,
          probeKeys, payloads, threads), tuples, probeRows, payloadSum, reps, threads, progress);
      JoinInput build = JoinInput.of(buildKeys, buildPayloads);
      JoinInput probe = JoinInput.of(probeKeys, payloads);
      time(rates, MachineProfile.CPU_JOIN_RADIX, () -> result(radix.join(build, probe, JoinType.INNER,
          JoinOutput.AGGREGATED)), tuples, probeRows, payloadSum, reps, threads, progress);
      long[] cachedKeys = scatteredRange(Math.min(buildRows, CACHED_BUILD_ROWS));
      sparse(cachedKeys);
      long[] cachedPayloads = Arrays.copyOf(buildPayloads, cachedKeys.length);
      // The large workloads are done: their probe keys are redrawn in place, which halves the memory needed.
      long[] cachedProbeKeys = drawFrom(cachedKeys, probeKeys, random);
      time(rates, MachineProfile.CPU_JOIN_NOPA_LINEAR_PROBING_CACHED, () -> PipelinedHashJoin.run(cachedKeys,
          cachedPayloads, cachedProbeKeys, payloads, threads), (double) cachedKeys.length + probeRows, probeRows,
          payloadSum, reps, threads, progress);
    }
    return rates;
  }

  /** Times {@code join} after {@link #WARMUP_RUNS} untimed runs, checking every run; puts the median rate. */
  private static void time(Map<String, Double> rates, String workload, Supplier<PipelinedHashJoin.Result> join,
      double tuples, long probeRows, long probePayloadSum, int reps, int threads, PrintStream progress) {
    double[] perSecond = new double[reps];
    String algorithm = "";
    for (int r = -WARMUP_RUNS; r < reps; r++) {
      long t0 = System.nanoTime();
      PipelinedHashJoin.Result result = join.get();
      long nanos = System.nanoTime() - t0;
      check(workload, result, probeRows, probePayloadSum);
      algorithm = result.algorithm();
      if (r >= 0) {
        perSecond[r] = tuples * 1e9 / nanos;
      }
    }
    double median = MethodTimer.median(perSecond);
    rates.put(workload, median);
    progress.printf("  CPU join %-26s %-24s (%d threads, %d tuples): %7.3f G tuples/s%n", workload, algorithm,
        threads, (long) tuples, median / 1e9);
  }

  /** A materialized join's aggregated result as a pipelined one's. */
  static PipelinedHashJoin.Result result(JoinResult result) {
    return new PipelinedHashJoin.Result(result.rowCount(), result.probePayloadSum(), result.algorithm());
  }

  /** Every probe row matches exactly once: the join must count them all and sum their payloads. */
  static void check(String workload, PipelinedHashJoin.Result result, long probeRows, long probePayloadSum) {
    if (result.rows() != probeRows || result.probePayloadSum() != probePayloadSum) {
      throw new IllegalStateException("CPU join probe " + workload + " (" + result.algorithm() + "): "
          + result.rows() + " rows and probe payload sum " + result.probePayloadSum() + ", expected "
          + probeRows + " and " + probePayloadSum);
    }
  }

  /**
   * 0..n-1 in scattered order, i x p mod n for the prime p = 1,000,000,007 (which exceeds any n here, so is
   * coprime to it and the map is a permutation; 2^31 - 1 would reverse powers of two): unique, dense keys whose
   * inserts stride across the table, as shuffled ones land all over it.
   */
  private static long[] scatteredRange(int n) {
    long[] keys = new long[n];
    for (int i = 0; i < n; i++) {
      keys[i] = i * SCATTER % n;
    }
    return keys;
  }

  /** Fills {@code out} with keys drawn uniformly from {@code keys}, so each has exactly one match there. */
  private static long[] drawFrom(long[] keys, long[] out, SplittableRandom random) {
    for (int i = 0; i < out.length; i++) {
      out[i] = keys[random.nextInt(keys.length)];
    }
    return out;
  }

  /** Spreads the keys over the 64-bit range in place; unique keys stay unique and matches stay matches. */
  private static void sparse(long[] keys) {
    for (int i = 0; i < keys.length; i++) {
      keys[i] *= SPARSE;
    }
  }
}
