package org.spillway.gpu.pipeline.gpu;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.BooleanSupplier;
import java.util.function.Function;
import java.util.function.Supplier;
import org.spillway.gpu.device.GpuMemoryException;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.FieldVector;
import org.spillway.gpu.device.CudaDevice;
import org.spillway.gpu.device.HostMemoryKind;
import org.spillway.gpu.transfer.ColumnType;
import org.spillway.gpu.transfer.HostColumn;
import org.spillway.gpu.transfer.TransferMethod;
import org.spillway.gpu.transfer.TransferOptions;
import org.spillway.gpu.transfer.TransferPipelinePool;
import org.spillway.gpu.pipeline.ColumnBatch;
import org.spillway.gpu.pipeline.PipelineStage;
import org.spillway.gpu.pipeline.ScanClaims;
import org.spillway.gpu.pipeline.SourceBatch;
import org.spillway.gpu.pipeline.cpu.ColumnarPipeline;
import org.spillway.gpu.vector.ColumnVector;
import org.spillway.gpu.vector.ExprType;
import org.spillway.gpu.vector.IndexedColumns;

/**
 * The GPU backend of a fused columnar pipeline (same inputs and outputs as {@link ColumnarPipeline}): the
 * filter and project stages before the aggregation are flattened once into a {@link GpuProgram}; column
 * chunks (and the validity bitmaps of columns with NULLs) stream through pooled transfer pipelines
 * ({@link GpuBatchStreamer}) and one kernel launch per chunk filters, projects and aggregates them with
 * SQL's NULL semantics, writing nothing but aggregate state. A pipeline without an aggregation runs the
 * same program in the columnar_pipeline_rows kernel, which writes only the selected rows' output columns
 * back to pinned host memory ({@link GpuRowsPass}); they come back as the CPU backend returns them, in input
 * order. Pipelines of Q6's shape
 * ({@link SelectionAggregate}) over batches without NULLs run the specialized selection_aggregate kernels,
 * the rest the columnar_pipeline interpreter; both apply the {@link FilterVariant}. With a
 * {@link GpuColumnCache}, resident columns are read in place (a run whose columns are all resident makes
 * one launch over all batches and transfers nothing) and misses fill the cache. Plain text, which only a LIKE
 * reads, is neither streamed nor cached: the kernels read it in place ({@link GpuTextColumns}). Stages after the
 * aggregation run on the CPU over its (small) result. What the kernels cannot do exactly is reported by
 * {@link #unsupportedReason()} so that the planner keeps the CPU backend.
 */
public final class GpuColumnarPipeline {
  /** Hash table slots of the first try of a grouped run; it grows 16-fold when half full. */
  static final long INITIAL_CAPACITY = 1 << 12;
  /**
   * Largest hash table; more groups than half of it run on the CPU backend. The groups are gathered on the device
   * before they are read back, so a table larger than its groups costs device memory, not link traffic. TPC-H Q18's
   * groups by order key (45 M at SF 30) need 2^27 slots: 5.4 GB of state for one call, which the planner weighs
   * against the memory budget ({@link #aggregateStateBytes}).
   */
  static final long MAX_CAPACITY = 1L << 27;
  /** The most groups the GPU aggregation holds. */
  public static final long MAX_GROUPS = MAX_CAPACITY / 2;
  /**
   * Rows of a chunk of several small batches (pinned or pageable copy): per chunk the host launches kernels, records
   * events and, for rows, collects a buffer; storage batches of 128 Ki rows left the host the bottleneck.
   */
  static final long JOINED_CHUNK_ROWS = 1 << 20;
  /**
   * The most bytes of one output window (pinned) in a pass that returns rows: every stream worker keeps one per chunk in
   * flight, and all of them together must stay within what GpuScratch keeps pinned between runs.
   */
  static final long ROWS_OUTPUT_BUFFER_BYTES = 16L << 20;
  /**
   * The most bytes of one chunk's staging buffer (GPU memory, every row of the chunk) in a pass that returns rows. It
   * sets the chunk's rows: sized by the output window instead, a selective pass over a wide output ran in hundreds of
   * short chunks whose launches and copies, not the link, set its speed.
   */
  static final long ROWS_STAGING_BYTES = 64L << 20;
  /** Slots of the transfer pipelines (chunks in flight per worker) unless withTransferOptions says otherwise. */
  static final TransferOptions DEFAULT_OPTIONS = new TransferOptions(TransferOptions.DEFAULT.chunkBytes(), 6,
      TransferOptions.DEFAULT.stagingThreads());
  private static final int BLOCK_THREADS = 256;
  /** Set to false, the groups of a GPU aggregation come back as it made them, also where the device could regroup them. */
  public static final String REGROUP_PROPERTY = "spillway.gpu.regroup";
  /**
   * Cores a shared scan leaves to the GPU's side of a pipeline that returns rows: the streaming thread, the one
   * copying rows into the result and the parallel assembly of a chunk's batches. A streaming thread that waits for a
   * core leaves the copy engines idle.
   */
  static final int ROWS_GPU_THREADS = 4;
  /** Cores a shared scan leaves to the GPU's side of an aggregating pipeline: the streaming thread, and slack. */
  static final int AGGREGATE_GPU_THREADS = 2;
  static final int BLOCKS_PER_SM = 8;
  static final int SELECTION_BLOCKS_PER_SM = 3;  // __launch_bounds__(256, 3) of selection_aggregate.cu

