package org.spillway.adapter;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.spillway.adapter.SpillwayJoinCost.Candidate;
import org.spillway.adapter.SpillwayJoinCost.Estimate;
import org.spillway.gpu.calibrate.MachineProfile;
import org.spillway.gpu.plan.IndexJoinNode;

/**
 * Predicts the windowed index nested-loop join (digest 3.3) of one orientation through an index of a kind over the
 * build side's keys: the build side is neither scanned nor built, each probe row is a lookup and a key partitioned in
 * its window, and the probe side is collected into columns first, as for any join node of its own.
 *
 * <p>On the CPU a lookup costs the model's steps and lines missed, scaled to the binary search's or RadixSpline's
 * rate that calibration measured beyond the last-level cache ({@link MachineProfile.IndexLookupRates}), and the
 * threads take the probe's windows in rounds ({@link IndexJoinNode#cpuWindowCount}). On the GPU the
 * probe keys cross the link, and every line a lookup misses in L2 is a random read of
 * {@value MachineProfile#INDEX_LINE_BYTES} B over it: at the measured rate within the TLB's reach, or, where the index
 * exceeds the reach and a window's partition has too few lookups per page to share its translation, towards the rate
 * measured beyond it. Unmeasured rates are the ASSUMPTIONs below.
 */
final class SpillwayIndexJoinCost {
  /**
   * ASSUMPTION (not calibrated): one step of an index search on the CPU whose line a cache holds: a dependent load
   * from L2 or L3 and a compare, with the 16 searches a vector lookup interleaves (LookupGroup) hiding part of it.
   */
  static final double CPU_INDEX_STEP_SECONDS = 4e-9;
  /** ASSUMPTION: the CPU's last-level cache, which keeps an index's upper levels (not calibrated). */
  static final long CPU_INDEX_CACHE_BYTES = 32L << 20;
  /** ASSUMPTION: the windowed join's partitioning of one probe key and putting its match back, per thread. */
  static final double CPU_WINDOW_PARTITION_SECONDS = 3e-9;
  /** ASSUMPTION: the GPU's L2 cache, which keeps an index's upper levels (the H100's 50 MiB). */
  static final long GPU_L2_BYTES = 50L << 20;
  /**
   * ASSUMPTION (not calibrated): what the GPU index join costs beyond its keys and lines: a window's five kernel
   * launches, the copy of its rows back and the synchronization with its stream.
   */
  static final double GPU_FIXED_SECONDS = 0.1e-3;
  /** ASSUMPTION (digest 1.5, LA-SWWC in GPU memory): probe keys the GPU radix-partitions per second. */
  static final double GPU_WINDOW_PARTITION_PER_SECOND = 10e9;
  /**
   * ASSUMPTION (digest 1.4, the V100's): host memory the GPU's TLB covers; an index within it never misses the TLB.
   * Calibration measures the rate on either side of it, not the reach itself.
   */
  static final long GPU_TLB_REACH_BYTES = 32L << 30;
  /** ASSUMPTION: the pages the GPU translates host memory in; a partition's lookups share a page's translation. */
  static final long GPU_PAGE_BYTES = 2L << 20;
  /**
   * ASSUMPTION (digest 1.5: up to 16.7x throughput lost to translations): random line reads beyond the TLB's reach
   * at this fraction of the rate within it, where calibration did not measure the region beyond.
   */
  static final double ASSUMED_BEYOND_TLB_SHARE = 1.0 / 8;
  /** Bytes of a line the GPU reads over the link per random access, and of a CPU cache line. */
  static final int GPU_LINE_BYTES = MachineProfile.INDEX_LINE_BYTES;
  static final int CPU_LINE_BYTES = 64;
  /** Keys of the window a RadixSpline lookup searches last (the artifact's error bound 32: 2 x 32 + 2). */
  static final int RADIX_SPLINE_LAST_MILE_KEYS = 66;
  /**
   * MEASURED ONCE (H200, session 16, `docs/bench/index-join`): the GPU's RadixSpline lookups read their lines over the
   * link this many times faster than calibration's random line reads, which keep one read in flight per thread, where
   * the lookup keeps four (radix_spline.cu's estimate, reads, finish). Over 1 GiB translation slices of a 32 GiB index,
   * at 1 %, 5 % and 20 % selectivity, the join took 0.32-0.34 of the time the model gave it without this. Over larger
   * regions (one launch over 32 GiB) translations bound the reads instead, and the model without it held.
   */
  static final double GPU_RADIX_SPLINE_READS_IN_FLIGHT = 3.0;
  /** The largest region of the index one launch reads where {@link #GPU_RADIX_SPLINE_READS_IN_FLIGHT} was measured. */
  static final long GPU_READS_IN_FLIGHT_REGION_BYTES = 1L << 30;
  /**
   * Lines the GPU's RadixSpline lookup reads where the estimate does not answer it: it walks the window a line at a
   * time from the estimate's to the key's (radix_spline.cu), and a key lies on average a quarter of the window (half
   * the error bound) from its estimate: the estimate's line and one more.
   */
  static final double GPU_RADIX_SPLINE_WALK_LINES =
      1 + (RADIX_SPLINE_LAST_MILE_KEYS - 2) / 4.0 * SpillwayJoinCost.KEY_BYTES / MachineProfile.INDEX_LINE_BYTES;
  /**
   * ASSUMPTION: the share of RadixSpline lookups that the spline's estimate answers (the key is at the estimate, or
   * between the estimate's row and its neighbour, so in no row), reading the column's one line there and searching
   * nothing. The planner does not know how evenly its keys are spaced (evenly spaced keys give every key its row;
   * TPC-H's order keys, runs of 8 in every 32, few), so it charges every lookup the search.
   */
  static final double ASSUMED_EXACT_SPLINE_SHARE = 0;
  private static final int KEY_BYTES = SpillwayJoinCost.KEY_BYTES;

