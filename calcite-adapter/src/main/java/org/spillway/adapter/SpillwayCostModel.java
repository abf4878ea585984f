package org.spillway.adapter;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.spillway.gpu.calibrate.MachineProfile;
import org.spillway.gpu.calibrate.MachineProfiles;
import org.spillway.gpu.device.HostMemoryKind;
import org.spillway.gpu.pipeline.PipelineStage;
import org.spillway.gpu.pipeline.gpu.FilterVariant;
import org.spillway.gpu.transfer.TransferMethod;

/**
 * Predicts the time of one fused pipeline (scan, filter/project, aggregate) on the GPU with each transfer
 * method and filter variant, and on the CPU backend, from the machine profile; the planner takes the cheapest.
 *
 * <p>The model is the first-order one of the papers' digest (section 4.2, "Q6"): a GPU run costs a fixed setup
 * time plus {@code max(link bytes / method bandwidth, bytes touched / GPU memory bandwidth)}, because the kernel
 * overlaps with the transfer; the CPU backend costs {@code bytes scanned / CPU pipeline bandwidth}, the rate
 * calibration measured for a Q6-shaped pipeline on the CPU backend (it interprets expressions per morsel, far
 * below the raw scan bandwidth, which serves only for profiles without that number). Columns resident
 * in the GPU column cache move nothing over the link. The filter variant follows Lutz et al., "Pump Up the
 * Volume" (SIGMOD 2020, section 7.2.4, Q6): under a pull method (zero-copy, UM migration, coherence) and for
 * data already in GPU memory, branching skips the lines of later columns that no row of the warp needs, so it
 * reads {@code rows * width * (1 - (1 - s)^(LINE / width))} bytes of a column first read after predicates of
 * selectivity {@code s} (the digest's payload fetch fraction), and wins when that saves at least
 * {@value #BRANCHING_MIN_SAVING} of the bytes; under a copy (push) method every byte crosses the link anyway,
 * and predication wins because it does not diverge.
 */