  private final ColumnarPipeline cpu;
  /** Index of the aggregation stage, or -1 for a pipeline that returns its rows. */
  private final int aggregateStage;
  private final GpuProgram program;
  private final SelectionAggregate selection;
  /** The aggregation after this pipeline's that the device runs too ({@link GpuRegroup}), or null. */
  private final GpuRegroup regroup;
  private boolean selectionKernel = true;
  private final String unsupported;
  private volatile String lastFallback;
  private volatile RunStats lastRun;
  private volatile long lastFinishNanos;
  private volatile long lastSetupNanos = -1;
  private volatile long lastLookupNanos;
  private volatile long lastJoinBytes;
  private volatile long lastJoinNanos;
  private volatile String lastJoinTiming = "";
  private volatile long lastJoinUploadedBytes;
  private volatile long lastJoinCachedBytes;
  private volatile long lastJoinKeptBytes;
  private TransferOptions transferOptions = DEFAULT_OPTIONS;
  private FilterVariant filterVariant = FilterVariant.BRANCHING;
  private long initialCapacity = INITIAL_CAPACITY;
  private GpuColumnCache cache;
  private int streamWorkers = GpuBatchStreamer.WORKERS;
  private int rowsStreamWorkers = GpuBatchStreamer.ROWS_WORKERS;
  private long rowsStagingBytes = ROWS_STAGING_BYTES;
  private long rowsWindowBytes = ROWS_OUTPUT_BUFFER_BYTES;
  private boolean coprocessing;
  /** Why the CPU backend cannot share this pipeline's scan with the GPU, or null. */
  private final String coprocessingUnsupported;
  private volatile Share lastShare;
  private BuildMarks buildMarks;
  private volatile int fallbackBatches;

  /** A pipeline over columns of {@code inputTypes}; invalid stages fail as in {@link ColumnarPipeline}. */
  public GpuColumnarPipeline(List<ExprType> inputTypes, List<PipelineStage> stages) {
    this.cpu = new ColumnarPipeline(inputTypes, stages);
    this.aggregateStage = cpu.firstAggregate();
    GpuProgram compiled = null;
    String reason = null;
    try {
      compiled = aggregateStage < 0 ? GpuProgram.compileRows(inputTypes, stages)
          : GpuProgram.compile(inputTypes, stages.subList(0, aggregateStage),
              (PipelineStage.Aggregate) stages.get(aggregateStage));
    } catch (GpuProgram.Unsupported e) {
      reason = e.getMessage();
    }
    if (compiled != null && compiled.columns.length == 0) {
      compiled = null;  // e.g. count(*): nothing to stream, row counts alone answer it
      reason = aggregateStage < 0 ? "it reads no column (its rows are constants the CPU makes without a transfer)"
          : "it reads no column (row counts alone answer it, and the CPU has them)";
    }
    this.program = compiled;
    this.unsupported = reason;
    this.coprocessingUnsupported = cpu.partialsUnsupportedReason();
    this.selection = compiled == null || aggregateStage < 0 || compiled.probes() ? null : SelectionAggregate.match(inputTypes,
        stages.subList(0, aggregateStage), (PipelineStage.Aggregate) stages.get(aggregateStage), compiled);
    this.regroup = Boolean.parseBoolean(System.getProperty(REGROUP_PROPERTY, "true"))
        ? GpuRegroup.of(stages, aggregateStage) : null;
  }

  /** Whether a run over all batches regroups the aggregation's groups on the device ({@link GpuRegroup}). */
  public boolean regroupsOnDevice() {
    return program != null && regroup != null;
  }

  /** Receives the marks a marking probe set in GPU memory: per mark and build row, non-zero where a probe row marked it. */
  public interface BuildMarks {
    void marked(int probe, byte[] marks);
  }

  /**
   * This pipeline handing the marks of its MARK_BUILD probe (a mark join's probe side) to {@code sink} once the GPU
   * streamed its batches (the CPU backend's share and fallback mark the probes its factory binds); returns this.
   */
  public GpuColumnarPipeline withBuildMarks(BuildMarks sink) {
    this.buildMarks = sink;
    return this;
  }

  /**
   * Whether a GPU run of {@code stages} applies a HAVING conjunct while it gathers the groups (the stage after the
   * aggregation filters by an aggregate call against a literal, {@link GpuHaving}), so that only the groups it keeps
   * come back; not in a scan shared with the CPU workers.
   */
  public static boolean filtersGroupsOnDevice(List<PipelineStage> stages) {
    for (int s = 0; s + 1 < stages.size(); s++) {
      if (stages.get(s) instanceof PipelineStage.Aggregate aggregate) {
        return GpuHaving.words(aggregate, stages.get(s + 1), ~0L, null) != GpuHaving.NONE;
      }
    }
    return false;
  }

  /** This pipeline streaming with other transfer options (chunk size, slots); returns this. */
  public GpuColumnarPipeline withTransferOptions(TransferOptions options) {
    this.transferOptions = options;
    return this;
  }

