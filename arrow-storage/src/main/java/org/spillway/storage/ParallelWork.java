package org.spillway.storage;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ForkJoinTask;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntFunction;

/**
 * Independent tasks on all cores whose failure returns only once every task has stopped. A plain parallel stream
 * rethrows the first failure while its other tasks still run; a caller that then cleans up (deletes the directory
 * they write to, closes the allocator they allocate from) races with them and its cleanup fails in place of the
 * real error.
 *
 * <p>Each thread takes the next task once its last is done. A parallel stream splits the indexes into fixed runs of
 * about count / (4 x cores) (8 files of a commit's 490 on 16 cores), and a thread left without a run waits while
 * another works through the rest of its own: at the end of a commit's file writes, up to a run's time of all cores
 * but one.
 */
final class ParallelWork {
  private ParallelWork() {}

  /**
   * The results of {@code task(0..count-1)}, in index order. After the first failure, tasks not yet started are
   * skipped (on a full disk each would fail the same way); once the running ones have stopped, the first failure is
   * thrown with the later ones suppressed.
   */
  static <T> List<T> mapAll(int count, IntFunction<T> task) {
    Queue<Throwable> failures = new ConcurrentLinkedQueue<>();
    Object[] results = new Object[count];
    AtomicInteger next = new AtomicInteger();
    Runnable worker = () -> {
      int i;
      while (failures.isEmpty() && (i = next.getAndIncrement()) < count) {
        try {
          results[i] = task.apply(i);
        } catch (RuntimeException | Error e) {
          failures.add(e);
        }
      }
    };
    // the calling thread works too; a helper that starts late (a busy pool) finds nothing left and returns
    int helpers = Math.min(count - 1, ForkJoinPool.getCommonPoolParallelism());
    List<ForkJoinTask<?>> started = new ArrayList<>(Math.max(0, helpers));
    for (int h = 0; h < helpers; h++) {
      started.add(ForkJoinPool.commonPool().submit(worker));
    }
    worker.run();
    for (ForkJoinTask<?> helper : started) {
      helper.join();  // the worker catches what its tasks throw, so this only waits
    }
    Throwable first = failures.poll();
    if (first == null) {
      @SuppressWarnings("unchecked")
      List<T> list = (List<T>) Collections.unmodifiableList(Arrays.asList(results));
      return list;
    }
    for (Throwable other : failures) {
      if (other != first) {  // tasks may throw one shared instance, which cannot suppress itself
        first.addSuppressed(other);
      }
    }
    if (first instanceof Error error) {
      throw error;
    }
    throw (RuntimeException) first;
  }
}
