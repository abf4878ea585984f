package org.spillway.gpu.pipeline.gpu;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.apache.arrow.memory.ArrowBuf;
import org.spillway.gpu.device.CudaDevice;
import org.spillway.gpu.device.CudaStream;
import org.spillway.gpu.device.HostMemoryKind;
import org.spillway.gpu.transfer.DeviceChunk;
import org.spillway.gpu.transfer.HostColumn;
import org.spillway.gpu.transfer.TransferMethod;
import org.spillway.gpu.transfer.TransferOptions;
import org.spillway.gpu.transfer.TransferPipeline;
import org.spillway.gpu.transfer.TransferPipelinePool;
import org.spillway.gpu.pipeline.ScanClaims;

/**
 * Streams the column buffers of many Arrow batches to one kernel launch per chunk. Each batch is a part of a
 * {@link TransferPipeline#stream}, so a pipeline never drains between batches; a few worker threads, each
 * with a pipeline from the device's {@link TransferPipelinePool}, can share the batches; one is the default:
 * on the H200 one thread issues the copies of 128 Ki-row batches fast enough, and two or four interleave
 * their copies and lose 1-7% (docs/bench/pipeline). Buffers resident in a
 * {@link GpuColumnCache} are read in place; buffers the cache just allocated are filled by one copy on the
 * chunk's stream. Consumers must tolerate concurrent chunks (the pipeline kernels accumulate with atomics);
 * a consumer with state per worker (the output buffers of rows coming back) gets a {@link WorkerSink} per
 * worker, which sees every chunk's batch and rows, in order within a batch.
 */
final class GpuBatchStreamer {
  /** Worker threads (system property spillway.gpu.streamWorkers), each streaming with its own pipeline. */
  static final int WORKERS = Math.max(1, Integer.getInteger("spillway.gpu.streamWorkers", 1));
  /**
   * Worker threads of pipelines that return rows (system property spillway.gpu.rowsStreamWorkers). One: the rows of a
   * chunk of several batches are copied into Java arrays by several threads at once (GpuRowsAssembler), and several
   * workers, each issuing its own copies, launches and event waits, slowed each other's driver calls down.
   */
  static final int ROWS_WORKERS = Math.max(1, Integer.getInteger("spillway.gpu.rowsStreamWorkers", 1));

  private static final ExecutorService POOL = Executors.newCachedThreadPool(runnable -> {
    Thread thread = new Thread(runnable, "spillway-gpu-stream");
    thread.setDaemon(true);
    return thread;
  });

  /** One host buffer a kernel reads: a column's data or validity bitmap, and the Arrow buffer that owns it. */
  record Buffer(HostColumn column, ArrowBuf owner) {}

  /**
   * A plain-text column of one batch, read in place by the kernels: the device-visible addresses of its int32
   * offsets (row 0's) and of its UTF-8 bytes, and the bytes of both that its rows span (what crosses the link);
   * {@code source} the host buffers they lie in (for the column cache, null where unknown), {@code cached} whether
   * the addresses are a column cache's copies in GPU memory (nothing then crosses the link).
   */
  record TextColumn(long offsetsAddress, long bytesAddress, long byteLength, TextSource source, boolean cached) {
    TextColumn(long offsetsAddress, long bytesAddress, long byteLength) {
      this(offsetsAddress, bytesAddress, byteLength, null, false);
    }
  }

  /**
   * The host buffers of a plain-text column: its offsets ({@code rows + 1} of them from the buffer's start) and its
   * UTF-8 bytes (from the buffer's start up to the last row's end offset; null where there are none).
   */
  record TextSource(ArrowBuf offsets, ArrowBuf bytes, long rows) {
    long offsetsBytes() {
      return 4 * (rows + 1);
    }

    long bytesLength() {
      return bytes == null ? 0 : offsets.getInt(4 * rows);
    }
  }

  /**
   * The buffers of one batch: {@code buffers[c]} the data of column slot c, {@code buffers[slots + c]} its
   * validity bitmap (null when the batch holds no NULL in it); {@code text[c]} the in-place plain-text column of
   * slot c (whose data buffer is then null), or {@code text} null when the batch has none.
   */
  record BatchBuffers(long rows, Buffer[] buffers, TextColumn[] text) {
    BatchBuffers(long rows, Buffer[] buffers) {
      this(rows, buffers, null);
    }

    int slots() {
      return buffers.length / 2;
    }

