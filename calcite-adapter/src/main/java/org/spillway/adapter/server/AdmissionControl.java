package org.spillway.adapter.server;

import java.sql.SQLException;
import java.time.Duration;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/** Bounds how many statements do work on the server at once; excess callers wait, then are refused. */
public final class AdmissionControl {
  /** SQLSTATE class 53 is "insufficient resources"; 53300 is PostgreSQL's "too many connections". */
  static final String BUSY_SQLSTATE = "53300";

  private final int maxConcurrent;
  private final Duration maxWait;
  private final Semaphore permits;

  /** Creates a limit of {@code maxConcurrent} permits, each caller waiting at most {@code maxWait}. */
  public AdmissionControl(int maxConcurrent, Duration maxWait) {
    if (maxConcurrent < 1) {
      throw new IllegalArgumentException("max concurrent statements must be >= 1, got " + maxConcurrent);
    }
    if (maxWait.isNegative()) {
      throw new IllegalArgumentException("admission wait must not be negative, got " + maxWait);
    }
    this.maxConcurrent = maxConcurrent;
    this.maxWait = maxWait;
    // Fair, so that a steady stream of short statements cannot starve a waiting one.
    this.permits = new Semaphore(maxConcurrent, true);
  }

  /** A held permit; closing it gives the permit back exactly once. */
  public interface Permit extends AutoCloseable {
    @Override
    void close();
  }

  /** Waits up to the configured time for a permit, or throws an SQLException that says why. */
  public Permit acquire() throws SQLException {
    boolean granted;
    try {
      granted = permits.tryAcquire(maxWait.toNanos(), TimeUnit.NANOSECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new SQLException("Interrupted while waiting for a statement slot on the Spillway server",
          BUSY_SQLSTATE, e);
    }
    if (!granted) {
      throw new SQLException("Spillway server is busy: " + maxConcurrent
          + " statements are already running (limit --max-concurrent " + maxConcurrent
          + "), and no slot became free within " + maxWait.toMillis() + " ms (--admission-wait);"
          + " retry later", BUSY_SQLSTATE);
    }
    return new Permit() {
      private boolean released;

      @Override
      public synchronized void close() {
        if (!released) {
          released = true;
          permits.release();
        }
      }
    };
  }

  /** Number of permits currently held; for monitoring and tests. */
  public int inUse() {
    return maxConcurrent - permits.availablePermits();
  }

  public int maxConcurrent() {
    return maxConcurrent;
  }
}
