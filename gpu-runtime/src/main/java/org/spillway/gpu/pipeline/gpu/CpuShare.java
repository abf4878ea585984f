package org.spillway.gpu.pipeline.gpu;

import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.BooleanSupplier;
import java.util.function.Function;
import org.spillway.gpu.pipeline.ScanClaims;
import org.spillway.gpu.pipeline.SourceBatch;
import org.spillway.gpu.pipeline.cpu.ColumnarPipeline;

/**
 * The CPU backend's share of a scan the GPU streams (Pump Up the Volume's GPU+Het strategy: each processor probes
 * its own copy of the build sides, both take batches from one dispatcher): on a thread of its own it binds the CPU
 * pipeline (building its join tables, while the GPU builds its own and starts streaming), then runs it over the
 * batches it claims from the scan's end. Where the GPU took every batch before the binding finished, the binding
 * stops and the share is empty.
 */
final class CpuShare {
  private static final ExecutorService THREADS = Executors.newCachedThreadPool(runnable -> {
    Thread thread = new Thread(runnable, "spillway-cpu-share");
    thread.setDaemon(true);
    return thread;
  });

  private final Future<ColumnarPipeline.Partial> result;
  /** Set once the GPU took every batch: a binding still under way stops. */
  private volatile boolean gpuTookAll;
  /** When the share's run ended (System.nanoTime), 0 while it runs or where it ran nothing. */
  private volatile long finishedAt;
  /** Set when the run failed elsewhere: the share stops between morsels. */
  private volatile boolean abandoned;

  private CpuShare(Function<BooleanSupplier, ColumnarPipeline> bind, List<SourceBatch> batches, ScanClaims claims,
      int threads, BooleanSupplier cancelled) {
    BooleanSupplier stopped = () -> abandoned || cancelled.getAsBoolean();
    // the GPU claims its chunks ahead of streaming them: once it holds the last batch, nothing is left to bind for
    BooleanSupplier nothingLeft = () -> gpuTookAll || claims.gpuBatches() == claims.batches();
    this.result = THREADS.submit(() -> {
      ColumnarPipeline pipeline;
      try {
        pipeline = bind.apply(() -> nothingLeft.getAsBoolean() || stopped.getAsBoolean());
      } catch (CancellationException e) {
        if (nothingLeft.getAsBoolean() && !stopped.getAsBoolean()) {
          return null;
        }
        throw e;
      }
      // once a batch is claimed its morsels must all run: only a failure or a cancel stops them
      try {
        return pipeline.runClaimed(batches, claims::claimBack, threads, stopped);
      } finally {
        finishedAt = System.nanoTime();
      }
    });
  }

  /** Starts the CPU's share of the scan of {@code batches} on up to {@code threads} workers. */
  static CpuShare start(Function<BooleanSupplier, ColumnarPipeline> bind, List<SourceBatch> batches,
      ScanClaims claims, int threads, BooleanSupplier cancelled) {
    return new CpuShare(bind, batches, claims, threads, cancelled);
  }

  /** Tells the share that the GPU is done; {@code tookAll}: it streamed every batch, so nothing is left to bind for. */
  void gpuDone(boolean tookAll) {
    gpuTookAll = tookAll;
  }

  /** The share's partial result (null where the GPU took every batch first); its failure as it was thrown. */
  ColumnarPipeline.Partial await() {
    try {
      return awaitUninterruptibly();
    } catch (ExecutionException e) {
      if (e.getCause() instanceof RuntimeException r) {
        throw r;
      }
      if (e.getCause() instanceof Error error) {
        throw error;
      }
      throw new IllegalStateException("the CPU's share of a GPU pipeline failed: " + e.getCause(), e.getCause());
    }
  }

  /** When the share's run ended (System.nanoTime, once {@link #await} returned), 0 where it ran nothing. */
  long finishedAt() {
    return finishedAt;
  }

  /** Stops the share and waits for it (its workers must not run on after the run failed). */
  void abandon() {
    abandoned = true;
    try {
      awaitUninterruptibly();
    } catch (ExecutionException ignored) {
      // the run's own failure is the one reported
    }
  }

  private ColumnarPipeline.Partial awaitUninterruptibly() throws ExecutionException {
    boolean interrupted = false;
    try {
      while (true) {
        try {
          return result.get();
        } catch (InterruptedException e) {
          interrupted = true;
          abandoned = true;
        }
      }
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