    /** The descriptor word of buffer {@code i} in a chunk descriptor. */
    int word(int i) {
      return i < slots() ? GpuChunkTable.dataWord(i) : GpuChunkTable.validityWord(i - slots());
    }
  }

  /** Enqueues the kernel over one chunk, described by its ChunkArg words, on {@code stream}. */
  @FunctionalInterface
  interface Launcher {
    void launch(long[] chunk, CudaStream stream);
  }

  /**
   * One worker's consumer of chunks, told where each chunk lies and when the worker is done. A chunk holds rows of
   * one batch, or all rows of {@code batches} consecutive batches (small batches that travel together).
   */
  interface WorkerSink {
    /**
     * Enqueues the work on a chunk on {@code stream}: rows {@code firstRow .. firstRow + rows - 1} of batch
     * {@code batch} when {@code batches} is 1, else every row of batches {@code batch .. batch + batches - 1}, in order.
     */
    void launch(int batch, int batches, long firstRow, long rows, long[] chunk, CudaStream stream);

    /**
     * Called on the worker's thread once its pipeline stopped: {@code completed} when every chunk it launched
     * is done, else after a failure (work it enqueued may still run on the streams it was given).
     */
    void finish(boolean completed);
  }

  private final CudaDevice device;
  private final TransferMethod method;
  private final TransferOptions options;
  private final int workers;
  /** The scan shared with the CPU workers, or null where the GPU streams every batch. */
  private ScanClaims claims;

  GpuBatchStreamer(CudaDevice device, TransferMethod method, TransferOptions options, int workers) {
    this.device = device;
    this.method = method;
    this.options = options;
    this.workers = workers;
  }

  /**
   * This streamer taking only the groups of batches that {@code claims} gives the GPU (a scan shared with the CPU
   * workers): it stops at the first group the CPU has a batch of. Returns this.
   */
  GpuBatchStreamer withClaims(ScanClaims claims) {
    this.claims = claims;
    return this;
  }

  /**
   * Streams every batch's buffers without a cache entry ({@code resident[b][i]} null) in chunks of
   * {@code chunkRows} rows and launches each chunk; returns once all chunks are consumed. The first failure
   * of any worker is thrown after all workers stopped.
   */
  void stream(List<BatchBuffers> batches, GpuColumnCache.Entry[][] resident, GpuColumnCache.Session cache,
      long chunkRows, Launcher launcher, BooleanSupplier cancelled) {
    WorkerSink sink = new WorkerSink() {
      @Override public void launch(int batch, int batches, long firstRow, long rows, long[] chunk, CudaStream stream) {
        launcher.launch(chunk, stream);
      }

      @Override public void finish(boolean completed) {
      }
    };
    stream(batches, resident, cache, chunkRows, () -> sink, cancelled);
  }

  /** As above, each worker launching through its own sink from {@code sinks}, which it finishes at the end. */
  void stream(List<BatchBuffers> batches, GpuColumnCache.Entry[][] resident, GpuColumnCache.Session cache,
      long chunkRows, Supplier<WorkerSink> sinks, BooleanSupplier cancelled) {
    AtomicInteger next = new AtomicInteger();
    TransferPipelinePool pool = TransferPipelinePool.of(device);
    List<Group> groups = groups(batches, resident, chunkRows, method.joinsSegments());
    int[][] streamedOf = new int[groups.size()][];  // per group: the buffer behind each streamed column
    Runnable worker = () -> {
      TransferPipeline pipeline = pool.acquire(method, options);
      WorkerSink sink = null;
      boolean ok = false;
      try {
        WorkerSink mine = sinks.get();
        sink = mine;
        pipeline.stream(() -> part(batches, groups, resident, streamedOf, next, cancelled), chunkRows,
            (part, chunk, stream) -> launch(groups.get(part.id()), batches.get(groups.get(part.id()).first()),
                resident[groups.get(part.id()).first()], streamedOf[part.id()], cache, chunk, stream, mine));
        ok = true;
      } finally {
        try {
          if (sink != null) {
            sink.finish(ok);  // before a failed pipeline closes the streams its work may still run on
          }
        } finally {
          if (ok) {
            pool.release(pipeline);
          } else {
            pipeline.close();
          }
        }
      }
    };
    int threads = Math.max(1, Math.min(workers, groups.size()));
    List<Future<?>> helpers = new ArrayList<>();
    for (int w = 1; w < threads; w++) {
      helpers.add(POOL.submit(worker));
    }
    RuntimeException failure = null;
    try {
      worker.run();
    } catch (RuntimeException e) {
      failure = e;
      next.set(groups.size());  // the helpers stop after their current chunk
    }
    failure = awaitAll(helpers, next, groups.size(), failure);
    if (failure != null) {
      throw failure;
    }
  }