  /**
   * This pipeline's first hash table sized for {@code groups} groups at half load (0: unknown, the smallest table);
   * a table that proves too small still grows. Returns this.
   */
  public GpuColumnarPipeline withExpectedGroups(long groups) {
    long capacity = INITIAL_CAPACITY;
    while (capacity < MAX_CAPACITY && capacity < 2 * groups) {
      capacity *= 2;
    }
    this.initialCapacity = capacity;
    return this;
  }

  /**
   * Device bytes of the hash table a grouped aggregation of {@code calls} calls over about {@code groups} groups grows
   * to (half full at most): the planner keeps it within the GPU memory budget.
   */
  public static long aggregateStateBytes(long groups, int calls) {
    long capacity = INITIAL_CAPACITY;
    while (capacity < 2 * groups) {
      capacity *= 2;
    }
    return GpuAggregateState.bytes(capacity, calls);
  }

  /** This pipeline filtering with {@code variant} on the GPU; returns this. */
  public GpuColumnarPipeline withFilterVariant(FilterVariant variant) {
    this.filterVariant = variant;
    return this;
  }

  public FilterVariant filterVariant() {
    return filterVariant;
  }

  /** This pipeline reading its columns through {@code cache} (null: stream every run); returns this. */
  public GpuColumnarPipeline withCache(GpuColumnCache cache) {
    this.cache = cache;
    return this;
  }

  /**
   * This pipeline sharing its scan with the CPU backend (true) or leaving it to the GPU (false, the default): the
   * CPU workers take batches from the scan's end while the GPU streams from its front ({@link ScanClaims}), and the
   * two partial results are combined (rows one after the other, groups merged). Not with a column cache (the GPU
   * reads resident columns in one launch) or where {@link #coprocessingUnsupportedReason} says why. Returns this.
   */
  public GpuColumnarPipeline withCoprocessing(boolean enabled) {
    this.coprocessing = enabled;
    return this;
  }

  /** Why the CPU backend cannot share this pipeline's scan with the GPU, or empty. */
  public Optional<String> coprocessingUnsupportedReason() {
    return Optional.ofNullable(coprocessingUnsupported);
  }

  /**
   * How the last run's batches were shared: {@code gpu} streamed by the GPU (of which {@code fallback} the CPU ran
   * after all), {@code cpu} taken by the CPU workers; null when the GPU ran alone. {@code gpuNanos} and
   * {@code cpuNanos}: from the run's start to the end of each side's part (the CPU's 0 where it ran nothing), so that a
   * trace shows which side the other waited for.
   */
  public record Share(int gpu, int cpu, int fallback, long gpuNanos, long cpuNanos) {}

  /** The last run's share, or null where it did not share its scan. */
  public Share lastShare() {
    return lastShare;
  }

  /** This pipeline streaming with {@code workers} threads, each with its own transfer pipeline; returns this. */
  public GpuColumnarPipeline withStreamWorkers(int workers) {
    if (workers < 1) {
      throw new IllegalArgumentException("stream workers must be at least 1, got " + workers);
    }
    this.streamWorkers = workers;
    this.rowsStreamWorkers = workers;
    return this;
  }

  /**
   * This pipeline returning rows through chunks staged in at most {@code stagingBytes} of GPU memory and output
   * windows of at most {@code windowBytes} of pinned memory (tests: chunks whose rows fill several windows); returns
   * this.
   */
  GpuColumnarPipeline withRowsBuffers(long stagingBytes, long windowBytes) {
    if (stagingBytes <= 0 || windowBytes <= 0) {
      throw new IllegalArgumentException("buffer bytes must be positive, got " + stagingBytes + " and " + windowBytes);
    }
    this.rowsStagingBytes = stagingBytes;
    this.rowsWindowBytes = windowBytes;
    return this;
  }

  /**
   * Whether Q6-shaped runs may use the selection_aggregate kernels (default true); false keeps the
   * interpreter, for comparisons. Returns this.
   */
  public GpuColumnarPipeline withSelectionKernel(boolean enabled) {
    this.selectionKernel = enabled;
    return this;
  }

  /** Why the GPU cannot run this pipeline, or empty when it can. */
  public Optional<String> unsupportedReason() {
    return Optional.ofNullable(unsupported);
  }

  /**
   * The kernel a run over batches without NULLs launches: selection_aggregate_branching or _predication for
   * Q6's shape, else columnar_pipeline_global or _grouped (the interpreter), or columnar_pipeline_rows for a
   * pipeline without an aggregation; empty when unsupported.
   */
  public Optional<String> kernelName() {
    if (program == null) {
      return Optional.empty();
    }
    if (aggregateStage < 0) {
      return Optional.of("columnar_pipeline_rows");
    }
    if (selection != null && selectionKernel) {
      return Optional.of("selection_aggregate_" + filterVariant.label());
    }
    return Optional.of(program.keys.length == 0 ? "columnar_pipeline_global" : "columnar_pipeline_grouped");
  }

  /** The CPU backend of the same pipeline. */
  public ColumnarPipeline cpuPipeline() {
    return cpu;
  }

  public List<ExprType> outputTypes() {
    return cpu.outputTypes();
  }

  /** Why the last {@link #run} went to the CPU backend after all (too many groups, say), or null. */
  public String lastFallback() {
    return lastFallback;
  }

