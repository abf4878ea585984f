package org.spillway.gpu.join;

import org.spillway.gpu.pipeline.scheduler.MorselScheduler;

/**
 * The workers of a materialized CPU join (radix, NOPA, Triton's prefix sums): morsels (small work units) pulled from
 * a shared counter, so a slow morsel, e.g. a skewed partition, does not hold the others up. They run on the
 * engine's one pool ({@link MorselScheduler}, the caller being one of them), at most {@code threads} at a time;
 * with one thread the caller runs everything.
 */
public final class JoinWorkers implements AutoCloseable {
  /** One unit of work; {@code worker} indexes per-thread state such as sinks (below {@link #threads()}). */
  public interface MorselTask {
    void run(int worker, int morsel);
  }

  private final int threads;

  public JoinWorkers(int threads, String name) {
    if (threads < 1) {
      throw new IllegalArgumentException(name + " needs at least one thread, got " + threads);
    }
    this.threads = threads;
  }

  public int threads() {
    return threads;
  }

  /** Runs {@code task} on morsels {@code 0 .. morsels-1}, each exactly once, and waits for all of them. */
  public void forEachMorsel(int morsels, MorselTask task) {
    MorselScheduler.forEach(morsels, threads, () -> false, task::run);
  }

  /** Splits {@code rows} into morsels of {@code morselRows} and returns their count. */
  public static int morselCount(long rows, int morselRows) {
    return (int) ((rows + morselRows - 1) / morselRows);
  }

  /** Nothing to release: the threads are the engine's. */
  @Override
  public void close() {
  }
}
