package org.spillway.gpu.join;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A fixed set of worker threads that pull morsels (small work units) from a shared counter, so a slow
 * morsel, e.g. a skewed partition, does not hold the others up. With one thread the caller runs everything.
 */
public final class JoinWorkers implements AutoCloseable {
  /** One unit of work; {@code worker} indexes per-thread state such as sinks. */
  public interface MorselTask {
    void run(int worker, int morsel);
  }

  private final int threads;
  private final ExecutorService pool;

  public JoinWorkers(int threads, String name) {
    if (threads < 1) {
      throw new IllegalArgumentException(name + " needs at least one thread, got " + threads);
    }
    this.threads = threads;
    AtomicInteger id = new AtomicInteger();
    this.pool = threads == 1 ? null : Executors.newFixedThreadPool(threads, r -> {
      Thread t = new Thread(r, name + "-" + id.getAndIncrement());
      t.setDaemon(true);
      return t;
    });
  }

  public int threads() {
    return threads;
  }

  /** Runs {@code task} on morsels {@code 0 .. morsels-1}, each exactly once, and waits for all of them. */
  public void forEachMorsel(int morsels, MorselTask task) {
    if (pool == null || morsels <= 1) {
      for (int m = 0; m < morsels; m++) {
        task.run(0, m);
      }
      return;
    }
    AtomicInteger next = new AtomicInteger();
    List<Future<?>> running = new ArrayList<>(threads);
    for (int w = 0; w < Math.min(threads, morsels); w++) {
      int worker = w;
      running.add(pool.submit(() -> {
        for (int m = next.getAndIncrement(); m < morsels; m = next.getAndIncrement()) {
          task.run(worker, m);
        }
      }));
    }
    RuntimeException failure = null;
    for (Future<?> f : running) {
      try {
        f.get();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        failure = new IllegalStateException("interrupted while waiting for join workers", e);
      } catch (ExecutionException e) {
        if (e.getCause() instanceof Error err) {
          throw err;
        }
        if (failure == null) {
          failure = e.getCause() instanceof RuntimeException re ? re : new IllegalStateException(e.getCause());
        }
      }
    }
    if (failure != null) {
      throw failure;
    }
  }

  /** Splits {@code rows} into morsels of {@code morselRows} and returns their count. */
  public static int morselCount(long rows, int morselRows) {
    return (int) ((rows + morselRows - 1) / morselRows);
  }

  @Override
  public void close() {
    if (pool != null) {
      pool.shutdownNow();
    }
  }
}
