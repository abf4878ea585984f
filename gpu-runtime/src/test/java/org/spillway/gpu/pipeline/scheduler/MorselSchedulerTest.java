package org.spillway.gpu.pipeline.scheduler;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

class MorselSchedulerTest {
  private static final Duration LIMIT = Duration.ofSeconds(20);

  /**
   * Every task runs once, worker indexes stay below the workers, and the calling thread is worker 0 and takes tasks
   * too (the pool threads' tasks wait until it took one).
   */
  @Test void everyTaskRunsOnceAndTheCallerIsWorkerZero() {
    int tasks = 500;
    int workers = MorselScheduler.workers(tasks, MorselScheduler.THREADS);
    AtomicIntegerArray runs = new AtomicIntegerArray(tasks);
    Set<Integer> callerWorkers = ConcurrentHashMap.newKeySet();
    CountDownLatch callerTookOne = new CountDownLatch(1);
    Thread caller = Thread.currentThread();
    MorselScheduler.forEach(tasks, MorselScheduler.THREADS, () -> false, (worker, task) -> {
      assertTrue(worker >= 0 && worker < workers, "worker " + worker);
      runs.incrementAndGet(task);
      if (Thread.currentThread() == caller) {
        callerWorkers.add(worker);
        callerTookOne.countDown();
      } else {
        assertTrue(callerTookOne.await(20, TimeUnit.SECONDS), "the caller took no task");
      }
    });
    for (int t = 0; t < tasks; t++) {
      assertEquals(1, runs.get(t), "task " + t);
    }
    assertEquals(Set.of(0), callerWorkers);
  }

  /**
   * Switched off ({@code -Dspillway.scheduler.callerWorks=false}, to compare with the scheduling before), the caller
   * takes no task of a run of several workers: pool threads take every task, once, and the caller returns only after
   * the last one ended.
   */
  @Test void switchedOffTheCallerOnlyWaits() {
    assumeTrue(MorselScheduler.THREADS > 1, "one core: the caller runs every task");
    int tasks = 200;
    AtomicIntegerArray runs = new AtomicIntegerArray(tasks);
    AtomicInteger running = new AtomicInteger();
    AtomicReference<Thread> caller = new AtomicReference<>();
    Set<Thread> threads = ConcurrentHashMap.newKeySet();
    System.setProperty(MorselScheduler.CALLER_WORKS_PROPERTY, "false");
    try {
      assertTimeoutPreemptively(LIMIT, () -> {
        caller.set(Thread.currentThread());
        MorselScheduler.forEach(tasks, MorselScheduler.THREADS, () -> false, (worker, task) -> {
          running.incrementAndGet();
          threads.add(Thread.currentThread());
          runs.incrementAndGet(task);
          Thread.sleep(task % 7 == 0 ? 1 : 0);
          running.decrementAndGet();
        });
      });
    } finally {
      System.clearProperty(MorselScheduler.CALLER_WORKS_PROPERTY);
    }
    assertEquals(0, running.get(), "tasks still running after forEach returned");
    for (int t = 0; t < tasks; t++) {
      assertEquals(1, runs.get(t), "task " + t);
    }
    assertTrue(!threads.contains(caller.get()) && !threads.isEmpty(), "threads that ran tasks: " + threads);
  }

  /**
   * Switched off, nested runs still finish: a run called from a pool thread works as worker 0 (else every pool
   * thread could wait for a pool thread), and the pool threads take every task of the outer run.
   */
  @Test void switchedOffNestedRunsFinish() {
    int outer = 4 * MorselScheduler.THREADS;
    AtomicInteger inner = new AtomicInteger();
    System.setProperty(MorselScheduler.CALLER_WORKS_PROPERTY, "false");
    try {
      assertTimeoutPreemptively(LIMIT, () -> MorselScheduler.forEach(outer, MorselScheduler.THREADS, () -> false,
          (w, t) -> MorselScheduler.forEach(8, MorselScheduler.THREADS, () -> false,
              (w2, t2) -> inner.incrementAndGet())));
    } finally {
      System.clearProperty(MorselScheduler.CALLER_WORKS_PROPERTY);
    }
    assertEquals(outer * 8, inner.get());
  }

