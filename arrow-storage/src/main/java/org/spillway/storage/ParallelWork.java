package org.spillway.storage;

import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.IntFunction;
import java.util.stream.IntStream;

/**
 * Independent tasks on all cores whose failure returns only once every task has stopped. A plain parallel stream
 * rethrows the first failure while its other tasks still run; a caller that then cleans up (deletes the directory
 * they write to, closes the allocator they allocate from) races with them and its cleanup fails in place of the
 * real error.
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
    List<T> results = IntStream.range(0, count).parallel().mapToObj(i -> {
      if (!failures.isEmpty()) {
        return null;
      }
      try {
        return task.apply(i);
      } catch (RuntimeException | Error e) {
        failures.add(e);
        return null;
      }
    }).toList();
    Throwable first = failures.poll();
    if (first == null) {
      return results;
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