  /**
   * The last run on the GPU: {@code nanos} and {@code bytes} of its (last) pass over the data (bytes that
   * crossed the link to the GPU, cache fills included), {@code cachedBytes} read from the column cache instead,
   * the {@code kernel} launched, {@code wallNanos} of the whole run (setup and result included),
   * {@code kernelNanos}, the kernel alone by CUDA events when one launch read every batch from the cache
   * (-1 when streamed: kernels then overlap the transfers), and {@code returnedBytes} that came back over the
   * link: the selected rows' output columns (and per-tile counts) of a pipeline without an aggregation, the
   * aggregate state read of an aggregating one.
   */
  public record RunStats(long nanos, long bytes, long cachedBytes, String kernel, long wallNanos, long kernelNanos,
      long returnedBytes, long prepareNanos, long finishNanos) {
    public RunStats(long nanos, long bytes) {
      this(nanos, bytes, 0, "", nanos, -1, 0);
    }

    public RunStats(long nanos, long bytes, long cachedBytes, String kernel, long wallNanos, long kernelNanos) {
      this(nanos, bytes, cachedBytes, kernel, wallNanos, kernelNanos, 0);
    }

    public RunStats(long nanos, long bytes, long cachedBytes, String kernel, long wallNanos, long kernelNanos,
        long returnedBytes) {
      this(nanos, bytes, cachedBytes, kernel, wallNanos, kernelNanos, returnedBytes, -1, -1);
    }

    /**
     * Where the run's time went beside the stream, for traces: before it and after it in the pass (-1: not timed),
     * and the rest of the run (join tables, the batches' buffers, the CPU's share).
     */
    public String phases() {
      String pass = prepareNanos < 0 ? "" : String.format("%.1f ms before the stream and %.1f after it, ",
          prepareNanos / 1e6, finishNanos / 1e6);
      String kernels = kernelNanos < 0 ? "" : String.format("kernels %.1f ms by CUDA events, ", kernelNanos / 1e6);
      return String.format("%s%s%.1f ms in the pipeline's run", pass, kernels, wallNanos / 1e6);
    }

    /** Gigabytes (10^9 bytes) per second over the link to the GPU. */
    public double gigabytesPerSecond() {
      return nanos == 0 ? 0 : bytes / (double) nanos;
    }

    /** Gigabytes per second that came back over the link during the pass. */
    public double returnedGigabytesPerSecond() {
      return nanos == 0 ? 0 : returnedBytes / (double) nanos;
    }
  }

  /** The build side's columns that probe {@code probe} (counted in stage order) of the program reads, key excluded. */
  public BitSet buildColumnsRead(int probe) {
    BitSet out = new BitSet();
    if (program != null) {
      for (int s = 0; s < program.slotJoins.length; s++) {
        if (program.slotJoins[s] == probe) {
          out.set(program.slotColumns[s]);
        }
      }
    }
    return out;
  }

  /** GPU memory the last run's join tables and build columns took (0 without probes). */
  public long lastJoinBytes() {
    return lastJoinBytes;
  }

  /** Time the last run took to build its join tables in GPU memory (0 without probes). */
  public long lastJoinNanos() {
    return lastJoinNanos;
  }

  /** Where the last run's join tables took their time, for traces (empty without probes). */
  public String lastJoinTiming() {
    return lastJoinTiming;
  }

  /** Bytes of the last run's 64-bit build keys and columns uploaded from host memory (0 without probes). */
  long lastJoinUploadedBytes() {
    return lastJoinUploadedBytes;
  }

  /** Bytes of the last run's 64-bit build keys and columns made from the GPU column cache's copies. */
  long lastJoinCachedBytes() {
    return lastJoinCachedBytes;
  }

  /** Bytes of the last run's join tables and build columns read as earlier runs left them in the column cache. */
  long lastJoinKeptBytes() {
    return lastJoinKeptBytes;
  }

  /** Statistics of the last run's (last) pass over the data on the GPU, or null if none ran. */
  public RunStats lastRun() {
    return lastRun;
  }

  /**
   * The transfer method for columns in the memory at {@code address}: zero-copy for pinned memory, UM
   * prefetch for managed memory, otherwise pageable copy. Zero-copy, not pinned copy, for pinned memory:
   * on the H200 (docs/bench/pipeline) Q6 and Q1 pipelines pulled 0.91-0.93 of the link's 55 GB/s by
   * zero-copy but 0.82-0.84 by pinned copy, whose one DMA per 0.5-1 MiB column buffer of a 128 Ki-row
   * batch costs time of its own (raw copies of the same buffers reach 0.86); and under BRANCHING a
   * selective filter spares zero-copy the columns of rejected rows (Q6 ran 2x faster than the link).
   */
  public static TransferMethod defaultMethod(CudaDevice device, long address) {
    HostMemoryKind kind = HostMemoryKind.of(device, address);
    return switch (kind) {
      case PINNED -> TransferMethod.ZERO_COPY;
      case MANAGED -> TransferMethod.UM_PREFETCH;
      default -> TransferMethod.PAGEABLE_COPY;
    };
  }

  /**
   * Frees what GPU pipelines keep between runs on {@code device} (idle transfer pipelines with their chunk
   * buffers, scratch buffers): for tests that check allocator counts, and when memory is short.
   */
  public static void releaseIdleResources(CudaDevice device) {
    TransferPipelinePool.of(device).trim();
    GpuScratch.trim(device);
  }