final class SpillwayCostModel {
  /** Bytes the GPU fetches per line: a warp that needs any value of a line reads all of it (digest 4.1). */
  static final int LINE_BYTES = 128;
  /** Fixed cost of one GPU pipeline run when the profile has not measured it (program, buffers, launch, sync). */
  static final double ASSUMED_GPU_RUN_MILLIS = 1.0;
  /** GPU memory read bandwidth when the profile has none (GB/s). */
  static final double ASSUMED_GPU_MEMORY_GB_PER_SECOND = 3000;
  /**
   * Host nanoseconds per row that a GPU pipeline without an aggregation returns (read back and assembled into
   * result batches) where the profile has no measurement. ASSUMPTION: EXPLAIN ANALYZE of TPC-H SF 10 on the H200
   * host showed such pipelines 20-60 ns per returned row slower than their transfers alone.
   */
  static final double ASSUMED_RETURNED_ROW_NANOS = 40;
  /**
   * ASSUMPTION: scanned bytes per second of a GPU pass that returns rows, whatever its transfer: below the link's
   * speed, since such a pass waits for each chunk's rows on the host (three launches, an event, the copy into Java
   * arrays) where an aggregating pass only launches. Chunks of several storage batches made that wait a fraction
   * of the pass; the returned rows themselves are priced per row beside it.
   */
  static final double ASSUMED_ROWS_PASS_GB_PER_SECOND = 40;
  /**
   * ASSUMPTION: CPU nanoseconds per aggregated row and aggregate call on one thread, beyond the scan that the
   * Q6-shaped calibration rate covers (one call, no group keys). TPC-H Q1 at SF 10 on the H200 host: the CPU backend
   * took 213 ms, its columns at the calibrated rate 39 ms, for 59 M rows, 8 calls and 16 threads.
   */
  static final double CPU_AGGREGATE_CALL_NANOS_PER_ROW = 6;
  /**
   * Groups beyond which a CPU aggregation's tables outgrow the caches (ASSUMPTION: tens of bytes a group against tens
   * of MB of last-level cache), so that each row's update misses into memory. Counted over every worker's table: each
   * core aggregates its morsels into a table of its own, which holds most groups where they are spread over the input
   * (Q13's million customers: its CPU aggregation of orders took 190 ms on the 16-core H100 host, about ten times what
   * one table's threshold predicted, and auto ran it there on hosts whose calibrated CPU rate came out high).
   */
  static final long CPU_CACHE_GROUPS = 1 << 20;
  /**
   * What that miss adds per selected row on one core, partly overlapped with the others: TPC-H Q18's aggregation of
   * lineitem by order (15 M groups of 60 M rows) took 134-140 ms on the 16-core H100 host, about 35 ns a row on a
   * core, where the Q6-shaped rate and the key's share give about 10.
   */
  static final double CPU_AGGREGATE_MISS_NANOS_PER_ROW = 25;
  /**
   * ASSUMPTION: how many bytes of numeric columns one byte of plain text costs the CPU backend at its calibrated
   * (Q6-shaped) rate: it tests a LIKE or an IN list value by value, with a branch per value. TPC-H Q20's LIKE
   * 'forest%' over the 2 M part names at SF 10 took 7.4 ms on the 16-core hosts where the rate predicted 1.6 ms, and
   * auto kept it (and Q9's '%green%') on the CPU where the GPU took 2.6 ms.
   */
  static final double CPU_TEXT_BYTE_WEIGHT = 4;
  /**
   * ASSUMPTION: CPU nanoseconds per row that a CPU pipeline without an aggregation returns, on one core: the rows are
   * copied out of the morsel's selection into result batches, which the Q6-shaped calibration (one sum) never pays.
   * On the 16-core H200 host at TPC-H SF 10, such pipelines took 27 (Q21's 7.3 M orders) to 90 ns (Q4's 0.57 M) per
   * returned row and core beyond their scan at the calibrated rate, and auto kept Q21's orders on the CPU (13.8 ms)
   * where the GPU took 6.3.
   */
  static final double CPU_RETURNED_ROW_NANOS = 30;
  /** Rate at which the host reads a grouped aggregation's GPU table back into groups (ASSUMPTION). */
  static final double ASSUMED_ROWS_ASSEMBLY_GB_PER_SECOND = 2.0;
  /**
   * The CPU backend shares a GPU pipeline's scan where the two together are predicted to take at most this share of
   * the faster one alone: where one is much faster, the other adds too little to repay a second set of join tables
   * and the merge of the two results.
   */
  static final double SHARED_GAIN = 0.85;
  /**
   * Most groups of an aggregation whose scan the CPU shares: each side makes all the groups it sees, and merging two
   * sets of many groups costs more than the CPU's share saves (TPC-H Q10, Q11, Q15, Q16 at SF 10).
   */
  static final long SHARED_MAX_GROUPS = 1 << 16;
  /**
   * Most returned rows per scanned row of a pipeline without an aggregation whose scan the CPU shares: the GPU's side
   * then assembles rows on the host itself, and the CPU's workers slow it down more than they add (TPC-H Q3's
   * orders pipeline at SF 10, a tenth of its rows returned; Q21's lineitem pipeline probing supplier, about 2.5%,
   * where the GPU's side assembled its half of the rows at a fraction of its speed alone). Q8's lineitem pipeline,
   * under 1% returned, gains from sharing.
   */
  static final double SHARED_MAX_RETURNED_SHARE = 0.01;
  /**
   * ASSUMPTION: how much longer the GPU's side of a shared zero-copy scan takes for its batches than the GPU alone:
   * alone, a zero-copy pass launches over tables of whole batches with blocks that claim tiles
   * ({@code GpuBatchStreamer.mappedTables}); sharing, it claims batch by batch and launches once per batch, which
   * session 21 measured 1.1 to 1.6 times slower on TPC-H passes that do more than stream (Q6, Q17, Q19).
   */
  static final double SHARED_ZERO_COPY_SLOWDOWN = 1.3;
  /**
   * Least predicted time of the faster device alone for the CPU to share a scan: below it, starting the CPU's share,
   * binding its join tables and combining the results cost more than its batches save (TPC-H Q2's pipelines over
   * part and partsupp at SF 10, a few milliseconds each).
   */
  static final double SHARED_MIN_MILLIS = 10;
  /** Share of the bytes branching must save to be chosen over predication, which does not diverge. */
  static final double BRANCHING_MIN_SAVING = 0.05;

