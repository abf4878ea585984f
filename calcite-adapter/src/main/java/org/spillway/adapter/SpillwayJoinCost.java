package org.spillway.adapter;

import org.spillway.gpu.calibrate.MachineProfile;
import org.spillway.gpu.plan.JoinChoice;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Predicts the time of each equi-join algorithm for one join from the machine profile and the estimated
 * sizes and key statistics of its sides (digest-joins-transfers.md, sections 4.2 and 4.3): CPU NOPA (perfect
 * hash for dense unique keys, else linear probing), the CPU radix join, GPU NOPA with its table in GPU, hybrid
 * or host memory (P1, hybrid throughput J = A*G + (1-A)*C) and Triton (P2: B1 by the C/2 rule, B2 so a
 * sub-partition fits shared memory, 1-2x transfer volume by the cached share). Every time counts the join
 * proper and handing its row-id pairs back; scanning the sides and gathering the output are the same for all.
 *
 * <p>The CPU joins' rates come from the machine profile where calibration measured them; constants that
 * calibration does not measure (and the CPU rates of an older profile) are the documented measurements below,
 * marked ASSUMPTION.
 */
final class SpillwayJoinCost {
  /**
   * ASSUMPTION (docs/bench/tpch/session10/README.md, traces of TPC-H Q9 on the H100 host): a build side's upload
   * through pinned staging runs at this share of a pinned copy's rate, bounded by the threads filling the staging
   * buffers from Arrow columns or Java arrays.
   */
  static final double STAGED_UPLOAD_SHARE = 0.35;
  /**
   * ASSUMPTION (docs/bench/tpch/session10/README.md, TPC-H Q4 on the H100 host): a pipeline that makes a build side's
   * rows in host memory (rows returned from the GPU or made by the CPU into Java arrays) writes them at about this
   * many bytes per second; taken where the profile did not measure the rows a GPU pipeline returns.
   */
  static final double HOST_BUILD_ROWS_BYTES_PER_SECOND = 5e9;
  /**
   * Columns of the rows whose return the calibration times (PipelineRunProbe: two 8-byte columns): the host's time
   * per returned row scales with them, as its assembly copies each column.
   */
  static final int CALIBRATED_ROW_COLUMNS = 2;
  /**
   * ASSUMPTION (docs/bench/cpu-join/README.md, CpuJoinBenchmark on the 16-core H100 host, medians): tuples
   * (|R| + |S|) per second per thread. NOPA perfect hash, workload A dense: 0.631 G/s on 16 threads.
   */
  static final double CPU_NOPA_PERFECT_PER_THREAD = 0.631e9 / 16;
  /** ASSUMPTION, same source: NOPA linear probing beyond the caches, A sparse: 0.116 G/s on 16 threads. */
  static final double CPU_NOPA_PROBING_PER_THREAD = 0.116e9 / 16;
  /**
   * ASSUMPTION, same source: a table that fits the last-level cache, workload B (|R| = 2^13): 0.317 G/s on 16
   * threads; taken for linear probing too when its table is as small ({@link #linearProbingRate}).
   */
  static final double CPU_NOPA_CACHED_PER_THREAD = 0.317e9 / 16;
  /**
   * ASSUMPTION, same source: radix join, A dense 0.180 G/s and A sparse 0.098 G/s on 16 threads. Calibration
   * measures sparse keys only; dense keys are charged the measured rate times this dense/sparse ratio.
   */
  static final double CPU_RADIX_DENSE_PER_THREAD = 0.180e9 / 16;
  static final double CPU_RADIX_SPARSE_PER_THREAD = 0.098e9 / 16;
  /** The radix join's defaults (CpuRadixJoin: 1 MiB L2, at most 10 bits per pass). */
  static final long CPU_RADIX_L2_BYTES = 1 << 20;
  static final int CPU_RADIX_SINGLE_PASS_BITS = 10;
  /**
   * The table of the cached workload that calibration times (CpuJoinProbe: 2^13 build rows, two 16-byte slots a
   * row): a linear-probing table up to this size probes at the cached rate.
   */
  static final long CPU_CACHED_TABLE_BYTES = 2L * (1 << 13) * 16;
  /**
   * ASSUMPTION: a linear-probing table of this size or more misses the last-level cache on nearly every probe, as the
   * large workload's table does, and probes at its rate (not calibrated). Between the two sizes the rate moves from
   * one to the other in proportion to the logarithm of the table's size: a table in the L3 cache probes slower than
   * one in L2 (TPC-H Q14 built a 32 MiB table of filtered lineitem rows at the cached rate and ran several times
   * slower than building on part).
   */
  static final long CPU_LLC_MISS_TABLE_BYTES = 64L << 20;
  /**
   * ASSUMPTION (same README, development machine, 2 threads): materialized output cost 13 ns per output row
   * over the aggregated join (A dense: 0.053 vs 0.155 G tuples/s), i.e. 26 ns per row on one thread.
   */
  static final double CPU_OUTPUT_SECONDS_PER_ROW_THREAD = 26e-9;
  /**
   * ASSUMPTION: what building one row costs in probing ones, in the pipelined CPU hash join ({@code JoinProbe}). A
   * build row is materialized by the pipeline breaker that ends its side (its columns copied out of the morsels),
   * its key encoded, hashed and scattered into the table; a probe row streams through one lookup and is gathered
   * only where it matches. Charging both alike let the cached table's rate make the planner build on the larger side
   * (TPC-H Q14 on the H100 host's profile: filtered lineitem instead of part, several times slower).
   */
  static final double CPU_BUILD_ROW_IN_PROBE_ROWS = 4;
  /** ASSUMPTION (P1 on V100, digest 4.2): GPU build and probe rates into a table in HBM at 900 GB/s. */
  static final double GPU_BUILD_PER_SECOND_V100 = 1.8e9;
  static final double GPU_PROBE_PER_SECOND_V100 = 4.3e9;
  static final double V100_MEMORY_GB_PER_SECOND = 900;
  /** ASSUMPTION: GPU memory kept free of tables for transfer buffers and kernels' state. */
  static final long GPU_RESERVE_BYTES = 256L << 20;
  /**
   * ASSUMPTION: fixed cost of a join table in a GPU pipeline (allocations, the build launch, reading its flags),
   * not calibrated.
   */
  static final double GPU_PIPELINED_JOIN_SECONDS = 0.3e-3;
  /** Bytes per entry of a GPU NOPA table: 8-byte key and 8-byte value (P1's layout). */
  static final int GPU_ENTRY_BYTES = 16;
  /** Bytes per partitioned tuple in Triton: 8-byte key and 8-byte row id (P2's layout). */
  static final int TRITON_TUPLE_BYTES = 16;
  /** ASSUMPTION (P2's example, digest 2.5): shared memory a Triton sub-partition's table fills. */
  static final long TRITON_SCRATCHPAD_BYTES = 64L << 10;
  /** P2's repository: 8 KiB of partition buffer per partition and thread block; 32 MiB slack. */
  static final long TRITON_BUFFER_BYTES = 8L << 10;
  static final long TRITON_SLACK_BYTES = 32L << 20;
  /** Row ids and key bytes a GPU join reads per tuple: an 8-byte key (Spillway's keys are longs). */
  static final int KEY_BYTES = 8;
  /** Bytes per output row handed back to the host: a pair of 4-byte row ids. */
  static final int PAIR_BYTES = 8;

