package org.spillway.adapter.jdbc;

import org.apache.calcite.avatica.AvaticaStatement;

import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One statement's run limits: the size of its SQL, its query timeout and its cancellation.
 *
 * <p>Calcite's operators and Spillway's pipelines stop when the statement's cancel flag
 * ({@code DataContext.Variable.CANCEL_FLAG}) is set; Avatica never clears it, so a statement once cancelled
 * would fail forever. Each execution therefore starts with a cleared flag, and a query timeout (which Calcite
 * only records) sets the flag when it expires. The run lasts until its result set is exhausted or closed.
 */
public final class SpillwayStatementGuard {
  /**
   * Longest SQL text accepted, in characters. Parsing and planning cannot be cancelled and slow down on long
   * statements (a 1 MB {@code 1+1+...} parses for minutes; a 250 K character IN list plans for 10 s and more),
   * so this bound keeps them short; 64 K characters is far beyond a hand-written query.
   */
  public static final int MAX_STATEMENT_LENGTH = 64 * 1024;

  private static final Field CANCEL_FLAG = cancelFlagField();

  private static final ScheduledThreadPoolExecutor TIMERS = timers();

  private final Statement statement;
  private Statement statementProxy;
  private ScheduledFuture<?> timer;
  private volatile boolean timedOut;
  private volatile int timeoutSeconds;

  SpillwayStatementGuard(Statement statement) {
    this.statement = statement;
  }

  /** The driver's statement this guard watches. */
  Statement statement() {
    return statement;
  }

  /** The statement as the client holds it (what its result sets' {@code getStatement()} return). */
  Statement statementProxy() {
    return statementProxy;
  }

  void setStatementProxy(Statement statementProxy) {
    this.statementProxy = statementProxy;
  }

  /** Refuses SQL longer than {@link #MAX_STATEMENT_LENGTH} before anything parses it. */
  public static void checkLength(String sql) throws SQLException {
    if (sql != null && sql.length() > MAX_STATEMENT_LENGTH) {
      throw new SQLException("Statement too long: " + sql.length() + " characters, the limit is "
          + MAX_STATEMENT_LENGTH + " (split it or load the data from a file)",
          SpillwaySqlErrors.PROGRAM_LIMIT_EXCEEDED);
    }
  }

  /** Before a statement or result set method runs: an execution starts a new run. */
  void before(Method method, Object[] args) throws SQLException {
    String name = method.getName();
    if (args != null && args.length > 0 && args[0] instanceof String sql
        && (name.startsWith("execute") || name.equals("addBatch"))) {
      checkLength(sql);
    }
    if (name.startsWith("execute")) {
      start();
    } else if (name.equals("close")) {
      disarm();
    }
  }

  /** After a method returned: the run ends with the statement's last row or when nothing is left to fetch. */
  void after(Method method, Object result) {
    String name = method.getName();
    boolean exhausted = name.equals("next") && Boolean.FALSE.equals(result);
    boolean noRows = name.startsWith("execute") && !(result instanceof java.sql.ResultSet)
        && !Boolean.TRUE.equals(result);
    if (exhausted || noRows) {
      disarm();
    }
  }

  /**
   * What a failure of the run means: any failure after the statement was cancelled or timed out is reported
   * as the cancellation, whichever operator happened to notice it.
   */
  Throwable failed(Throwable failure) {
    disarm();
    if (timedOut) {
      return new CancellationException("it ran longer than the query timeout of " + timeoutSeconds
          + " s (Statement.setQueryTimeout)");
    }
    AtomicBoolean flag = cancelFlag();
    if (flag != null && flag.get()) {
      return new CancellationException("Statement.cancel() was called");
    }
    return failure;
  }

  /** A new execution: clears the flag a previous cancel left set, and arms the timeout if one is set. */
  private synchronized void start() throws SQLException {
    disarm();
    timedOut = false;
    AtomicBoolean flag = cancelFlag();
    if (flag != null) {
      flag.set(false);
    }
    int seconds = statement.getQueryTimeout();
    timeoutSeconds = seconds;
    if (seconds > 0) {
      timer = TIMERS.schedule(this::timeOut, seconds, TimeUnit.SECONDS);
    }
  }

  private void timeOut() {
    timedOut = true;
    AtomicBoolean flag = cancelFlag();
    if (flag != null) {
      flag.set(true);  // not statement.cancel(): that waits for the statement's lock
    }
  }

  private synchronized void disarm() {
    if (timer != null) {
      timer.cancel(false);
      timer = null;
    }
  }

  private AtomicBoolean cancelFlag() {
    if (CANCEL_FLAG == null || !(statement instanceof AvaticaStatement)) {
      return null;
    }
    try {
      return (AtomicBoolean) CANCEL_FLAG.get(statement);
    } catch (IllegalAccessException e) {
      return null;
    }
  }

  /** Avatica keeps the flag protected; the driver needs it to clear and to set it. */
  private static Field cancelFlagField() {
    try {
      Field field = AvaticaStatement.class.getDeclaredField("cancelFlag");
      field.setAccessible(true);
      return field;
    } catch (ReflectiveOperationException | RuntimeException e) {
      throw new ExceptionInInitializerError("Avatica's AvaticaStatement has no accessible 'cancelFlag';"
          + " SpillwayStatementGuard must be adapted to this Avatica version: " + e);
    }
  }

  private static ScheduledThreadPoolExecutor timers() {
    ScheduledThreadPoolExecutor timers = new ScheduledThreadPoolExecutor(1, runnable -> {
      Thread thread = new Thread(runnable, "spillway-statement-timeout");
      thread.setDaemon(true);
      return thread;
    });
    timers.setRemoveOnCancelPolicy(true);
    return timers;
  }
}
