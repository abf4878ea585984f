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
 * comes. (Where the caller is told to take no task, it waits until the pool threads took them all.)
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
  /** Whether the caller takes no task and waits for the pool threads to take them all ({@link #awaitTasksTaken}). */
  private final boolean callerWaits;
  /** Set when the caller was interrupted while it waited for the tasks to be taken. */
  private boolean interrupted;

  TaskRun(int tasks, BooleanSupplier cancelled, MorselScheduler.Task task, boolean callerWaits) {
    this.tasks = tasks;
    this.cancelled = cancelled;
    this.task = task;
    this.callerWaits = callerWaits;
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
      if (helpers.decrementAndGet() == CLOSED || callerWaits) {
        LockSupport.unpark(caller);
      }
    }
  }

  /**
   * The caller's wait, where it takes no task itself: until every task was taken (or a failure stopped them); the
   * tasks under way are then waited for by {@link #finish}. An interrupt stops the remaining tasks.
   */
  void awaitTasksTaken() {
    while (next.get() < tasks) {
      LockSupport.park(this);
      if (Thread.interrupted()) {
        interrupted = true;
        next.set(tasks);
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
    boolean interrupted = this.interrupted;
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