  private final SpillwayJoinCost joins;
  private final MachineProfile profile;
  private final double exactSplineShare;

  SpillwayIndexJoinCost(SpillwayJoinCost joins, MachineProfile profile) {
    this(joins, profile, ASSUMED_EXACT_SPLINE_SHARE);
  }

  /** The costs where the spline's estimate answers a share {@code exactSplineShare} of RadixSpline lookups. */
  SpillwayIndexJoinCost(SpillwayJoinCost joins, MachineProfile profile, double exactSplineShare) {
    if (!(exactSplineShare >= 0 && exactSplineShare <= 1)) {
      throw new IllegalArgumentException("a share of lookups is in [0, 1], got " + exactSplineShare);
    }
    this.joins = joins;
    this.profile = profile;
    this.exactSplineShare = exactSplineShare;
  }

  /**
   * The CPU index join through an index of {@code kind} over {@code indexedRows} keys in windows of
   * {@code windowBytes} of probe keys, and the GPU one where the profile has a GPU. Each is its join proper
   * ({@link #cpuJoinSeconds}, {@link #gpuJoinSeconds}) and what the join node does around it: collecting the probe
   * into columns, and on the GPU emitting the join index from the rows the windows found.
   */
  List<Candidate> candidates(Estimate e, String kind, double indexedRows, long windowBytes) {
    double materialized = SpillwayJoinCost.materialized(e, threads());
    String variant = kind.toLowerCase(Locale.ROOT);
    double windows = IndexJoinNode.cpuWindowCount((long) Math.ceil(e.probeRows()), windowBytes, threads());
    List<Candidate> out = new ArrayList<>();
    out.add(new Candidate(SpillwayJoinAlgorithm.INLJ, variant, null, null, null, "none",
        cpuJoinSeconds(e, kind, indexedRows, windows) + materialized, e.buildLeft()));
    if (hasGpu()) {
      out.add(new Candidate(SpillwayJoinAlgorithm.GPU_INLJ, variant, null, null, null, "zero-copy",
          gpuJoinSeconds(e, kind, indexedRows, windowBytes) + materialized + emission(e), e.buildLeft()));
    }
    return out;
  }

  /**
   * The CPU join proper, as the index join benchmark times it: the lookups and partitioning of the probe cut into
   * {@code windows} windows, which the threads take in rounds (a round of fewer windows than threads leaves the
   * others idle), then the join index emitted on all threads.
   */
  double cpuJoinSeconds(Estimate e, String kind, double indexedRows, double windows) {
    int threads = threads();
    double busy = windows < 1 ? 1 : windows / Math.ceil(windows / threads);
    return e.probeRows() * (cpuLookupSeconds(kind, Math.max(2, indexedRows)) + CPU_WINDOW_PARTITION_SECONDS) / busy
        + emission(e);
  }

