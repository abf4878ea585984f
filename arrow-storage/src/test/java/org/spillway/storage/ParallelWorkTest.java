package org.spillway.storage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class ParallelWorkTest {
  @Test
  void resultsComeInIndexOrder() {
    assertEquals(IntStream.range(0, 1000).map(i -> 2 * i).boxed().toList(), ParallelWork.mapAll(1000, i -> 2 * i));
  }

  /**
   * A slow task holds back no other: the tasks are taken one at a time, so the others run on another thread while
   * it works (a parallel stream's fixed runs kept the tasks of the slow one's run waiting until it ended).
   */
  @Test
  void aSlowTaskHoldsBackNoOther() {
    int count = 64;
    CountDownLatch othersDone = new CountDownLatch(count - 1);
    AtomicInteger slow = new AtomicInteger(-1);
    boolean[] othersDoneFirst = new boolean[1];
    List<Integer> results = ParallelWork.mapAll(count, i -> {
      if (slow.compareAndSet(-1, i)) {  // the first task taken waits until all the others are done
        othersDoneFirst[0] = awaitDone(othersDone, 10_000);
        return i;
      }
      sleep(1);
      othersDone.countDown();
      return i;
    });
    assertTrue(othersDoneFirst[0], "the other tasks ran while task " + slow.get() + " waited");
    assertEquals(IntStream.range(0, count).boxed().toList(), results);
  }

  /**
   * With every thread of the common pool busy elsewhere, the caller runs every task itself and returns: joining a
   * helper that no pool thread has started runs it on the caller, where it finds no task left.
   */
  @Test
  void aBusyPoolLeavesTheWorkToTheCaller() throws Exception {
    int poolThreads = java.util.concurrent.ForkJoinPool.getCommonPoolParallelism();
    CountDownLatch release = new CountDownLatch(1);
    CountDownLatch busy = new CountDownLatch(poolThreads);
    for (int t = 0; t < poolThreads; t++) {
      java.util.concurrent.ForkJoinPool.commonPool().execute(() -> {
        busy.countDown();
        awaitDone(release, 30_000);
      });
    }
    try {
      assertTrue(awaitDone(busy, 10_000), "the pool's threads all took a blocking task");
      java.util.concurrent.FutureTask<List<Integer>> work = new java.util.concurrent.FutureTask<>(
          () -> ParallelWork.mapAll(16, i -> i * 3));
      Thread caller = new Thread(work, "mapAll caller");
      caller.start();
      assertEquals(IntStream.range(0, 16).map(i -> i * 3).boxed().toList(), work.get(10, TimeUnit.SECONDS));
    } finally {
      release.countDown();
    }
  }

  @Test
  void noTasksAndOneTask() {
    assertEquals(List.of(), ParallelWork.mapAll(0, i -> i));
    assertEquals(List.of(7), ParallelWork.mapAll(1, i -> 7));
  }

  @Test
  void aFailureReturnsOnlyOnceEveryStartedTaskHasStopped() {
    AtomicInteger started = new AtomicInteger();
    AtomicInteger failed = new AtomicInteger();
    AtomicInteger finished = new AtomicInteger();
    CountDownLatch workerStarted = new CountDownLatch(1);
    Thread caller = Thread.currentThread();
    IllegalStateException thrown = assertThrows(IllegalStateException.class, () -> ParallelWork.mapAll(8, i -> {
      started.incrementAndGet();
      // the calling thread's task fails while a pool thread's runs: a plain parallel stream would return at once
      if (Thread.currentThread() == caller) {
        await(workerStarted, 2000);
        failed.incrementAndGet();
        throw new IllegalStateException("task " + i + " failed");
      }
      workerStarted.countDown();
      sleep(100);
      finished.incrementAndGet();
      return i;
    }));
    assertEquals(started.get() - failed.get(), finished.get(), "every task that did not fail finished before the throw");
    assertEquals(failed.get(), 1 + thrown.getSuppressed().length);
  }

  @Test
  void theFirstFailureIsThrownWithTheOthersSuppressed() {
    Set<RuntimeException> failures = ConcurrentHashMap.newKeySet();
    RuntimeException thrown = assertThrows(RuntimeException.class, () -> ParallelWork.mapAll(64, i -> {
      RuntimeException failure = new RuntimeException("task " + i);
      failures.add(failure);
      sleep(5);
      throw failure;
    }));
    List<Throwable> reported = new ArrayList<>(List.of(thrown.getSuppressed()));
    reported.add(thrown);
    assertEquals(failures, new HashSet<>(reported), "each started task's failure reported once");
    assertEquals(failures.size(), reported.size());
  }

  /** Also when every task throws the same instance, which cannot be suppressed in itself. */
  @Test
  void anErrorIsRethrownAsItIs() {
    AssertionError error = new AssertionError("broken");
    assertSame(error, assertThrows(AssertionError.class, () -> ParallelWork.mapAll(4, i -> {
      throw error;
    })));
  }

  private static boolean awaitDone(CountDownLatch latch, long millis) {
    try {
      return latch.await(millis, TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  private static void await(CountDownLatch latch, long millis) {
    try {
      latch.await(millis, TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