  /** The workloads whose rates calibration measures (MachineProfile's keys). */
  static final List<String> CPU_WORKLOADS = List.of(MachineProfile.CPU_JOIN_NOPA_PERFECT_HASH,
      MachineProfile.CPU_JOIN_NOPA_LINEAR_PROBING, MachineProfile.CPU_JOIN_NOPA_LINEAR_PROBING_CACHED,
      MachineProfile.CPU_JOIN_RADIX);

  private final MachineProfile profile;

  SpillwayJoinCost(MachineProfile profile) {
    this.profile = profile;
  }

  /** What the model knows of one orientation of a join: the sides' sizes and the build key. */
  record Estimate(double buildRows, double probeRows, double outputRows, SpillwayStatistics.KeyStatistics buildKey,
      boolean buildLeft) {
    /** Whether the build keys suit NOPA's array table: unique and dense (as PerfectHashTable.fits decides). */
    boolean denseUniqueKeys() {
      return buildKey != null && buildKey.unique() && buildKey.range() <= 2 * Math.max(1, buildRows);
    }
  }

  /** Radix bits of a partitioning join's first and second pass. */
  record RadixBits(int first, int second) {
    @Override public String toString() {
      return first + "+" + second;
    }
  }

  /** One algorithm's predicted time for one orientation, and the parameters EXPLAIN shows. */
  record Candidate(SpillwayJoinAlgorithm algorithm, String variant, String placement, RadixBits radixBits,
      Double cacheShare, String transfer, double seconds, boolean buildLeft) {
    String device() {
      return algorithm.gpu() ? "gpu" : "cpu";
    }

    /** The same candidate predicted at {@code time} seconds. */
    Candidate withSeconds(double time) {
      return new Candidate(algorithm, variant, placement, radixBits, cacheShare, transfer, time, buildLeft);
    }

    /** E.g. {@code nopa/gpu-table 1.20 ms}. */
    String summary() {
      return algorithm + (placement != null ? "/" + placement + "-table" : "") + " " + SpillwayJoinChoice.time(seconds);
    }
  }

