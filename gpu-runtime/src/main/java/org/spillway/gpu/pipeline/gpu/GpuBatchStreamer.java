package org.spillway.gpu.pipeline.gpu;

import java.util.ArrayList;
import java.util.List;
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
import org.spillway.gpu.transfer.DeviceChunk;
import org.spillway.gpu.transfer.HostColumn;
import org.spillway.gpu.transfer.TransferMethod;
import org.spillway.gpu.transfer.TransferOptions;
import org.spillway.gpu.transfer.TransferPipeline;
import org.spillway.gpu.transfer.TransferPipelinePool;

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
   * Worker threads of pipelines that return rows (system property spillway.gpu.rowsStreamWorkers): each worker
   * also copies its chunks' selected rows into Java arrays, which one thread did at 2-3 GB/s of input; four
   * streamed TPC-H Q3's lineitem scan (32 M of 60 M rows kept, SF 10) at 21-23 GB/s instead.
   */
  static final int ROWS_WORKERS = Math.max(1, Integer.getInteger("spillway.gpu.rowsStreamWorkers", 4));

  private static final ExecutorService POOL = Executors.newCachedThreadPool(runnable -> {
    Thread thread = new Thread(runnable, "spillway-gpu-stream");
    thread.setDaemon(true);
    return thread;
  });

  /** One host buffer a kernel reads: a column's data or validity bitmap, and the Arrow buffer that owns it. */
  record Buffer(HostColumn column, ArrowBuf owner) {}

  /**
   * The buffers of one batch: {@code buffers[c]} the data of column slot c, {@code buffers[slots + c]} its
   * validity bitmap (null when the batch holds no NULL in it).
   */
  record BatchBuffers(long rows, Buffer[] buffers) {
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

  /** One worker's consumer of chunks, told where each chunk lies and when the worker is done. */
  interface WorkerSink {
    /** Enqueues the work on rows {@code firstRow .. firstRow + rows - 1} of batch {@code batch} on {@code stream}. */
    void launch(int batch, long firstRow, long rows, long[] chunk, CudaStream stream);

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

  GpuBatchStreamer(CudaDevice device, TransferMethod method, TransferOptions options, int workers) {
    this.device = device;
    this.method = method;
    this.options = options;
    this.workers = workers;
  }

  /**
   * Streams every batch's buffers without a cache entry ({@code resident[b][i]} null) in chunks of
   * {@code chunkRows} rows and launches each chunk; returns once all chunks are consumed. The first failure
   * of any worker is thrown after all workers stopped.
   */
  void stream(List<BatchBuffers> batches, GpuColumnCache.Entry[][] resident, GpuColumnCache.Session cache,
      long chunkRows, Launcher launcher, BooleanSupplier cancelled) {
    WorkerSink sink = new WorkerSink() {
      @Override public void launch(int batch, long firstRow, long rows, long[] chunk, CudaStream stream) {
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
    int[][] streamedOf = new int[batches.size()][];  // per batch: the buffer behind each streamed column
    Runnable worker = () -> {
      TransferPipelinePool pool = TransferPipelinePool.of(device);
      TransferPipeline pipeline = pool.acquire(method, options);
      WorkerSink sink = null;
      boolean ok = false;
      try {
        WorkerSink mine = sinks.get();
        sink = mine;
        pipeline.stream(() -> part(batches, resident, streamedOf, next, cancelled), chunkRows,
            (part, chunk, stream) -> launch(part.id(), batches.get(part.id()), resident[part.id()],
                streamedOf[part.id()], cache, chunk, stream, mine));
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
    int threads = Math.max(1, Math.min(workers, batches.size()));
    List<Future<?>> helpers = new ArrayList<>();
    for (int w = 1; w < threads; w++) {
      helpers.add(POOL.submit(worker));
    }
    RuntimeException failure = null;
    try {
      worker.run();
    } catch (RuntimeException e) {
      failure = e;
      next.set(batches.size());  // the helpers stop after their current batch
    }
    failure = awaitAll(helpers, next, batches.size(), failure);
    if (failure != null) {
      throw failure;
    }
  }

  private static TransferPipeline.Part part(List<BatchBuffers> batches, GpuColumnCache.Entry[][] resident,
      int[][] streamedOf, AtomicInteger next, BooleanSupplier cancelled) {
    int b = next.getAndIncrement();
    if (b >= batches.size()) {
      return null;
    }
    if (cancelled.getAsBoolean()) {
      throw new CancellationException("query cancelled");
    }
    BatchBuffers batch = batches.get(b);
    List<HostColumn> columns = new ArrayList<>();
    int[] of = new int[batch.buffers().length];
    for (int i = 0; i < batch.buffers().length; i++) {
      if (batch.buffers()[i] != null && resident[b][i] == null) {
        of[columns.size()] = i;
        columns.add(batch.buffers()[i].column());
      }
    }
    streamedOf[b] = java.util.Arrays.copyOf(of, columns.size());
    return new TransferPipeline.Part(b, columns, 0, batch.rows());
  }

  private static void launch(int id, BatchBuffers batch, GpuColumnCache.Entry[] resident, int[] streamedOf,
      GpuColumnCache.Session cache, DeviceChunk chunk, CudaStream stream, WorkerSink sink) {
    long[] words = GpuChunkTable.chunk(chunk.rowCount());
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
    sink.launch(id, chunk.firstRow(), chunk.rowCount(), words, stream);
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