  /**
   * A scanned column: bytes per value, the selectivity of the predicates evaluated before its first use, and whether a
   * GPU pipeline reads it in place over the link whatever the transfer method, never from the column cache (plain
   * text, which only LIKE reads).
   */
  record Column(int width, double selectivityBefore, boolean inPlace) {
    Column(int width, double selectivityBefore) {
      this(width, selectivityBefore, false);
    }
  }

  /**
   * What one pipeline reads: its rows, its scanned columns, the selectivity of the filters on them, the bytes of
   * an output row of a pipeline without an aggregation (0 for one that aggregates), and its output rows per
   * selected scan row (1 but where join probes drop or pair rows).
   */
  record Shape(long rows, List<Column> columns, double selectivity, int returnedRowBytes, double outputShare) {
    Shape {
      columns = List.copyOf(columns);
    }

    /** The shape of a pipeline that ends in an aggregation (nothing but aggregate state comes back). */
    Shape(long rows, List<Column> columns, double selectivity) {
      this(rows, columns, selectivity, 0, 1);
    }

    /** The shape of a pipeline without join probes. */
    Shape(long rows, List<Column> columns, double selectivity, int returnedRowBytes) {
      this(rows, columns, selectivity, returnedRowBytes, 1);
    }

    /** Rows a pipeline without an aggregation returns to the host (0 for one that aggregates). */
    double returnedRows() {
      return returnedRowBytes == 0 ? 0 : rows * Math.min(1, Math.max(0, selectivity)) * outputShare;
    }

    /** Bytes of the output rows' values that a pipeline without an aggregation returns to the host. */
    long returnedBytes() {
      return Math.round(returnedRows() * returnedRowBytes);
    }

    /** Bytes of every scanned value: what copies move, predication reads and the CPU backend scans. */
    long bytes() {
      long width = 0;
      for (Column c : columns) {
        width += c.width();
      }
      return rows * width;
    }

    /** Bytes a branching kernel reads when it loads a column's lines only where an earlier predicate held. */
    long lazyBytes() {
      double bytes = 0;
      for (Column c : columns) {
        bytes += rows * (double) c.width() * fetched(c);
      }
      return Math.round(bytes);
    }

    /**
     * Bytes of the columns a GPU pipeline reads in place (plain text): those some row reaches under branching
     * ({@code lazy}), else all.
     */
    long inPlaceBytes(boolean lazy) {
      double bytes = 0;
      for (Column c : columns) {
        bytes += c.inPlace() ? rows * (double) c.width() * (lazy ? fetched(c) : 1) : 0;
      }
      return Math.round(bytes);
    }

    /** Share of a column's lines some row that passed the earlier predicates needs. */
    private static double fetched(Column c) {
      double valuesPerLine = Math.max(1.0, LINE_BYTES / (double) c.width());
      return 1 - Math.pow(1 - Math.min(1, Math.max(0, c.selectivityBefore())), valuesPerLine);
    }
  }

  /** A predicted GPU run: method, variant, the bytes it moves over the link and its time. */
  record GpuRun(TransferMethod method, FilterVariant variant, long linkBytes, double millis) {}

  /**
   * The prediction for one pipeline: the best GPU run (null when no method is usable), the CPU backend's time,
   * whether its columns are predicted resident in the GPU column cache, and whether the profile was measured.
   */
  record Estimate(GpuRun gpu, double cpuMillis, boolean resident, boolean calibrated, double sharedMillis) {
    Estimate(GpuRun gpu, double cpuMillis, boolean resident, boolean calibrated) {
      this(gpu, cpuMillis, resident, calibrated, Double.NaN);
    }

    boolean gpuIsFaster() {
      return gpu != null && gpu.millis() < cpuMillis;
    }

