package org.spillway.gpu.pipeline.scheduler;

import java.util.concurrent.CancellationException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import org.spillway.gpu.device.SpillwayResourceException;

/**
 * One {@link MorselScheduler#forEach}: the shared task counter, the pool threads working on it and the first
 * failure. The caller works first and then waits only for the helpers that joined before it finished; a helper
 * that a busy pool starts later finds the run closed and leaves at once, so no one waits for a thread that never
 * comes.
 */
final class TaskRun {
  /** Added to {@link #helpers} when the caller stops admitting helpers. */
  private static final int CLOSED = Integer.MIN_VALUE;

  private final int tasks;
  private final BooleanSupplier cancelled;
  private final MorselScheduler.Task task;
  private final AtomicInteger next = new AtomicInteger();
  /** The helpers inside {@link #work}, plus {@link #CLOSED} once the caller finished its own work. */
  private final AtomicInteger helpers = new AtomicInteger();
  private final AtomicReference<Throwable> failure = new AtomicReference<>();
  private final Thread caller = Thread.currentThread();

  TaskRun(int tasks, BooleanSupplier cancelled, MorselScheduler.Task task) {
    this.tasks = tasks;
    this.cancelled = cancelled;
    this.task = task;
  }

  /** A pool thread's part: works as {@code worker} unless the caller already closed the run. */
  void help(int worker) {
    int inside;
    do {
      inside = helpers.get();
      if (inside < 0) {
        return;
      }
    } while (!helpers.compareAndSet(inside, inside + 1));
    try {
      work(worker);
    } finally {
      if (helpers.decrementAndGet() == CLOSED) {
        LockSupport.unpark(caller);
      }
    }
  }

  /** Takes tasks until none is left; a failure stops every worker from taking more. */
  void work(int worker) {
    try {
      for (int t = next.getAndIncrement(); t < tasks; t = next.getAndIncrement()) {
        if (cancelled.getAsBoolean()) {
          throw new CancellationException("query cancelled");
        }
        task.run(worker, t);
      }
    } catch (Throwable e) {
      next.set(tasks);
      failure.compareAndSet(null, e);
    }
  }

  /**
   * The caller's end: admits no further helper, waits for those inside to finish their tasks, then throws the
   * first failure (an interrupt stops the remaining tasks and cancels the run).
   */
  void finish() {
    boolean interrupted = false;
    if (helpers.getAndAdd(CLOSED) != 0) {
      while (helpers.get() != CLOSED) {
        LockSupport.park(this);
        if (Thread.interrupted()) {
          interrupted = true;
          next.set(tasks);
        }
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
      throw new CancellationException("interrupted while running a pipeline");
    }
    Throwable first = failure.get();
    if (first instanceof RuntimeException r) {
      throw r;
    }
    if (first instanceof OutOfMemoryError oom) {
      throw SpillwayResourceException.of(oom, "a pipeline");
    }
    if (first instanceof Error e) {
      throw e;
    }
    if (first != null) {
      throw new IllegalStateException(first.getMessage(), first);
    }
  }
}