  /**
   * The GPU join proper, as its CUDA events time it: the probe keys over the link, the lines a lookup reads over it
   * ({@link #gpuLinesPerLookup}), the windows' partitioning, the rows found back to the host. The lookups of one launch
   * read at most the translation reach of the index ({@link IndexJoinNode#translationReach}), so their line reads
   * cost what reads over a region of that size cost.
   */
  double gpuJoinSeconds(Estimate e, String kind, double indexedRows, long windowBytes) {
    double rows = Math.max(2, indexedRows);
    double windowKeys = Math.min(e.probeRows(), Math.max(1, windowBytes / KEY_BYTES));
    double region = Math.min(rows * KEY_BYTES, IndexJoinNode.translationReach());
    double inFlight = "RADIXSPLINE".equals(kind) && region <= GPU_READS_IN_FLIGHT_REGION_BYTES
        ? GPU_RADIX_SPLINE_READS_IN_FLIGHT : 1;
    return e.probeRows() * KEY_BYTES / joins.zeroCopyBytesPerSecond()
        + e.probeRows() * gpuLinesPerLookup(kind, rows) * GPU_LINE_BYTES * lineSecondsPerByte(region, windowKeys)
        / inFlight + e.probeRows() / GPU_WINDOW_PARTITION_PER_SECOND + joins.handBack(e) + GPU_FIXED_SECONDS;
  }

  /**
   * Lines a GPU lookup reads over the link: those beyond the L2 cache ({@link #uncachedLines}). RadixSpline's
   * structure is in GPU memory and its lookup reads the column at its estimate first: one line where the estimate
   * answers it, else the lines it walks ({@link #GPU_RADIX_SPLINE_WALK_LINES}).
   */
  double gpuLinesPerLookup(String kind, double rows) {
    double lines = uncachedLines(kind, rows, GPU_L2_BYTES, GPU_LINE_BYTES);
    if (!"RADIXSPLINE".equals(kind)) {
      return lines;
    }
    return Math.min(lines, exactSplineShare + (1 - exactSplineShare) * GPU_RADIX_SPLINE_WALK_LINES);
  }

  /** Emitting the join index on the host: a pair per output row on all threads. */
  private double emission(Estimate e) {
    return e.outputRows() * SpillwayJoinCost.CPU_OUTPUT_SECONDS_PER_ROW_THREAD / threads();
  }

  /** Whether the profile has a GPU, for the GPU index join. */
  boolean hasGpu() {
    return profile.gpu() != null;
  }

  private int threads() {
    return Math.max(1, profile.cpuCores());
  }

  /**
   * Seconds of one CPU lookup on one core through an index of {@code kind} over {@code rows} keys: the model's
   * ({@link #modelledCpuLookupSeconds}), scaled by what calibration measured of the nearest kind (RadixSpline for
   * itself, binary search for the searches of the other kinds) against what the model predicts for that measurement.
   */
  double cpuLookupSeconds(String kind, double rows) {
    MachineProfile.IndexLookupRates measured = profile.indexLookups();
    double modelled = modelledCpuLookupSeconds(kind, rows);
    if (measured == null) {
      return modelled;
    }
    boolean learned = "RADIXSPLINE".equals(kind);
    double rate = learned ? measured.cpuRadixSplinePerSecondPerCore() : measured.cpuBinarySearchPerSecondPerCore();
    if (!(rate > 0)) {
      return modelled;
    }
    double calibratedRows = Math.max(2, measured.cpuRegionBytes() / (double) KEY_BYTES);
    return modelled * (1 / rate) / modelledCpuLookupSeconds(learned ? "RADIXSPLINE" : "BINARY_SEARCH", calibratedRows);
  }

  /**
   * A lookup does what a probe of a cached hash table does (read the key, one access, a pair out), at its rate, and
   * the search's further steps; a line it misses costs what a probe beyond the caches costs more.
   */
  private double modelledCpuLookupSeconds(String kind, double rows) {
    int threads = Math.max(1, profile.cpuCores());
    double steps = "RADIXSPLINE".equals(kind) ? Math.min(log2(rows), log2(RADIX_SPLINE_LAST_MILE_KEYS) + 4)
        : log2(rows);
    double probe = threads / joins.cpuRate(MachineProfile.CPU_JOIN_NOPA_LINEAR_PROBING_CACHED,
        SpillwayJoinCost.CPU_NOPA_CACHED_PER_THREAD);
    double miss = Math.max(0, threads / joins.cpuRate(MachineProfile.CPU_JOIN_NOPA_LINEAR_PROBING,
        SpillwayJoinCost.CPU_NOPA_PROBING_PER_THREAD) - probe);
    return probe + Math.max(0, steps - 1) * CPU_INDEX_STEP_SECONDS
        + uncachedLines(kind, rows, CPU_INDEX_CACHE_BYTES, CPU_LINE_BYTES) * miss;
  }

