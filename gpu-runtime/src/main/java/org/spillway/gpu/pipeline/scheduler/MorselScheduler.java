package org.spillway.gpu.pipeline.scheduler;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.BooleanSupplier;

/**
 * The engine's worker threads: every CPU pipeline, hash-join build and aggregate merge runs its tasks here, each
 * worker pulling the next task from a shared counter (a slow morsel holds up no other); the calling thread is one of
 * them. Daemon threads, so an idle pool never keeps the JVM alive; a worker's exception reaches the caller as thrown,
 * message included.
 */
public final class MorselScheduler {
  /** 64 Ki rows: the vectors of a morsel stay within the caches of one core. */
  public static final int MORSEL_ROWS = 1 << 16;
  /**
   * System property: {@code false} runs every task of a run of several workers on pool threads while the caller only
   * waits, as the scheduler did before the caller became worker 0. For comparing the two in one JVM (a benchmark
   * configuration's {@code -D} switch). A run called from a pool thread (a plan part run side by side) still works
   * as worker 0: pool threads that all waited for pool threads would wait forever.
   */
  public static final String CALLER_WORKS_PROPERTY = "spillway.scheduler.callerWorks";
  /** One thread per core. */
  public static final int THREADS = Runtime.getRuntime().availableProcessors();
  private static final ExecutorService POOL = Executors.newFixedThreadPool(THREADS, runnable -> {
    Thread thread = new PoolThread(runnable);
    thread.setDaemon(true);
    return thread;
  });

  /** A thread of the pool (so that a run knows it was called from one). */
  private static final class PoolThread extends Thread {
    PoolThread(Runnable runnable) {
      super(runnable, "spillway-worker");
    }
  }

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
   * Runs tasks {@code 0 .. tasks-1}, each once, on {@link #workers} workers, and waits for all. The calling thread
   * is worker 0: it takes tasks at once instead of sleeping while a pool thread wakes up, and it finishes the work
   * alone if every pool thread is busy (so a task may itself call {@code forEach}). Fails fast (the first failure is
   * thrown once the tasks under way ended, the others stop taking tasks) and stops between tasks once
   * {@code cancelled} is true.
   */
  public static void forEach(int tasks, int threads, BooleanSupplier cancelled, Task task) {
    int workers = workers(tasks, threads);
    boolean callerWorks = workers == 1 || Thread.currentThread() instanceof PoolThread
        || !"false".equals(System.getProperty(CALLER_WORKS_PROPERTY));
    TaskRun run = new TaskRun(tasks, cancelled, task, !callerWorks);
    for (int w = callerWorks ? 1 : 0; w < workers; w++) {
      int worker = w;
      POOL.execute(() -> run.help(worker));
    }
    if (callerWorks) {
      run.work(0);
    } else {
      run.awaitTasksTaken();
    }
    run.finish();
  }
}
