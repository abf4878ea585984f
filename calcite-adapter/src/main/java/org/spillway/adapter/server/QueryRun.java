package org.spillway.adapter.server;

import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.calcite.avatica.Meta;
import org.spillway.adapter.SpillwayDeviceUsage;

/** One execution of a statement on the server, from execute until its last row, close or failure. */
final class QueryRun {
  /** Reported when the connection is not a Spillway one (no pipeline can have run elsewhere). */
  static final String DEFAULT_DEVICE = "cpu";

  final String user;
  final String connectionId;
  final int statementId;
  final String sql;
  final long startNanos = System.nanoTime();
  private final AtomicLong rows = new AtomicLong();
  private final SpillwayDeviceUsage deviceUsage;
  private final SpillwayDeviceUsage.Mark deviceMark;
  private boolean finished;
  private volatile boolean timedOut;
  private volatile Future<?> timeoutTask;
  private volatile String resultPath;

  QueryRun(String user, String connectionId, int statementId, String sql) {
    this(user, connectionId, statementId, sql, null);
  }

  /** A run whose device is read from the connection's usage counts (null: {@link #DEFAULT_DEVICE}). */
  QueryRun(String user, String connectionId, int statementId, String sql, SpillwayDeviceUsage deviceUsage) {
    this.user = user;
    this.connectionId = connectionId;
    this.statementId = statementId;
    this.sql = sql;
    this.deviceUsage = deviceUsage;
    this.deviceMark = deviceUsage == null ? null : deviceUsage.mark();
  }

  void addRows(long count) {
    rows.addAndGet(count);
  }

  /** Counts the rows of a frame, whatever iterable Avatica put them in. */
  void addRows(Meta.Frame frame) {
    if (frame == null) {
      return;
    }
    long count = 0;
    for (Object ignored : frame.rows) {
      count++;
    }
    rows.addAndGet(count);
  }

  /**
   * Marks the run timed out and runs {@code cancel}, unless it already finished: holding the lock
   * means a query that just ended is never cancelled afterwards (which would poison its statement).
   */
  synchronized void timeOut(Runnable cancel) {
    if (!finished) {
      timedOut = true;
      cancel.run();
    }
  }

  boolean timedOut() {
    return timedOut;
  }

  /** How the result is filled ({@link QueryLog.Entry#resultPath}). */
  void setResultPath(String path) {
    resultPath = path;
  }

  void setTimeoutTask(Future<?> task) {
    timeoutTask = task;
  }

  /** Returns the log entry exactly once; later calls (a close after a failure, say) get null. */
  synchronized QueryLog.Entry finish(QueryLog.Outcome outcome, String error) {
    if (finished) {
      return null;
    }
    finished = true;
    final Future<?> task = timeoutTask;
    if (task != null) {
      task.cancel(false);
    }
    return new QueryLog.Entry(user, connectionId, statementId, sql, System.nanoTime() - startNanos,
        rows.get(), deviceUsage == null ? DEFAULT_DEVICE : deviceUsage.since(deviceMark), outcome, error,
        resultPath);
  }
}