  /** The CPU candidates: NOPA and radix. */
  List<Candidate> cpu(Estimate e) {
    int threads = Math.max(1, profile.cpuCores());
    double tuples = e.buildRows() + e.probeRows();
    double output = e.outputRows() * CPU_OUTPUT_SECONDS_PER_ROW_THREAD / threads;
    boolean dense = e.denseUniqueKeys();
    double probingTable = 2.0 * nextPowerOfTwo(e.buildRows()) * 16;
    double nopaRate = dense ? cpuRate(MachineProfile.CPU_JOIN_NOPA_PERFECT_HASH, CPU_NOPA_PERFECT_PER_THREAD)
        : linearProbingRate(probingTable);
    double radixRate = cpuRate(MachineProfile.CPU_JOIN_RADIX, CPU_RADIX_SPARSE_PER_THREAD)
        * (dense ? CPU_RADIX_DENSE_PER_THREAD / CPU_RADIX_SPARSE_PER_THREAD : 1);
    int bits = JoinChoice.cpuRadixBits((long) Math.ceil(e.buildRows()), CPU_RADIX_L2_BYTES);
    int bits1 = bits <= CPU_RADIX_SINGLE_PASS_BITS ? bits : (bits + 1) / 2;
    return List.of(
        new Candidate(SpillwayJoinAlgorithm.CPU_NOPA, dense ? "perfect-hash" : "linear-probing", null, null, null,
            "none", pipelinedTuples(e) / nopaRate + output, e.buildLeft()),
        new Candidate(SpillwayJoinAlgorithm.CPU_RADIX, null, null, new RadixBits(bits1, bits - bits1), null, "none",
            pipelinedTuples(e) / radixRate + materialized(e, threads) + output, e.buildLeft()));
  }

  /**
   * Share of a matching probe row's cost that a mark join's probe row without a match costs: it stops at the first
   * empty slot, where a match walks every build row of its key and evaluates each mark's condition on the pair.
   */
  static final double CPU_MARK_MISS_SHARE = 0.1;

  /**
   * What a mark join's CPU probe costs a probe row that matches, against a linear-probing table over
   * {@code buildRows} rows (one without a match costs {@link #CPU_MARK_MISS_SHARE} of it).
   */
  double cpuMarkSecondsPerRow(double buildRows) {
    return 1 / linearProbingRate(2.0 * nextPowerOfTwo(buildRows) * 16);
  }

  /**
   * The linear-probing NOPA rate of a table of {@code tableBytes}: the cached workload's rate up to its table's size,
   * the large workload's from {@link #CPU_LLC_MISS_TABLE_BYTES}, and between them a geometric interpolation by the
   * logarithm of the size.
   */
  double linearProbingRate(double tableBytes) {
    double cached = cpuRate(MachineProfile.CPU_JOIN_NOPA_LINEAR_PROBING_CACHED, CPU_NOPA_CACHED_PER_THREAD);
    double large = cpuRate(MachineProfile.CPU_JOIN_NOPA_LINEAR_PROBING, CPU_NOPA_PROBING_PER_THREAD);
    double t = Math.log(tableBytes / CPU_CACHED_TABLE_BYTES)
        / Math.log((double) CPU_LLC_MISS_TABLE_BYTES / CPU_CACHED_TABLE_BYTES);
    t = Math.min(1, Math.max(0, t));
    return Math.exp((1 - t) * Math.log(cached) + t * Math.log(large));
  }