    /**
     * The time of the GPU and the CPU backend sharing the scan (P1's heterogeneous morsel scheduling: each takes
     * batches until none is left, so each does the share of the work its speed gives it): {@code 1 / (1/gpu + 1/cpu)},
     * the GPU's side of a zero-copy scan {@link #SHARED_ZERO_COPY_SLOWDOWN} slower than it alone.
     */
    double sharedPrediction() {
      if (gpu == null) {
        return Double.POSITIVE_INFINITY;
      }
      double gpuSide = gpu.millis() * (gpu.method() == TransferMethod.ZERO_COPY ? SHARED_ZERO_COPY_SLOWDOWN : 1);
      return gpuSide * cpuMillis / (gpuSide + cpuMillis);
    }

    /**
     * Whether sharing the scan of a pipeline of {@code shape} making {@code groups} groups is predicted to pay: at
     * most {@link #SHARED_GAIN} of the faster alone, which takes {@link #SHARED_MIN_MILLIS} at least, with few groups
     * to merge and few rows for the GPU's side to assemble on the host.
     */
    boolean sharingPays(Shape shape, long groups) {
      return sharingPays(shape, groups, 0);
    }

    /**
     * As above, where the CPU's side first builds join tables of its own for {@code cpuBuildMillis} (the GPU builds
     * its own meanwhile): that time is not shared but added to the shared prediction (Q12's 15 M orders would be
     * built twice).
     */
    boolean sharingPays(Shape shape, long groups, double cpuBuildMillis) {
      double faster = Math.min(gpu == null ? Double.POSITIVE_INFINITY : gpu.millis(), cpuMillis);
      return groups <= SHARED_MAX_GROUPS && shape.returnedRows() <= SHARED_MAX_RETURNED_SHARE * shape.rows()
          && sharingPays() && sharedPrediction() + cpuBuildMillis <= SHARED_GAIN * faster;
    }

    /** Whether sharing the scan is predicted to pay: at most {@link #SHARED_GAIN} of the faster alone. */
    boolean sharingPays() {
      double faster = Math.min(gpu == null ? Double.POSITIVE_INFINITY : gpu.millis(), cpuMillis);
      return faster >= SHARED_MIN_MILLIS && sharedPrediction() <= SHARED_GAIN * faster;
    }

    /** This prediction with the shared time recorded where the scan is shared ({@code shared}). */
    Estimate shared(boolean shared) {
      return new Estimate(gpu, cpuMillis, resident, calibrated, shared ? sharedPrediction() : Double.NaN);
    }

    /** This prediction with work beyond the pipeline's scan added to each side (join probes, say). */
    Estimate plus(double moreCpuMillis, double moreGpuMillis) {
      if (moreCpuMillis == 0 && moreGpuMillis == 0) {
        return this;
      }
      GpuRun run = gpu == null ? null
          : new GpuRun(gpu.method(), gpu.variant(), gpu.linkBytes(), gpu.millis() + moreGpuMillis);
      return new Estimate(run, cpuMillis + moreCpuMillis, resident, calibrated, Double.NaN);
    }

    /** EXPLAIN's cost item, e.g. {@code gpu 20.312 ms (1.04 GB over the link), cpu 18.478 ms}. */
    String label() {
      String cpu = String.format(Locale.ROOT, "cpu %.3f ms", cpuMillis);
      String shared = Double.isNaN(sharedMillis) ? "" : String.format(Locale.ROOT, ", shared %.3f ms", sharedMillis);
      return gpu == null ? cpu : String.format(Locale.ROOT, "gpu %.3f ms (%s over the link), %s%s", gpu.millis(),
          bytes(gpu.linkBytes()), cpu, shared);
    }
  }

  private final MachineProfile profile;

  SpillwayCostModel(MachineProfile profile) {
    this.profile = profile;
  }

  /**
   * Predicts the pipeline on the CPU and on the GPU with each of {@code methods}, each with {@code variant} or,
   * when it is null, the variant the rule above picks; {@code resident}: the columns are in the GPU cache.
   */
  Estimate estimate(Shape shape, List<TransferMethod> methods, FilterVariant variant, boolean resident) {
    GpuRun best = null;
    for (TransferMethod method : methods) {
      GpuRun run = gpuRun(shape, method, variant, resident);
      if (best == null || run.millis() < best.millis()) {
        best = run;
      }
    }
    return new Estimate(best, cpuMillis(shape), resident, MachineProfiles.calibrated(profile));
  }

