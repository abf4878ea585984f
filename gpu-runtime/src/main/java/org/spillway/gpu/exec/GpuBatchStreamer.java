package org.spillway.gpu.exec;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.function.Function;
import org.spillway.gpu.cuda.CudaDevice;
import org.spillway.gpu.cuda.CudaStream;
import org.spillway.gpu.transfer.ChunkConsumer;
import org.spillway.gpu.transfer.HostColumn;
import org.spillway.gpu.transfer.TransferMethod;
import org.spillway.gpu.transfer.TransferOptions;
import org.spillway.gpu.transfer.TransferPipeline;

/**
 * Streams many Arrow batches through several {@link TransferPipeline}s at once, one per worker thread. A
 * pipeline waits for its chunks at the end of every batch; with batches of ~128 Ki rows (one chunk each)
 * a single pipeline would leave the link idle during every wait, so the workers keep several batches in
 * flight. Consumers must tolerate concurrent chunks (the pipeline kernels accumulate with atomics).
 */
final class GpuBatchStreamer implements AutoCloseable {
  /** Concurrent batches: enough to keep copies and kernels overlapping across batch boundaries. */
  static final int WORKERS = 4;

  private static final ExecutorService POOL = Executors.newFixedThreadPool(WORKERS, runnable -> {
    Thread thread = new Thread(runnable, "spillway-gpu-stream");
    thread.setDaemon(true);
    return thread;
  });

  private final CudaDevice device;
  private final List<TransferPipeline> pipelines = new ArrayList<>();

  GpuBatchStreamer(CudaDevice device, TransferMethod method, TransferOptions options) {
    this.device = device;
    try {
      for (int w = 0; w < WORKERS; w++) {
        pipelines.add(new TransferPipeline(device, method, options));
      }
    } catch (RuntimeException e) {
      close();
      throw e;
    }
  }

  /** A stream for work before or after the batches (such as initializing state). */
  CudaStream firstStream() {
    return pipelines.get(0).firstStream();
  }

  /**
   * Streams every batch's columns ({@code columnsOf}) to {@code consumer}; returns the bytes streamed once
   * all chunks are consumed. The first failure of any worker is thrown after all workers stopped.
   */
  long run(List<SourceBatch> batches, Function<SourceBatch, List<HostColumn>> columnsOf, ChunkConsumer consumer,
      BooleanSupplier cancelled) {
    AtomicInteger next = new AtomicInteger();
    long[] bytes = new long[pipelines.size()];
    List<Future<?>> futures = new ArrayList<>();
    for (int w = 0; w < pipelines.size(); w++) {
      int worker = w;
      futures.add(POOL.submit(() -> {
        device.makeCurrent();
        for (int b = next.getAndIncrement(); b < batches.size(); b = next.getAndIncrement()) {
          if (cancelled.getAsBoolean()) {
            throw new CancellationException("query cancelled");
          }
          SourceBatch batch = batches.get(b);
          if (batch.rows() > 0) {
            List<HostColumn> columns = columnsOf.apply(batch);
            pipelines.get(worker).run(columns, consumer);
            for (HostColumn c : columns) {
              bytes[worker] += c.byteLength();
            }
          }
        }
        return null;
      }));
    }
    RuntimeException failure = null;
    boolean interrupted = false;
    // Waits for every worker even when interrupted: the pipelines must not be closed under a running worker.
    for (Future<?> f : futures) {
      while (true) {
        try {
          f.get();
          break;
        } catch (InterruptedException e) {
          interrupted = true;
          next.set(batches.size());  // the workers stop after their current batch
        } catch (ExecutionException e) {
          next.set(batches.size());
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
    if (failure != null) {
      throw failure;
    }
    long total = 0;
    for (long b : bytes) {
      total += b;
    }
    return total;
  }

  @Override
  public void close() {
    for (TransferPipeline p : pipelines) {
      p.close();
    }
  }
}