  /**
   * What a join that is not a pipeline operator (the radix join, a node that pairs row ids) pays beyond the pipelined
   * probe: its probe side is collected into columns before it runs (the pipelined probe streams it), a row at the
   * rate of a gathered output row. Its build side is collected in both, which {@link #pipelinedTuples} weighs.
   */
  static double materialized(Estimate e, int threads) {
    return e.probeRows() * CPU_OUTPUT_SECONDS_PER_ROW_THREAD / threads;
  }

  /**
   * The build and probe rows of the pipelined hash join in the tuples its rate counts: a build row weighs
   * {@link #CPU_BUILD_ROW_IN_PROBE_ROWS} probe rows, scaled so that a join of the rates' shape
   * ({@link MachineProfile#CPU_JOIN_PROBE_PER_BUILD}) counts |R| + |S|, as measured. Of two orientations of equal rates, the one
   * that builds on the smaller side costs less.
   */
  static double pipelinedTuples(Estimate e) {
    double w = CPU_BUILD_ROW_IN_PROBE_ROWS;
    double k = MachineProfile.CPU_JOIN_PROBE_PER_BUILD;
    return (w * e.buildRows() + e.probeRows()) * (1 + k) / (w + k);
  }

  /**
   * A CPU join's rate in tuples per second on all cores: measured by calibration where the profile has it,
   * else the per-thread ASSUMPTION times the profile's cores.
   */
  double cpuRate(String workload, double assumedPerThread) {
    Double rate = measuredCpuRate(workload);
    return rate != null ? rate : assumedPerThread * Math.max(1, profile.cpuCores());
  }

  /** Whether calibration measured every CPU join rate, so that no CPU join is charged an ASSUMPTION rate. */
  boolean cpuRatesMeasured() {
    return CPU_WORKLOADS.stream().allMatch(w -> measuredCpuRate(w) != null);
  }

  /** The profile's positive measured rate of a CPU join workload, or null. */
  private Double measuredCpuRate(String workload) {
    Map<String, Double> measured = profile.cpuJoinTuplesPerSecond();
    Double rate = measured == null ? null : measured.get(workload);
    return rate != null && rate > 0 ? rate : null;
  }

  /**
   * The pipelined CPU hash join of one orientation (its probe a stage of the probe side's pipeline): the CPU NOPA
   * candidate's time.
   */
  double cpuPipelinedProbeSeconds(Estimate e) {
    return cpu(e).get(0).seconds();
  }

  /** The share of {@link #cpuPipelinedProbeSeconds} that builds the table: its build rows' share of the tuples. */
  double cpuBuildSeconds(Estimate e) {
    double tuples = e.buildRows() + e.probeRows();
    return tuples <= 0 ? 0 : cpuPipelinedProbeSeconds(e) * e.buildRows() / tuples;
  }

  /**
   * Time a pipeline takes to make {@code rows} build rows of {@code columns} columns in host memory: where the profile
   * measured what a GPU pipeline's returned rows cost the host ({@link MachineProfile#gpuRowsNanosPerRow}, rows of
   * {@link #CALIBRATED_ROW_COLUMNS} columns), that rate per column; else {@link #HOST_BUILD_ROWS_BYTES_PER_SECOND}.
   */
  double hostBuildRowsSeconds(double rows, int columns) {
    Double measured = profile.gpuRowsNanosPerRow();
    if (measured != null && measured > 0) {
      return rows * measured * 1e-9 * Math.max(1, columns) / CALIBRATED_ROW_COLUMNS;
    }
    return rows * KEY_BYTES * Math.max(1, columns) / HOST_BUILD_ROWS_BYTES_PER_SECOND;
  }

  /**
   * The same join probed inside a GPU pipeline (NOPA with its table in GPU memory): the build side's key and the
   * {@code buildColumns} columns the pipeline reads go to the GPU as 64-bit values through pinned staging buffers
   * that several threads fill ({@link #STAGED_UPLOAD_SHARE} of a pinned copy's rate), the table is built there, and
   * each probe row is one lookup in GPU memory. The probe side streams with the pipeline, whose transfer the
   * pipeline's own cost counts; nothing comes back but the pipeline's result.
   */
  double gpuPipelinedProbeSeconds(Estimate e, int buildColumns) {
    double memoryScale = gpuMemoryGbPerSecond() / V100_MEMORY_GB_PER_SECOND;
    double staged = transfer("pinned copy", 50) * STAGED_UPLOAD_SHARE;
    double upload = e.buildRows() * KEY_BYTES * (1 + buildColumns) / (staged * 1e9);
    return GPU_PIPELINED_JOIN_SECONDS + upload + e.buildRows() / (GPU_BUILD_PER_SECOND_V100 * memoryScale)
        + e.probeRows() / (GPU_PROBE_PER_SECOND_V100 * memoryScale);
  }