  /**
   * Seconds per byte of random line reads over the link into an index of {@code indexBytes}, probed in windows of
   * {@code windowKeys} keys. Within the TLB's reach, the rate measured there. Beyond it, a window's partition looks
   * up {@code windowKeys / partitions} keys over {@code indexBytes / partitions} of the index: the share of its
   * lookups that translate a page of their own (pages over lookups, at most all) read at the rate measured beyond
   * the reach, the others at the rate within it.
   */
  double lineSecondsPerByte(double indexBytes, double windowKeys) {
    double within = linkLineBytesPerSecond(false);
    if (indexBytes <= GPU_TLB_REACH_BYTES) {
      return 1 / within;
    }
    int partitions = IndexJoinNode.WINDOW_PARTITIONS;
    double pages = Math.ceil(indexBytes / partitions / GPU_PAGE_BYTES);
    double lookups = Math.max(1, windowKeys / partitions);
    double translated = Math.min(1, pages / lookups);
    return (1 - translated) / within + translated / linkLineBytesPerSecond(true);
  }

  /**
   * Random line reads over the link in bytes per second, within the TLB's reach or beyond it: measured by
   * calibration, else a random read of at least a line from the link reads the profile has (a quarter of zero-copy
   * without one), beyond the reach {@link #ASSUMED_BEYOND_TLB_SHARE} of that.
   */
  private double linkLineBytesPerSecond(boolean beyondTlb) {
    MachineProfile.IndexLookupRates measured = profile.indexLookups();
    Double gbs = measured == null ? null : beyondTlb ? measured.linkRandomLineLargeGbPerSecond()
        : measured.linkRandomLineSmallGbPerSecond();
    if (gbs != null && gbs > 0) {
      return gbs * 1e9;
    }
    return beyondTlb ? linkLineBytesPerSecond(false) * ASSUMED_BEYOND_TLB_SHARE : joins.randomLinkBytesPerSecond();
  }

  /**
   * Whether calibration measured every rate these costs read on this profile: the CPU lookups, and with a GPU the
   * line reads on both sides of the TLB's reach.
   */
  boolean measured() {
    MachineProfile.IndexLookupRates m = profile.indexLookups();
    return m != null && m.cpuBinarySearchPerSecondPerCore() > 0 && m.cpuRadixSplinePerSecondPerCore() > 0
        && (profile.gpu() == null || m.linkRandomLineSmallGbPerSecond() != null
        && m.linkRandomLineLargeGbPerSecond() != null);
  }

  /**
   * Lines of {@code lineBytes} a lookup reads beyond a cache of {@code cacheBytes} in an index of {@code kind} over
   * {@code rows} 8-byte keys. Every halving of the key range is one binary-search step; the steps whose range
   * exceeds the cache miss it (the upper ones touch few lines, which stay cached). A B+tree covers 9 halvings with
   * one 4 KiB node whose binary search reads 6 of its lines, Harmonia 5 with one 256 B node (about 2 lines read),
   * RadixSpline only its last-mile search over {@value #RADIX_SPLINE_LAST_MILE_KEYS} keys.
   */
  static double uncachedLines(String kind, double rows, long cacheBytes, int lineBytes) {
    double beyond = Math.max(0, log2(Math.max(1, rows) * KEY_BYTES / cacheBytes));
    return switch (kind) {
      case "BTREE" -> beyond / log2(4096.0 / KEY_BYTES) * log2(4096.0 / lineBytes);
      case "HARMONIA" -> beyond / log2(32) * 2;
      case "RADIXSPLINE" -> Math.min(beyond, log2(RADIX_SPLINE_LAST_MILE_KEYS * KEY_BYTES / (double) lineBytes) + 1);
      default -> beyond;
    };
  }

  private static double log2(double x) {
    return Math.log(x) / Math.log(2);
  }
}