  /**
   * Runs the pipeline on {@code device}, streaming the columns with {@code method}; CPU threads
   * ({@code cpuThreads}) serve when the data needs more than the GPU offers (see {@link #lastFallback()}).
   * Fails fast if {@code cancelled} turns true between batches. For a pipeline without join probes.
   */
  public List<ColumnBatch> run(CudaDevice device, TransferMethod method, List<SourceBatch> batches, int cpuThreads,
      BooleanSupplier cancelled) {
    return run(device, method, batches, List.of(), stop -> cpu, cpuThreads, cancelled);
  }

  /** As below, the CPU backend bound by {@code cpuBackend} alone. */
  public List<ColumnBatch> run(CudaDevice device, TransferMethod method, List<SourceBatch> batches,
      List<? extends IndexedColumns> builds, Supplier<ColumnarPipeline> cpuBackend, int cpuThreads,
      BooleanSupplier cancelled) {
    return run(device, method, batches, builds, stop -> cpuBackend.get(), cpuThreads, cancelled);
  }

  /**
   * As above for a pipeline that probes hash joins: {@code builds} holds each probe stage's build side (in stage
   * order), whose tables are built in GPU memory for this run and freed after it; where the GPU cannot run it
   * after all (duplicate keys of an inner or left join, the GPU memory budget, too many groups), the CPU backend
   * that {@code cpuBackend} binds (its probes bound to the same build sides; binding stops with a
   * CancellationException once the supplier it is given turns true) runs it, and {@link #lastFallback()} says why.
   * With {@link #withCoprocessing} the CPU backend also runs beside the GPU over the batches the GPU has not taken
   * ({@link ScanClaims}), and the two results are combined.
   */
  public List<ColumnBatch> run(CudaDevice device, TransferMethod method, List<SourceBatch> batches,
      List<? extends IndexedColumns> builds, Function<BooleanSupplier, ColumnarPipeline> cpuBackend, int cpuThreads,
      BooleanSupplier cancelled) {
    if (program == null) {
      throw new UnsupportedOperationException("pipeline is not supported on the GPU: " + unsupported);
    }
    long started = System.nanoTime();
    lastFallback = null;
    lastJoinBytes = 0;
    lastJoinNanos = 0;
    lastJoinTiming = "";
    lastJoinUploadedBytes = 0;
    lastJoinCachedBytes = 0;
    lastJoinKeptBytes = 0;
    lastShare = null;
    ScanClaims claims = coprocessing && cache == null && coprocessingUnsupported == null && batches.size() > 1
        ? new ScanClaims(batches.size()) : null;
    CpuShare share = claims == null ? null : CpuShare.start(cpuBackend, batches, claims,
        Math.max(1, cpuThreads - (aggregateStage < 0 ? ROWS_GPU_THREADS : AGGREGATE_GPU_THREADS)), cancelled);
    List<ColumnarPipeline.Partial> partials = new ArrayList<>();
    try {
      partials.add(gpuPartial(device, method, batches, builds, claims, cpuBackend, cpuThreads, cancelled, started));
      if (share != null) {
        long gpuNanos = System.nanoTime() - started;
        share.gpuDone(claims.gpuBatches() == batches.size());
        ColumnarPipeline.Partial cpuPart = share.await();
        if (cpuPart != null) {
          partials.add(cpuPart);
        }
        lastShare = new Share(claims.gpuBatches(), claims.cpuBatches(), fallbackBatches, gpuNanos,
            share.finishedAt() == 0 ? 0 : share.finishedAt() - started);
      }
    } catch (RuntimeException | Error e) {
      if (share != null) {
        share.abandon();
      }
      throw e;
    }
    long finishing = System.nanoTime();
    List<ColumnBatch> out = cpu.finish(partials, cpuThreads, cancelled);
    lastFinishNanos = aggregateStage < 0 ? 0 : System.nanoTime() - finishing;
    return out;
  }

  /**
   * Records the set-up of a run that started at {@code started} and looked its buffers up in the column cache from
   * {@code lookups} until now (the join tables, timed on their own, left out).
   */
  private void setUp(long started, long lookups) {
    long now = System.nanoTime();
    lastSetupNanos = now - started - lastJoinNanos;
    lastLookupNanos = now - lookups;
  }

  /** Where the last run's time went before its pass (buffers, cache look-ups), for traces; empty before a run. */
  public String lastSetup() {
    return lastSetupNanos < 0 ? "" : String.format(java.util.Locale.ROOT,
        "set up in %.1f ms (%.1f of it looking %s up in the column cache)", lastSetupNanos / 1e6,
        lastLookupNanos / 1e6, cache == null ? "nothing" : "buffers");
  }

  /** The time the last run's stages after its aggregation took on the CPU (with the partials' merge); 0 for none. */
  public long lastFinishNanos() {
    return lastFinishNanos;
  }