  /**
   * The windowed index nested-loop joins of one orientation through an index of {@code kind} over the build side's
   * {@code indexedRows} keys, in windows of {@code windowBytes} of probe keys: on the CPU, and on the GPU where the
   * profile has one ({@link SpillwayIndexJoinCost}).
   */
  List<Candidate> inlj(Estimate e, String kind, double indexedRows, long windowBytes) {
    return indexJoins().candidates(e, kind, indexedRows, windowBytes);
  }

  /** The index join's costs on this profile. */
  SpillwayIndexJoinCost indexJoins() {
    return new SpillwayIndexJoinCost(this, profile);
  }

  /** Random reads over the link of at least a GPU line, in bytes per second; a quarter of zero-copy unmeasured. */
  double randomLinkBytesPerSecond() {
    MachineProfile.LinkAccess best = null;
    for (MachineProfile.LinkAccess a : profile.linkReads()) {
      if (a.pattern().equals("random") && a.granularityBytes() >= MachineProfile.INDEX_LINE_BYTES
          && (best == null || a.granularityBytes() < best.granularityBytes())) {
        best = a;
      }
    }
    return best != null ? best.accessesPerSecond() * best.granularityBytes() : zeroCopyBytesPerSecond() / 4;
  }

  /** Whether a table of the build side fits the GPU memory the profile's budget leaves (NOPA's GPU placement). */
  boolean fitsGpuMemory(Estimate e, int buildColumns) {
    MachineProfile.GpuInfo gpu = profile.gpu();
    double bytes = e.buildRows() * (2.0 * GPU_ENTRY_BYTES + KEY_BYTES * (1 + buildColumns));
    return gpu != null && bytes <= Math.max(0, gpu.budgetBytes() - GPU_RESERVE_BYTES);
  }

  /** The GPU candidates (NOPA with its best placement, Triton), or none when the profile has no GPU. */
  List<Candidate> gpu(Estimate e) {
    MachineProfile.GpuInfo gpu = profile.gpu();
    if (gpu == null) {
      return List.of();
    }
    List<Candidate> out = new ArrayList<>();
    out.add(nopa(e, gpu));
    out.add(triton(e, gpu));
    return out;
  }

  private Candidate nopa(Estimate e, MachineProfile.GpuInfo gpu) {
    boolean dense = e.denseUniqueKeys();
    double table = dense ? e.buildKey().range() * GPU_ENTRY_BYTES : 2.0 * nextPowerOfTwo(e.buildRows()) * GPU_ENTRY_BYTES;
    double room = Math.max(0, gpu.budgetBytes() - GPU_RESERVE_BYTES);
    // a tuple's key crosses the link; its row id is its position, which the kernel counts rather than reads
    double linkTuples = zeroCopyBytesPerSecond() / KEY_BYTES;
    double memoryScale = gpuMemoryGbPerSecond() / V100_MEMORY_GB_PER_SECOND;
    double fixed = staging(e) + handBack(e);
    double inGpu = e.buildRows() / Math.min(linkTuples, GPU_BUILD_PER_SECOND_V100 * memoryScale)
        + e.probeRows() / Math.min(linkTuples, GPU_PROBE_PER_SECOND_V100 * memoryScale);
    // A table in host memory: every insert and probe is a random access over the link (P1 Sec. 5.2).
    double lookups = dense ? 1 : 1.5;
    double inHost = (e.buildRows() + e.probeRows() * lookups) / randomLinkAccessesPerSecond();
    inHost = Math.max(inHost, (e.buildRows() + e.probeRows()) / linkTuples);
    String placement;
    double seconds;
    if (table <= room) {
      placement = "gpu";
      seconds = inGpu;
    } else if (room > 0) {
      // P1's hybrid table: a share A of it in GPU memory; throughputs interpolate, J = A*G + (1-A)*C.
      double a = room / table;
      double tuples = e.buildRows() + e.probeRows();
      double throughput = a * tuples / inGpu + (1 - a) * tuples / inHost;
      placement = "hybrid";
      seconds = tuples / throughput;
    } else {
      placement = "host";
      seconds = inHost;
    }
    return new Candidate(SpillwayJoinAlgorithm.NOPA, dense ? "perfect-hash" : "linear-probing", placement, null, null,
        "zero-copy", seconds + fixed, e.buildLeft());
  }