  /**
   * Batches a launch over mapped tables takes ({@link #mappedTables}): enough tiles that every block of a resident wave
   * takes many, few enough that cancellation is seen between launches.
   */
  static final int TABLE_BATCHES = Integer.getInteger("spillway.gpu.zeroCopyTableBatches", 64);

  /**
   * Whether a pass over {@code batches} launches over tables of whole batches read in place instead of a launch per
   * batch: zero-copy (which reads the batches where they lie, so its chunks cannot join batches), the GPU taking the
   * whole scan (no claims), nothing of it in the column cache. A launch per batch of 2^17 rows gave each thread one
   * row: a pass whose program does more than stream its bytes was bound by launches, not by the link.
   * {@code -Dspillway.gpu.zeroCopyTables=false} keeps a launch per batch.
   */
  boolean mappedTables(GpuColumnCache.Entry[][] resident) {
    if (method != TransferMethod.ZERO_COPY || claims != null
        || "false".equalsIgnoreCase(System.getProperty("spillway.gpu.zeroCopyTables"))) {
      return false;
    }
    for (GpuColumnCache.Entry[] entries : resident) {
      if (!uncached(entries)) {
        return false;
      }
    }
    return true;
  }

  /**
   * The chunk descriptors of whole batches read in place over the link, {@link #TABLE_BATCHES} batches a table, empty
   * batches left out: each buffer at its mapped device address (text columns are device-visible already).
   */
  List<List<long[]>> mappedTables(List<BatchBuffers> batches) {
    Map<Long, Long> mapped = new HashMap<>();
    List<List<long[]>> tables = new ArrayList<>();
    List<long[]> table = new ArrayList<>();
    for (BatchBuffers batch : batches) {
      if (batch.rows() == 0) {
        continue;
      }
      table.add(mappedChunk(batch, mapped));
      if (table.size() == TABLE_BATCHES) {
        tables.add(table);
        table = new ArrayList<>();
      }
    }
    if (!table.isEmpty()) {
      tables.add(table);
    }
    return tables;
  }

  /**
   * The chunk descriptor of a whole batch read in place: each buffer at its mapped device address ({@code mapped}
   * remembers the translations of one pass), text columns as they are (device-visible already).
   */
  long[] mappedChunk(BatchBuffers batch, Map<Long, Long> mapped) {
    long[] words = GpuChunkTable.chunk(batch.rows());
    if (batch.rows() == 0) {
      return words;  // no tile reads it, and an empty buffer may have no address to translate
    }
    GpuChunkTable.text(words, batch.text(), 0);
    for (int i = 0; i < batch.buffers().length; i++) {
      if (batch.buffers()[i] != null) {
        long host = batch.buffers()[i].column().address();
        words[batch.word(i)] = mapped.computeIfAbsent(host, h -> HostMemoryKind.mappedDeviceAddress(device, h));
      }
    }
    return words;
  }

  /** Consecutive batches {@code first .. first + count - 1} that travel as one part. */
  record Group(int first, int count) {}

  /**
   * The parts of a stream: each batch alone, or, where the method copies into the chunk buffers ({@code join}),
   * runs of consecutive batches that together fit a chunk of {@code chunkRows} rows. A batch joins the one before it
   * only where that one holds whole tiles of {@link #JOIN_ALIGN_ROWS} rows (so that no tile of a kernel straddles two
   * batches), where both stream the same buffers, neither is read from the column cache and neither reads plain
   * text in place (a descriptor holds one batch's text addresses). Fewer, larger chunks cost fewer launches, events
   * and host round trips per byte.
   */
  static List<Group> groups(List<BatchBuffers> batches, GpuColumnCache.Entry[][] resident, long chunkRows,
      boolean join) {
    List<Group> out = new ArrayList<>();
    int first = 0;
    long rows = 0;
    for (int b = 0; b < batches.size(); b++) {
      BatchBuffers batch = batches.get(b);
      boolean joins = join && b > first && batches.get(b - 1).rows() % JOIN_ALIGN_ROWS == 0
          && rows + batch.rows() <= chunkRows && sameStreamedBuffers(batches.get(first), batch)
          && uncached(resident[first]) && uncached(resident[b]) && batches.get(first).text() == null
          && batch.text() == null;
      if (!joins && b > first) {
        out.add(new Group(first, b - first));
        first = b;
        rows = 0;
      }
      rows += batch.rows();
    }
    if (first < batches.size()) {
      out.add(new Group(first, batches.size() - first));
    }
    return out;
  }