  /** One GPU run of the pipeline with {@code method} and {@code variant} (null: chosen by the rule). */
  GpuRun gpuRun(Shape shape, TransferMethod method, FilterVariant variant, boolean resident) {
    boolean pulls = resident || pulls(method);
    FilterVariant v = variant != null ? variant : variant(shape, pulls);
    long touched = v == FilterVariant.BRANCHING && pulls ? shape.lazyBytes() : shape.bytes();
    // plain text is read in place under every method, the cache holding none of it
    long inPlace = shape.inPlaceBytes(v == FilterVariant.BRANCHING);
    long link = resident ? inPlace : pulls ? touched : shape.bytes() - shape.inPlaceBytes(false) + inPlace;
    // Rows come back over the other direction of the (full-duplex) link while the inputs stream in; the host
    // then assembles them into vectors, which overlaps with later chunks only partly: counted in full.
    long returned = shape.returnedBytes();
    // A branching kernel's lazily fetched lines cost what streaming them would: on the H200 host, zero-copy with
    // branching read TPC-H Q14's lineitem (1.2% of the rows selected, a sixth of the later columns' lines) at
    // link speed, and pricing its scattered lines at the random-read rate sent Q6 and Q14 to slower copies.
    double sequential = bandwidth(method) * 1e9;
    double rowsPass = shape.returnedRowBytes() > 0 ? shape.bytes() / (ASSUMED_ROWS_PASS_GB_PER_SECOND * 1e9) : 0;
    double seconds = Math.max(Math.max(Math.max(link, returned) / sequential, touched / (gpuMemoryBandwidth() * 1e9)),
        rowsPass) + shape.returnedRows() * returnedRowSeconds();
    return new GpuRun(method, v, link, gpuRunMillis() + seconds * 1e3);
  }

  /**
   * The CPU backend's aggregation work beyond a Q6-shaped pipeline's: every call past the first and every group key,
   * per selected row, {@link #CPU_AGGREGATE_CALL_NANOS_PER_ROW} each, and a miss into memory per row where the cores'
   * tables of the {@code groups} expected hold more than {@link #CPU_CACHE_GROUPS}; on all cores.
   */
  double cpuAggregateMillis(Shape shape, List<PipelineStage> stages, long groups) {
    for (PipelineStage stage : stages) {
      if (stage instanceof PipelineStage.Aggregate aggregate) {
        int extra = Math.max(0, aggregate.calls().size() - 1) + aggregate.groupKeys().length;
        double rows = shape.rows() * Math.min(1, Math.max(0, shape.selectivity()));
        double nanos = extra * CPU_AGGREGATE_CALL_NANOS_PER_ROW
            + (groups * Math.max(1, profile.cpuCores()) > CPU_CACHE_GROUPS ? CPU_AGGREGATE_MISS_NANOS_PER_ROW : 0);
        return rows * nanos / Math.max(1, profile.cpuCores()) / 1e6;
      }
    }
    return 0;
  }

  /**
   * Reading a grouped aggregation's groups back into Java arrays and turning them into columns: the device gathers the
   * table's groups first, so what crosses is a key, a count and three words per aggregate call for each group.
   */
  double aggregateStateMillis(long groups, List<PipelineStage> stages) {
    if (groups == 0) {
      return 0;
    }
    int calls = 0;
    for (PipelineStage stage : stages) {
      if (stage instanceof PipelineStage.Aggregate aggregate) {
        calls = aggregate.calls().size();
        break;
      }
    }
    double bytes = groups * (2.0 + 3 * calls) * 8;
    return bytes / (bandwidth(TransferMethod.PAGEABLE_COPY) * 1e9) * 1e3
        + bytes / (ASSUMED_ROWS_ASSEMBLY_GB_PER_SECOND * 1e9) * 1e3;
  }

  /** Pump Up the Volume's rule: branching only where it saves reads (pull methods), else predication. */
  static FilterVariant variant(Shape shape, boolean pulls) {
    boolean saves = shape.lazyBytes() <= (1 - BRANCHING_MIN_SAVING) * shape.bytes();
    return pulls && saves ? FilterVariant.BRANCHING : FilterVariant.PREDICATION;
  }