  private Candidate triton(Estimate e, MachineProfile.GpuInfo gpu) {
    double tuples = e.buildRows() + e.probeRows();
    double budget = Math.max(1, gpu.budgetBytes());
    // B1: two partition pairs fit half of GPU memory, |R_i| + |S_i| + |R_j| + |S_j| < C/2 (P2 Sec. 5).
    int bits1 = Math.max(1, log2Ceil(2 * tuples * TRITON_TUPLE_BYTES / (budget / 2)));
    double buildPartition = e.buildRows() / Math.pow(2, bits1);
    double probePartition = e.probeRows() / Math.pow(2, bits1);
    // B2: a sub-partition of R_i fits the shared-memory table.
    int bits2 = Math.max(0, log2Ceil(buildPartition * TRITON_TUPLE_BYTES / TRITON_SCRATCHPAD_BYTES));
    double cache = budget - 2 * (buildPartition + probePartition) * 2 * TRITON_TUPLE_BYTES
        - TRITON_BUFFER_BYTES * Math.pow(2, bits1) * 2 * gpu.multiprocessors() - TRITON_SLACK_BYTES;
    double partitioned = tuples * TRITON_TUPLE_BYTES;
    double spilled = Math.min(1, Math.max(0, 1 - cache / partitioned));
    double read = zeroCopyBytesPerSecond();
    double write = hostWriteBytesPerSecond();
    double prefixSum = tuples * KEY_BYTES / read;
    double pass1 = Math.max(tuples * (KEY_BYTES + 4) / read, spilled * partitioned / write);
    double gpuJoin = tuples / (GPU_PROBE_PER_SECOND_V100 * gpuMemoryGbPerSecond() / V100_MEMORY_GB_PER_SECOND);
    double joinPhase = Math.max(spilled * partitioned / read, gpuJoin);
    double seconds = prefixSum + pass1 + joinPhase + staging(e) + handBack(e);
    return new Candidate(SpillwayJoinAlgorithm.TRITON, null, null, new RadixBits(bits1, bits2), 1 - spilled, "zero-copy",
        seconds, e.buildLeft());
  }

  /** Copying the key columns into pinned memory the GPU can read (at the CPU's scan rate). */
  double staging(Estimate e) {
    return (e.buildRows() + e.probeRows()) * KEY_BYTES / (Math.max(1, profile.cpuScanGbPerSecond()) * 1e9);
  }

  /** The output's row-id pairs over the link back to the host. */
  double handBack(Estimate e) {
    Double raw = profile.rawPinnedCopyGbPerSecond();
    double bytesPerSecond = (raw != null ? raw : transfer("pinned copy", 55)) * 1e9;
    return e.outputRows() * PAIR_BYTES / bytesPerSecond;
  }

  double zeroCopyBytesPerSecond() {
    return transfer("zero-copy", 51) * 1e9;
  }

  private double hostWriteBytesPerSecond() {
    Double w = profile.hostWriteGbPerSecond();
    return (w != null ? w : 20) * 1e9;
  }

  private double gpuMemoryGbPerSecond() {
    Double m = profile.gpuMemoryReadGbPerSecond();
    return m != null ? m : 3000;
  }

  /** Random reads over the link of the smallest measured granularity of at least 8 bytes. */
  private double randomLinkAccessesPerSecond() {
    MachineProfile.LinkAccess best = null;
    for (MachineProfile.LinkAccess a : profile.linkReads()) {
      if (a.pattern().equals("random") && a.granularityBytes() >= 8
          && (best == null || a.granularityBytes() < best.granularityBytes())) {
        best = a;
      }
    }
    return best != null ? best.accessesPerSecond() : 20e6;
  }

  /** A measured transfer rate in GB/s, or the nominal PCIe Gen5 figure where the profile lacks it. */
  private double transfer(String method, double nominal) {
    Double gbs = profile.transferGbPerSecond().get(method);
    return gbs != null && gbs > 0 ? gbs : nominal;
  }

  private static double nextPowerOfTwo(double rows) {
    return Math.pow(2, log2Ceil(Math.max(1, rows)));
  }

  private static int log2Ceil(double x) {
    return x <= 1 ? 0 : (int) Math.ceil(Math.log(x) / Math.log(2) - 1e-9);
  }
}