  /**
   * The GPU's part of a run: all batches, or those it claims from {@code claims}; where the GPU cannot run it after
   * all, the CPU backend's part over the same batches.
   */
  private ColumnarPipeline.Partial gpuPartial(CudaDevice device, TransferMethod method, List<SourceBatch> batches,
      List<? extends IndexedColumns> builds, ScanClaims claims, Function<BooleanSupplier, ColumnarPipeline> cpuBackend,
      int cpuThreads, BooleanSupplier cancelled, long started) {
    fallbackBatches = 0;
    GpuJoinTables joins = null;
    if (program.probes()) {
      try {
        joins = new GpuJoinTables(device, new GpuKernels(device), program, builds, cache);
        lastJoinBytes = joins.bytes();
        lastJoinNanos = System.nanoTime() - started;
        lastJoinTiming = joins.timing();
        lastJoinUploadedBytes = joins.uploadedBytes();
        lastJoinCachedBytes = joins.cachedBytes();
        lastJoinKeptBytes = joins.keptBytes();
      } catch (GpuJoinTables.BuildKeysRefused | GpuMemoryException e) {
        lastFallback = e.getMessage();
        return cpuInstead(cpuBackend, batches, claims, cpuThreads, cancelled);
      }
    }
    try {
      ColumnarPipeline.Partial partial = passes(device, method, batches, builds, joins, claims, cpuBackend,
          cpuThreads, cancelled, started);
      if (lastFallback == null) {
        deliverMarks(joins);
      }
      return partial;
    } catch (GpuPipelineErrors.KeyOutOfRange | GpuTextColumns.NotDeviceVisible e) {
      lastFallback = e.getMessage();
      return cpuInstead(cpuBackend, batches, claims, cpuThreads, cancelled);
    } catch (GpuMemoryException e) {
      // the pass's buffers, its aggregate state or the join tables beside them do not fit the GPU memory left (or
      // the budget): the CPU runs it over the same build sides, never an out-of-memory failure
      if (joins != null) {
        joins.close();
        joins = null;
      }
      lastFallback = e.getMessage();
      return cpuInstead(cpuBackend, batches, claims, cpuThreads, cancelled);
    } finally {
      if (joins != null) {
        joins.close();
      }
    }
  }

  /** Hands the marks of each marking probe to {@link #buildMarks}; one is required where the program marks. */
  private void deliverMarks(GpuJoinTables joins) {
    for (int j = 0; j < program.joinKinds.length; j++) {
      if (program.joinMarks[j] > 0) {
        if (buildMarks == null) {
          throw new IllegalStateException("a GPU pipeline that marks build rows needs withBuildMarks");
        }
        buildMarks.marked(j, joins.marks(j));
      }
    }
  }

  /**
   * The CPU backend instead of the GPU: over all batches, or, in a shared scan, over those the GPU claimed (it
   * claims no more; the CPU's own share takes the rest).
   */
  private ColumnarPipeline.Partial cpuInstead(Function<BooleanSupplier, ColumnarPipeline> cpuBackend,
      List<SourceBatch> batches, ScanClaims claims, int cpuThreads, BooleanSupplier cancelled) {
    if (claims == null) {
      return cpuBackend.apply(cancelled).runPartial(batches, cpuThreads, cancelled);
    }
    claims.closeFront();
    fallbackBatches = claims.gpuBatches();
    return cpuBackend.apply(cancelled).runClaimed(batches.subList(0, fallbackBatches), b -> true, cpuThreads,
        cancelled);
  }

