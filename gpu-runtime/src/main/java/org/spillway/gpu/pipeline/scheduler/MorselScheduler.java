package org.spillway.gpu.pipeline.scheduler;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import org.spillway.gpu.device.SpillwayResourceException;

/**
 * The engine's worker threads: every CPU pipeline, hash-join build and aggregate merge runs its tasks here, each
 * worker pulling the next task from a shared counter (a slow morsel holds up no other). Daemon threads, so an idle
 * pool never keeps the JVM alive; a plain executor (not fork-join) hands a worker's exception to the caller as
 * thrown, message included.
 */
public final class MorselScheduler {
  /** 64 Ki rows: the vectors of a morsel stay within the caches of one core. */
  public static final int MORSEL_ROWS = 1 << 16;
  /** One thread per core. */
  public static final int THREADS = Runtime.getRuntime().availableProcessors();
  private static final ExecutorService POOL = Executors.newFixedThreadPool(THREADS, runnable -> {
    Thread thread = new Thread(runnable, "spillway-worker");
    thread.setDaemon(true);
    return thread;
  });

  /** A task of {@link #forEach}; {@code worker} indexes per-worker state (0 .. workers-1). */
  public interface Task {
    void run(int worker, int task) throws Exception;
  }

  private MorselScheduler() {
  }

  /** The number of workers {@link #forEach} uses for {@code tasks} tasks with at most {@code threads} threads. */
  public static int workers(int tasks, int threads) {
    return Math.max(1, Math.min(Math.min(threads, THREADS), tasks));
  }

  /**
   * Runs tasks {@code 0 .. tasks-1}, each once, on {@link #workers} workers, and waits for all. Fails fast (the
   * first failure is thrown, the others stop taking tasks) and stops between tasks once {@code cancelled} is true.
   */
  public static void forEach(int tasks, int threads, BooleanSupplier cancelled, Task task) {
    int workers = workers(tasks, threads);
    AtomicInteger next = new AtomicInteger();
    if (workers == 1) {
      runWorker(0, tasks, next, cancelled, task);
      return;
    }
    List<Future<?>> futures = new ArrayList<>(workers);
    for (int w = 0; w < workers; w++) {
      int worker = w;
      futures.add(POOL.submit(() -> {
        runWorker(worker, tasks, next, cancelled, task);
        return null;
      }));
    }
    awaitAll(futures, next, tasks);
  }

  private static void runWorker(int worker, int tasks, AtomicInteger next, BooleanSupplier cancelled, Task task) {
    for (int t = next.getAndIncrement(); t < tasks; t = next.getAndIncrement()) {
      if (cancelled.getAsBoolean()) {
        throw new CancellationException("query cancelled");
      }
      try {
        task.run(worker, t);
      } catch (RuntimeException | Error e) {
        next.set(tasks);  // the other workers take no further task
        throw e;
      } catch (Exception e) {
        next.set(tasks);
        throw new IllegalStateException(e.getMessage(), e);
      }
    }
  }

  /** Submits {@code work} to the pool (for callers that keep their own per-worker loop). */
  static Future<?> submit(Runnable work) {
    return POOL.submit(work);
  }

  /** Waits for all futures; the first failure is thrown as the worker threw it. */
  static void awaitAll(List<Future<?>> futures, AtomicInteger next, int tasks) {
    try {
      for (Future<?> f : futures) {
        f.get();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      next.set(tasks);
      throw new CancellationException("interrupted while running a pipeline");
    } catch (ExecutionException e) {
      next.set(tasks);
      for (Future<?> f : futures) {
        f.cancel(true);
      }
      if (e.getCause() instanceof RuntimeException r) {
        throw r;
      }
      if (e.getCause() instanceof OutOfMemoryError oom) {
        throw SpillwayResourceException.of(oom, "a pipeline");
      }
      throw new IllegalStateException("pipeline failed: " + e.getCause(), e.getCause());
    }
  }
}