  /** Whether kernels pull the data over the link themselves (so they read only what they touch). */
  static boolean pulls(TransferMethod method) {
    return method == TransferMethod.ZERO_COPY || method == TransferMethod.UM_MIGRATION
        || method == TransferMethod.COHERENCE;
  }

  /**
   * The CPU backend reads every column of every row with all cores, at its measured pipeline rate, a byte of plain text
   * weighing {@link #CPU_TEXT_BYTE_WEIGHT} bytes, and copies out the rows it returns
   * ({@link #CPU_RETURNED_ROW_NANOS} each on a core).
   */
  double cpuMillis(Shape shape) {
    Double pipeline = profile.cpuPipelineGbPerSecond();
    double rate = pipeline != null && pipeline > 0 ? pipeline : profile.cpuScanGbPerSecond();
    double bytes = shape.bytes() + (CPU_TEXT_BYTE_WEIGHT - 1) * shape.inPlaceBytes(false);
    double returned = shape.returnedRows() * CPU_RETURNED_ROW_NANOS / Math.max(1, profile.cpuCores());
    return bytes / (rate * 1e9) * 1e3 + returned / 1e6;
  }

  /**
   * The methods that can stream {@code kind} memory and that the profile measured (or assumed), the method
   * native to that memory first, so that it wins ties (e.g. when the columns are resident in the cache).
   */
  List<TransferMethod> methodsFor(HostMemoryKind kind) {
    List<TransferMethod> out = new ArrayList<>();
    for (TransferMethod m : TransferMethod.values()) {
      boolean measured = profile.transferGbPerSecond() != null && profile.transferGbPerSecond().containsKey(m.label());
      boolean unsupported = profile.unsupportedTransfers() != null
          && profile.unsupportedTransfers().containsKey(m.label());
      if (m.accepts().contains(kind) && measured && !unsupported) {
        out.add(m);
      }
    }
    TransferMethod preferred = preferred(kind);
    if (out.remove(preferred)) {
      out.add(0, preferred);
    }
    return out;
  }

  /** The method meant for {@code kind} memory, which wins ties. */
  static TransferMethod preferred(HostMemoryKind kind) {
    return switch (kind) {
      case PINNED, DEVICE -> TransferMethod.PINNED_COPY;
      case MANAGED -> TransferMethod.UM_PREFETCH;
      case PAGEABLE -> TransferMethod.STAGED_COPY;
    };
  }

  /** GB/s of {@code method} in the profile; an unmeasured (forced) method is assumed as fast as raw copies. */
  double bandwidth(TransferMethod method) {
    Double measured = profile.transferGbPerSecond() == null ? null : profile.transferGbPerSecond().get(method.label());
    if (measured != null && measured > 0) {
      return measured;
    }
    return profile.rawPinnedCopyGbPerSecond() != null ? profile.rawPinnedCopyGbPerSecond() : 55.0;
  }

  /** Seconds the host spends per row a GPU pipeline returns: calibrated, else {@link #ASSUMED_RETURNED_ROW_NANOS}. */
  private double returnedRowSeconds() {
    Double measured = profile.gpuRowsNanosPerRow();
    return (measured != null && measured > 0 ? measured : ASSUMED_RETURNED_ROW_NANOS) * 1e-9;
  }

  private double gpuMemoryBandwidth() {
    Double measured = profile.gpuMemoryReadGbPerSecond();
    return measured != null && measured > 0 ? measured : ASSUMED_GPU_MEMORY_GB_PER_SECOND;
  }

  private double gpuRunMillis() {
    Double measured = profile.gpuPipelineRunMillis();
    return measured != null && measured >= 0 ? measured : ASSUMED_GPU_RUN_MILLIS;
  }

  /** Bytes for EXPLAIN in decimal units (B, KB, MB, GB). */
  static String bytes(long bytes) {
    if (bytes < 1000) {
      return bytes + " B";
    }
    String[] units = {"KB", "MB", "GB", "TB"};
    double v = bytes;
    int u = -1;
    while (v >= 1000 && u < units.length - 1) {
      v /= 1000;
      u++;
    }
    return String.format(Locale.ROOT, "%.2f %s", v, units[u]);
  }
}