  private ColumnarPipeline.Partial passes(CudaDevice device, TransferMethod method, List<SourceBatch> batches,
      List<? extends IndexedColumns> builds, GpuJoinTables joins, ScanClaims claims, Function<BooleanSupplier, ColumnarPipeline> cpuBackend, int cpuThreads,
      BooleanSupplier cancelled, long started) {
    boolean[][] nulls = nullsOf(batches);
    long nullable = nullableColumns(nulls) | (joins == null ? 0 : joins.nullableSlots());
    if (aggregateStage < 0) {
      return new ColumnarPipeline.Partial(gathered(runRows(device, method, batches, nulls, nullable, joins, claims,
          cancelled, started), builds), null);
    }
    int[] keyNullBits = program.keyNullBits(nullable);
    if (keyNullBits == null) {
      lastFallback = "the NULL flags of the group keys do not fit beside their values in the GPU's 64-bit keys";
      return cpuInstead(cpuBackend, batches, claims, cpuThreads, cancelled);
    }
    long tracked = 0;
    for (int c = 0; c < program.callNullDeps.length; c++) {
      tracked |= GpuProgram.mayBeNull(program.callNullDeps[c], nullable) ? 1L << c : 0;
    }
    GpuPass pass = new GpuPass(device, new GpuKernels(device), program, nullable == 0 && selectionKernel ? selection : null,
        filterVariant, new GpuProgramImage(program, keyNullBits), tracked, joins);
    if (claims == null && aggregateStage + 1 < cpu.stages().size()) {  // a shared scan's groups merge before HAVING
      pass.withHaving(GpuHaving.words((PipelineStage.Aggregate) cpu.stages().get(aggregateStage),
          cpu.stages().get(aggregateStage + 1), tracked, cpu.stageInputTypes(aggregateStage)));
    }
    List<GpuBatchStreamer.BatchBuffers> buffers = buffersOf(device, method, batches, nulls);
    PipelineStage.Aggregate aggregate = (PipelineStage.Aggregate) cpu.stages().get(aggregateStage);
    long capacity = aggregate.groupKeys().length == 0 ? 0 : initialCapacity;
    device.makeCurrent();
    // the CPU's share of a shared scan brings groups of the inner aggregation, which merge with the GPU's
    GpuRegroup.Layout regrouping = claims != null || regroup == null || capacity == 0 ? null
        : regroup.layout(keyBits(), program.keyOffsets, keyNullBits);
    pass.withRegroup(regrouping);
    try (GpuColumnCache.Session session = cache == null ? null : cache.open()) {
      long lookups = System.nanoTime();
      GpuColumnCache.Entry[][] resident = GpuPass.resolve(session, buffers);
      buffers = GpuPass.withCachedText(session, device, buffers);
      setUp(started, lookups);
      // a pass that must run again with a larger table streams the same batches: those the GPU claimed in the first
      GpuBatchStreamer streamer = new GpuBatchStreamer(device, method, transferOptions, streamWorkers).withClaims(claims);
      while (true) {
        GpuPass.Outcome outcome = pass.run(capacity, aggregate.calls().size(), buffers, resident, session, streamer,
            chunkRows(batches), cancelled, (state, header) -> {
              GpuPipelineErrors.throwIfFailed(header[0], pass.origins());
              return regrouping != null
                  ? state.result(device, regroup.outer(), cpu.stageInputTypes(aggregateStage + 1), regrouping.bits(),
                      regrouping.shifts(), regrouping.offsets(), regrouping.nullBits(), regrouping.trackedCalls())
                  : state.result(device, aggregate, cpu.stageInputTypes(aggregateStage), keyBits(), program.keyOffsets,
                      keyNullBits, pass.trackedCalls());
            });
        lastRun = new RunStats(outcome.nanos(), streamed(outcome.streamedBytes(), buffers, claims),
            outcome.cachedBytes(), pass.kernelName(capacity), System.nanoTime() - started, outcome.kernelNanos(),
            outcome.stateBytes(), outcome.prepareNanos(), outcome.finishNanos());
        if (outcome.result() != null) {
          return new ColumnarPipeline.Partial(null, outcome.result(), regrouping != null ? 2 : 1);
        }
        if (capacity >= MAX_CAPACITY) {
          lastFallback = "more than " + MAX_CAPACITY / 2 + " groups for the GPU hash table";
          return cpuInstead(cpuBackend, batches, claims, cpuThreads, cancelled);
        }
        capacity = Math.min(MAX_CAPACITY, capacity * 16);
      }
    }
  }

  /** The bytes a pass streamed: all of {@code bytes}, or in a shared scan those of the batches the GPU claimed. */
  private static long streamed(long bytes, List<GpuBatchStreamer.BatchBuffers> buffers, ScanClaims claims) {
    if (claims == null) {
      return bytes;
    }
    long mine = 0;
    for (GpuBatchStreamer.BatchBuffers batch : buffers.subList(0, claims.gpuBatches())) {
      for (GpuBatchStreamer.Buffer buffer : batch.buffers()) {
        mine += buffer == null ? 0 : buffer.column().byteLength();
      }
      mine += GpuPass.textBytes(batch);
    }
    return mine;
  }

  /**
   * Runs a pipeline without an aggregation: chunks of whole tiles (so that tiles never straddle a morsel of the
   * CPU backend's result), one launch per chunk, the selected rows back in input order.
   */
  private List<ColumnBatch> runRows(CudaDevice device, TransferMethod method, List<SourceBatch> batches,
      boolean[][] nulls, long nullable, GpuJoinTables joins, ScanClaims claims, BooleanSupplier cancelled,
      long started) {
    boolean[] nullableOutputs = new boolean[program.outputs.length];
    for (int k = 0; k < nullableOutputs.length; k++) {
      nullableOutputs[k] = GpuProgram.mayBeNull(program.outputNullDeps[k], nullable);
    }
    List<ExprType> types = program.deviceOutputTypes(cpu.outputTypes());
    long chunkRows = GpuRowsLayout.chunkRowsFitting(types, nullableOutputs, chunkRows(batches), rowsStagingBytes);
    GpuRowsLayout staging = new GpuRowsLayout(types, nullableOutputs, chunkRows);
    GpuRowsPass pass = new GpuRowsPass(device, new GpuKernels(device), program, filterVariant, staging,
        staging.window(GpuRowsLayout.chunkRowsFitting(types, nullableOutputs, chunkRows, rowsWindowBytes)),
        transferOptions.slots(), joins);
    List<GpuBatchStreamer.BatchBuffers> buffers = buffersOf(device, method, batches, nulls);
    device.makeCurrent();
    try (GpuColumnCache.Session session = cache == null ? null : cache.open()) {
      long lookups = System.nanoTime();
      GpuColumnCache.Entry[][] resident = GpuPass.resolve(session, buffers);
      buffers = GpuPass.withCachedText(session, device, buffers);
      setUp(started, lookups);
      GpuRowsPass.Outcome outcome = pass.run(buffers, resident, session,
          new GpuBatchStreamer(device, method, transferOptions, rowsStreamWorkers).withClaims(claims), claims == null,
          cancelled);
      lastRun = new RunStats(outcome.nanos(), streamed(outcome.streamedBytes(), buffers, claims), outcome.cachedBytes(),
          pass.kernelName(), System.nanoTime() - started, -1, outcome.returnedBytes());
      return outcome.result();
    }
  }