  /** Rows a batch must be a multiple of to be followed by another in the same chunk (the kernels' tile). */
  static final int JOIN_ALIGN_ROWS = 256;

  private static boolean sameStreamedBuffers(BatchBuffers a, BatchBuffers b) {
    for (int i = 0; i < a.buffers().length; i++) {
      if ((a.buffers()[i] == null) != (b.buffers()[i] == null)) {
        return false;
      }
    }
    return true;
  }

  private static boolean uncached(GpuColumnCache.Entry[] entries) {
    for (GpuColumnCache.Entry entry : entries) {
      if (entry != null) {
        return false;
      }
    }
    return true;
  }

  private TransferPipeline.Part part(List<BatchBuffers> batches, List<Group> groups,
      GpuColumnCache.Entry[][] resident, int[][] streamedOf, AtomicInteger next, BooleanSupplier cancelled) {
    int g = next.getAndIncrement();
    if (g >= groups.size()) {
      return null;
    }
    if (cancelled.getAsBoolean()) {
      throw new CancellationException("query cancelled");
    }
    Group group = groups.get(g);
    if (claims != null && !claims.claimFront(group.first() + group.count())) {
      next.set(groups.size());  // the CPU has the rest
      return null;
    }
    int b = group.first();
    BatchBuffers batch = batches.get(b);
    int[] of = new int[batch.buffers().length];
    int streamed = 0;
    for (int i = 0; i < batch.buffers().length; i++) {
      if (batch.buffers()[i] != null && resident[b][i] == null) {
        of[streamed++] = i;
      }
    }
    streamedOf[g] = java.util.Arrays.copyOf(of, streamed);
    List<TransferPipeline.Segment> following = new ArrayList<>();
    for (int j = b + 1; j < b + group.count(); j++) {
      following.add(new TransferPipeline.Segment(columns(batches.get(j), streamedOf[g]), 0, batches.get(j).rows()));
    }
    return new TransferPipeline.Part(g, columns(batch, streamedOf[g]), 0, batch.rows(), following);
  }

  private static List<HostColumn> columns(BatchBuffers batch, int[] buffers) {
    List<HostColumn> columns = new ArrayList<>();
    for (int i : buffers) {
      columns.add(batch.buffers()[i].column());
    }
    return columns;
  }

  private static void launch(Group group, BatchBuffers batch, GpuColumnCache.Entry[] resident, int[] streamedOf,
      GpuColumnCache.Session cache, DeviceChunk chunk, CudaStream stream, WorkerSink sink) {
    long[] words = GpuChunkTable.chunk(chunk.rowCount());
    GpuChunkTable.text(words, batch.text(), chunk.firstRow());
    for (int k = 0; k < streamedOf.length; k++) {
      words[batch.word(streamedOf[k])] = chunk.columnAddresses()[k];
    }
    for (int i = 0; i < resident.length; i++) {
      GpuColumnCache.Entry entry = resident[i];
      if (entry == null) {
        continue;
      }
      if (cache.mustFill(entry)) {  // the batch's first chunk fills the whole buffer; later chunks wait for it
        cache.fill(entry, stream);
      } else {
        cache.await(entry, stream);
      }
      words[batch.word(i)] = entry.address() + batch.buffers()[i].column().type().offset(chunk.firstRow());
    }
    sink.launch(group.first(), group.count(), chunk.firstRow(), chunk.rowCount(), words, stream);
  }

  /** Waits for every helper even after a failure: pipelines must not be released under a running worker. */
  private static RuntimeException awaitAll(List<Future<?>> helpers, AtomicInteger next, int batches,
      RuntimeException failure) {
    boolean interrupted = false;
    for (Future<?> f : helpers) {
      while (true) {
        try {
          f.get();
          break;
        } catch (InterruptedException e) {
          interrupted = true;
          next.set(batches);
        } catch (ExecutionException e) {
          next.set(batches);
          if (failure == null) {
            failure = e.getCause() instanceof RuntimeException r ? r
                : new IllegalStateException("streaming to the GPU failed: " + e.getCause(), e.getCause());
          }
          break;
        }
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
      failure = failure != null ? failure : new CancellationException("interrupted while streaming to the GPU");
    }
    return failure;
  }
}