  /**
   * Tasks that themselves run tasks on every thread finish, though each outer task holds a pool thread while it
   * waits: the caller of a nested run works through it alone if no pool thread comes.
   */
  @Test void nestedRunsFinishWhileEveryPoolThreadWaits() {
    int outer = 4 * MorselScheduler.THREADS;
    AtomicInteger inner = new AtomicInteger();
    assertTimeoutPreemptively(LIMIT, () -> MorselScheduler.forEach(outer, MorselScheduler.THREADS, () -> false,
        (w, t) -> MorselScheduler.forEach(8, MorselScheduler.THREADS, () -> false,
            (w2, t2) -> inner.incrementAndGet())));
    assertEquals(outer * 8, inner.get());
  }

  /** A run whose pool threads are all busy elsewhere does not wait for them: the caller runs every task. */
  @Test void busyPoolLeavesTheWorkToTheCaller() throws Exception {
    assumeTrue(MorselScheduler.THREADS > 1, "one core: no pool thread ever helps");
    CountDownLatch release = new CountDownLatch(1);
    AtomicInteger poolThreadsHeld = new AtomicInteger();
    MorselScheduler.Task blocking = (w, t) -> {
      if (Thread.currentThread().getName().startsWith("spillway-worker")) {
        poolThreadsHeld.incrementAndGet();
      }
      release.await();
    };
    // two runs of blocking tasks hold every pool thread (each run also holds its own caller)
    Thread[] holders = new Thread[2];
    for (int h = 0; h < holders.length; h++) {
      holders[h] = new Thread(() -> MorselScheduler.forEach(MorselScheduler.THREADS, MorselScheduler.THREADS,
          () -> false, blocking));
      holders[h].start();
    }
    try {
      long deadline = System.nanoTime() + LIMIT.toNanos();
      while (poolThreadsHeld.get() < MorselScheduler.THREADS && System.nanoTime() < deadline) {
        Thread.sleep(1);
      }
      assertEquals(MorselScheduler.THREADS, poolThreadsHeld.get(), "pool threads held");
      Set<Thread> threads = ConcurrentHashMap.newKeySet();
      AtomicInteger runs = new AtomicInteger();
      Thread caller = assertTimeoutPreemptively(LIMIT, () -> {
        MorselScheduler.forEach(100, MorselScheduler.THREADS, () -> false, (w, t) -> {
          threads.add(Thread.currentThread());
          runs.incrementAndGet();
        });
        return Thread.currentThread();
      });
      assertEquals(100, runs.get());
      assertEquals(Set.of(caller), threads);
    } finally {
      release.countDown();
      for (Thread holder : holders) {
        holder.join();
      }
    }
  }

  /**
   * A failing task's exception reaches the caller as thrown, once the tasks under way ended (none still runs
   * when forEach returns), and no further task starts.
   */
  @Test void failureIsThrownAfterTheTasksUnderWayEnded() {
    AtomicInteger running = new AtomicInteger();
    AtomicInteger started = new AtomicInteger();
    int tasks = 10_000;
    IllegalArgumentException thrown = assertThrows(IllegalArgumentException.class,
        () -> MorselScheduler.forEach(tasks, MorselScheduler.THREADS, () -> false, (w, t) -> {
          running.incrementAndGet();
          started.incrementAndGet();
          try {
            if (t == 3) {
              throw new IllegalArgumentException("task 3 failed");
            }
            Thread.sleep(1);
          } finally {
            running.decrementAndGet();
          }
        }));
    assertEquals("task 3 failed", thrown.getMessage());
    assertEquals(0, running.get(), "tasks still running after forEach threw");
    assertTrue(started.get() < tasks, started.get() + " tasks started");
  }
}