  /** The rows with each gathered output column's build row ids replaced by the build side's values at them. */
  private List<ColumnBatch> gathered(List<ColumnBatch> rows, List<? extends IndexedColumns> builds) {
    int[][] gathered = program.gatheredOutputs;
    if (Arrays.stream(gathered).allMatch(Objects::isNull)) {
      return rows;
    }
    List<ColumnBatch> out = new ArrayList<>(rows.size());
    for (ColumnBatch batch : rows) {
      ColumnVector[] columns = batch.columns().clone();
      for (int k = 0; k < gathered.length; k++) {
        if (gathered[k] != null) {
          int n = batch.rows();
          int[] ids = new int[n];
          for (int r = 0; r < n; r++) {
            ids[r] = (int) columns[k].longs[r];
          }
          columns[k] = builds.get(gathered[k][0]).gather(gathered[k][1], ids, n);
        }
      }
      out.add(new ColumnBatch(columns, batch.rows()));
    }
    return out;
  }

  /** Bit c set when column slot c holds NULLs in some batch. */
  private static long nullableColumns(boolean[][] nulls) {
    long nullable = 0;
    for (boolean[] batch : nulls) {
      for (int c = 0; c < batch.length; c++) {
        nullable |= batch[c] ? 1L << c : 0;
      }
    }
    return nullable;
  }

  /**
   * Rows of the chunks: each slot holds a chunk per column. Where the method copies, consecutive small batches
   * travel together in chunks of up to {@link #JOINED_CHUNK_ROWS} rows ({@link GpuBatchStreamer#groups}); else a
   * chunk is at most the largest batch. Never more than all rows (a multiple of 32).
   */
  private long chunkRows(List<SourceBatch> batches) {
    long largest = 32;
    long total = 0;
    for (SourceBatch b : batches) {
      largest = Math.max(largest, (b.rows() + 31L) / 32 * 32);
      total += b.rows();
    }
    long joined = Math.min(JOINED_CHUNK_ROWS, Math.max(32, (total + 31) / 32 * 32));
    return Math.min(transferOptions.chunkRows(ColumnType.MAX_WIDTH), Math.max(largest, joined));
  }

  private int[] keyBits() {
    int[] bits = new int[program.keys.length / 2];
    for (int k = 0; k < bits.length; k++) {
      bits[k] = program.keys[2 * k + 1];
    }
    return bits;
  }

  /**
   * Per batch and column slot: whether the column holds NULLs. A column whose field is declared NOT NULL is
   * taken at its word (its validity bitmap is neither scanned nor streamed); others are counted.
   */
  private boolean[][] nullsOf(List<SourceBatch> batches) {
    boolean[][] out = new boolean[batches.size()][program.columns.length];
    for (int b = 0; b < batches.size(); b++) {
      for (int c = 0; c < program.columns.length; c++) {
        FieldVector v = batches.get(b).columns().get(program.columns[c]);
        out[b][c] = v.getField().isNullable() && batches.get(b).rows() > 0 && v.getNullCount() > 0;
      }
    }
    return out;
  }

  /**
   * The buffers each batch streams: the data buffers of the columns the program reads, and their validity bitmaps;
   * plain-text columns are read in place ({@link GpuTextColumns}), their validity bitmaps streamed.
   */
  private List<GpuBatchStreamer.BatchBuffers> buffersOf(CudaDevice device, TransferMethod method,
      List<SourceBatch> batches, boolean[][] nulls) {
    List<GpuBatchStreamer.BatchBuffers> out = new ArrayList<>();
    int slots = program.columns.length;
    boolean readsText = program.readsText();
    for (int b = 0; b < batches.size(); b++) {
      SourceBatch batch = batches.get(b);
      GpuBatchStreamer.Buffer[] buffers = new GpuBatchStreamer.Buffer[2 * slots];
      GpuBatchStreamer.TextColumn[] text = readsText ? new GpuBatchStreamer.TextColumn[slots] : null;
      for (int c = 0; c < slots && batch.rows() > 0; c++) {
        FieldVector vector = batch.columns().get(program.columns[c]);
        if (nulls[b][c]) {
          buffers[slots + c] = new GpuBatchStreamer.Buffer(HostColumn.validity(vector, batch.rows()),
              vector.getValidityBuffer());
        }
        if (program.text[c]) {
          text[c] = GpuTextColumns.of(device, method, vector, batch.rows());
          continue;
        }
        int width = program.wide[c] ? 8 : 4;
        if (!(vector instanceof BaseFixedWidthVector fixed) || fixed.getTypeWidth() != width) {
          throw new IllegalArgumentException("column " + vector.getField() + " is not a " + width
              + "-byte fixed-width vector, as input column $" + program.columns[c] + " of the GPU pipeline must be");
        }
        buffers[c] = new GpuBatchStreamer.Buffer(HostColumn.of(vector.getName(),
            width == 8 ? ColumnType.INT64 : ColumnType.INT32, vector.getDataBuffer(), batch.rows()),
            vector.getDataBuffer());
      }
      out.add(new GpuBatchStreamer.BatchBuffers(batch.rows(), buffers, text));
    }
    return out;
  }

  static int blockThreads() {
    return BLOCK_THREADS;
  }

  @Override public String toString() {
    return "GpuColumnarPipeline" + cpu.stages();
  }
}
