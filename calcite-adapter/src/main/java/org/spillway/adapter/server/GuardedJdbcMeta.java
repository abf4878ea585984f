package org.spillway.adapter.server;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.calcite.avatica.AvaticaSeverity;
import org.apache.calcite.avatica.MissingResultsException;
import org.apache.calcite.avatica.NoSuchStatementException;
import org.apache.calcite.avatica.jdbc.StatementInfo;
import org.apache.calcite.avatica.proto.Requests;
import org.apache.calcite.avatica.remote.AvaticaRuntimeException;
import org.apache.calcite.avatica.remote.TypedValue;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.spillway.adapter.SpillwayDeviceUsage;
import org.spillway.adapter.jdbc.SpillwaySqlErrors;
import org.spillway.adapter.jdbc.SpillwayStatementGuard;

/**
 * Avatica's {@code JdbcMeta} over the embedded Spillway driver, plus what a shared server needs:
 * read-only mode, a bound on concurrent statements, a query timeout and one log line per query.
 *
 * <p>Admission is per call: a statement holds a slot while it executes and while it produces a
 * frame, not while the client thinks between fetches, so an idle client cannot block others.
 */
public class GuardedJdbcMeta extends CaseFoldingJdbcMeta {
  private static final Logger LOG = LoggerFactory.getLogger(GuardedJdbcMeta.class);

  /** SQLSTATE 57014: "canceling statement due to statement timeout" (PostgreSQL's code). */
  static final String TIMEOUT_SQLSTATE = "57014";

  /** Properties JDBC tools send by habit; authentication is HTTP's job, so they carry no meaning. */
  private static final Set<String> IGNORED_CLIENT_PROPERTIES = Set.of("user", "password");

  private final boolean allowWrites;
  private final Duration queryTimeout;
  private final AdmissionControl admission;
  private final QueryLog queryLog;
  private final ScheduledExecutorService watchdog;
  private final Map<Integer, QueryRun> runs = new ConcurrentHashMap<>();
  private final ConnectionOwnership ownership = new ConnectionOwnership();
  private final AtomicLong finishedQueries = new AtomicLong();

  /** Creates a meta serving {@code url} with {@code info} as the only driver properties. */
  public GuardedJdbcMeta(String url, Properties info, boolean allowWrites, Duration queryTimeout,
      AdmissionControl admission, QueryLog queryLog) throws SQLException {
    super(url, info);
    this.allowWrites = allowWrites;
    this.queryTimeout = queryTimeout;
    this.admission = admission;
    this.queryLog = queryLog;
    this.watchdog = Executors.newSingleThreadScheduledExecutor(runnable -> {
      final Thread thread = new Thread(runnable, "spillway-query-timeout");
      thread.setDaemon(true);
      return thread;
    });
  }

  @Override
  public void openConnection(ConnectionHandle ch, Map<String, String> info) {
    // The server, not the client, decides which catalog is served and how: a client-supplied
    // dataDir would otherwise open any directory the server process can read.
    if (info != null) {
      for (String key : info.keySet()) {
        if (!IGNORED_CLIENT_PROPERTIES.contains(key)) {
          throw new AvaticaRuntimeException("Connection property '" + key + "' cannot be set by a"
              + " remote client; the Spillway server fixes the connection settings (remove it from"
              + " the JDBC URL or Properties)", 0, "08004", AvaticaSeverity.ERROR);
        }
      }
    }
    final boolean newId = ownership.claim(ch.id, RemoteUserHandler.currentUser());
    try {
      super.openConnection(ch, Map.of());
    } catch (RuntimeException | Error e) {
      if (newId) {
        ownership.release(ch.id);
      }
      throw e;
    }
    ownership.forgetDropped(getConnectionCache().asMap().keySet(),
        ConnectionOwnership.FORGET_AFTER);
  }

  @Override
  public void closeConnection(ConnectionHandle ch) {
    runs.values().removeIf(run -> {
      if (run.connectionId.equals(ch.id)) {
        log(run.finish(QueryLog.Outcome.CLOSED, null));
        return true;
      }
      return false;
    });
    try {
      super.closeConnection(ch);
    } finally {
      ownership.release(ch.id);
    }
  }

  @Override
  public StatementHandle prepare(ConnectionHandle ch, String sql, long maxRowCount) {
    final QueryRun run = new QueryRun(userOf(ch.id), ch.id, -1, sql);
    requireShortStatement(run);
    if (!allowWrites) {
      requireReadOnly(run);
    }
    return super.prepare(ch, sql, maxRowCount);
  }

  @Override
  public ExecuteResult prepareAndExecute(StatementHandle h, String sql, long maxRowCount,
      int maxRowsInFirstFrame, PrepareCallback callback) throws NoSuchStatementException {
    final QueryRun run = begin(h, sql);
    requireShortStatement(run);
    // Classified inside the slot and the timeout: parsing is work too.
    return execute(run, h, () -> {
      if (!allowWrites) {
        requireReadOnly(run);
      }
      return super.prepareAndExecute(h, sql, maxRowCount, maxRowsInFirstFrame, callback);
    });
  }

  @Override
  public ExecuteResult execute(StatementHandle h, List<TypedValue> parameterValues,
      int maxRowsInFirstFrame) throws NoSuchStatementException {
    // Prepared statements were classified in prepare().
    final QueryRun run = begin(h, h.signature == null ? "<prepared>" : h.signature.sql);
    return execute(run, h, () -> super.execute(h, parameterValues, maxRowsInFirstFrame));
  }

  @Override
  @SuppressWarnings("try")
  public Frame fetch(StatementHandle h, long offset, int fetchMaxRowCount)
      throws NoSuchStatementException, MissingResultsException {
    final QueryRun run = runs.get(h.id);
    if (run != null && run.timedOut()) {
      throw fail(run, timeoutError(run));
    }
    try (AdmissionControl.Permit ignored = admit(run)) {
      final Frame frame = super.fetch(h, offset, fetchMaxRowCount);
      if (run != null) {
        run.addRows(frame);
        if (frame.done) {
          finish(h.id, QueryLog.Outcome.OK);
        }
      }
      return frame;
    } catch (RuntimeException | Error e) {
      throw fail(run, e);
    }
  }

  @Override
  public void closeStatement(StatementHandle h) {
    // A query closed before its last row was fetched: a LIMIT on the client side or a cancel.
    finish(h.id, QueryLog.Outcome.CLOSED);
    super.closeStatement(h);
  }

  @Override
  public ExecuteBatchResult prepareAndExecuteBatch(StatementHandle h, List<String> sqlCommands)
      throws NoSuchStatementException {
    final QueryRun run = begin(h, String.join("; ", sqlCommands));
    if (!allowWrites) {
      // A batch only carries update counts, so no statement in it can be a query worth running.
      throw fail(run, new AvaticaRuntimeException("Spillway server is read-only: batches of "
          + sqlCommands.size() + " statements are refused (start the server with --allow-writes)",
          0, StatementClassifier.READ_ONLY_SQLSTATE, AvaticaSeverity.ERROR));
    }
    return batch(run, () -> super.prepareAndExecuteBatch(h, sqlCommands));
  }

  @Override
  public ExecuteBatchResult executeBatch(StatementHandle h, List<List<TypedValue>> updateBatches)
      throws NoSuchStatementException {
    final QueryRun run = begin(h, h.signature == null ? "<prepared batch>" : h.signature.sql);
    return batch(run, () -> super.executeBatch(h, updateBatches));
  }

  @Override
  public ExecuteBatchResult executeBatchProtobuf(StatementHandle h,
      List<Requests.UpdateBatch> updateBatches) throws NoSuchStatementException {
    final QueryRun run = begin(h, h.signature == null ? "<prepared batch>" : h.signature.sql);
    return batch(run, () -> super.executeBatchProtobuf(h, updateBatches));
  }

  /** Closes every connection the server still holds; the server calls this when it stops. */
  public void closeAll() {
    watchdog.shutdownNow();
    for (Map.Entry<String, Connection> entry : getConnectionCache().asMap().entrySet()) {
      closeConnection(new ConnectionHandle(entry.getKey()));
    }
    getConnectionCache().invalidateAll();
  }

  /** Who opened each connection and which statements it handed out; checked on every request. */
  ConnectionOwnership ownership() {
    return ownership;
  }

  /** Queries that have finished (any outcome) since the server started. */
  public long finishedQueries() {
    return finishedQueries.get();
  }

  /** Statements executed but not yet finished; for tests that check nothing is left behind. */
  public int openQueries() {
    return runs.size();
  }

  /** A call on the driver that may throw {@link NoSuchStatementException}. */
  private interface DriverCall<T> {
    T call() throws NoSuchStatementException;
  }

  private QueryRun begin(StatementHandle h, String sql) {
    // Re-executing a statement ends its previous result set.
    finish(h.id, QueryLog.Outcome.CLOSED);
    return new QueryRun(userOf(h.connectionId), h.connectionId, h.id, sql, deviceUsageOf(h.connectionId));
  }

  /** Where the connection's Spillway pipelines run, for the query log; null if that cannot be known. */
  private SpillwayDeviceUsage deviceUsageOf(String connectionId) {
    try {
      return SpillwayDeviceUsage.of(getConnection(connectionId)).orElse(null);
    } catch (SQLException e) {
      return null;  // the statement itself will report the broken connection
    }
  }

  @SuppressWarnings("try")
  private ExecuteResult execute(QueryRun run, StatementHandle h, DriverCall<ExecuteResult> call)
      throws NoSuchStatementException {
    try (AdmissionControl.Permit ignored = admit(run)) {
      runs.put(h.id, run);
      armTimeout(run, h);
      final ExecuteResult result = call.call();
      boolean done = true;
      for (MetaResultSet resultSet : result.resultSets) {
        if (resultSet.firstFrame != null) {
          run.addRows(resultSet.firstFrame);
          done &= resultSet.firstFrame.done;
        } else if (resultSet.updateCount >= 0) {
          run.addRows(resultSet.updateCount);
        }
      }
      if (done) {
        finish(h.id, QueryLog.Outcome.OK);
      }
      return result;
    } catch (NoSuchStatementException e) {
      runs.remove(h.id);
      log(run.finish(QueryLog.Outcome.FAILED, e.toString()));
      throw e;
    } catch (RuntimeException | Error e) {
      throw fail(run, e);
    }
  }

  @SuppressWarnings("try")
  private ExecuteBatchResult batch(QueryRun run, DriverCall<ExecuteBatchResult> call)
      throws NoSuchStatementException {
    try (AdmissionControl.Permit ignored = admit(run)) {
      final ExecuteBatchResult result = call.call();
      for (long count : result.updateCounts) {
        run.addRows(Math.max(count, 0));
      }
      log(run.finish(QueryLog.Outcome.OK, null));
      return result;
    } catch (RuntimeException | Error e) {
      throw fail(run, e);
    }
  }

  private AdmissionControl.Permit admit(QueryRun run) {
    try {
      return admission.acquire();
    } catch (SQLException e) {
      final AvaticaRuntimeException refusal = new AvaticaRuntimeException(e.getMessage(), 0,
          e.getSQLState(), AvaticaSeverity.ERROR);
      if (run != null) {
        runs.remove(run.statementId, run);
        log(run.finish(QueryLog.Outcome.REFUSED, e.getMessage()));
      }
      throw refusal;
    }
  }

  /** Refuses a statement too long to parse within any limit, before anything parses it. */
  private void requireShortStatement(QueryRun run) {
    try {
      SpillwayStatementGuard.checkLength(run.sql);
    } catch (SQLException e) {
      log(run.finish(QueryLog.Outcome.REFUSED, e.getMessage()));
      throw new AvaticaRuntimeException(e.getMessage(), 0, e.getSQLState(), AvaticaSeverity.ERROR);
    }
  }

  private void requireReadOnly(QueryRun run) {
    try {
      StatementClassifier.requireReadOnly(run.sql);
    } catch (SQLException e) {
      log(run.finish(QueryLog.Outcome.REFUSED, e.getMessage()));
      throw new AvaticaRuntimeException(e.getMessage(), 0, e.getSQLState(), AvaticaSeverity.ERROR);
    }
  }

  /**
   * Cancels the statement at the deadline. The driver's own setQueryTimeout is not used: it counts whole
   * seconds and would race this watchdog, whose message names the server's limit.
   */
  private void armTimeout(QueryRun run, StatementHandle h) throws NoSuchStatementException {
    if (queryTimeout.isZero()) {
      return;
    }
    final Statement statement = statementOf(h);
    run.setTimeoutTask(watchdog.schedule(() -> run.timeOut(() -> {
      try {
        statement.cancel();
      } catch (SQLException e) {
        LOG.debug("cancel after timeout failed for statement {}", run.statementId, e);
      }
    }), queryTimeout.toNanos(), TimeUnit.NANOSECONDS));
  }

  private Statement statementOf(StatementHandle h) throws NoSuchStatementException {
    final StatementInfo info = getStatementCache().getIfPresent(h.id);
    if (info == null) {
      throw new NoSuchStatementException(h);
    }
    return DriverStatements.of(info);
  }

  /**
   * A driver statement stays cancelled once cancelled (Calcite's flag is never reset), so after a
   * timeout the client's statement handle gets a fresh driver statement and can run the next query.
   */
  private void replaceCancelledStatement(QueryRun run) {
    final StatementInfo info = getStatementCache().getIfPresent(run.statementId);
    if (info == null) {
      return;
    }
    try {
      final Statement cancelled = DriverStatements.of(info);
      final Connection connection = getConnection(run.connectionId);
      final Statement fresh = cancelled instanceof PreparedStatement
          ? connection.prepareStatement(run.sql) : connection.createStatement();
      fresh.setLargeMaxRows(cancelled.getLargeMaxRows());
      getStatementCache().put(run.statementId, new StatementInfo(fresh));
      cancelled.close();
    } catch (SQLException e) {
      // The handle then fails on its next use with the driver's message; the timeout still stands.
      LOG.warn("cannot replace the timed-out statement {} of connection {}: {}", run.statementId,
          run.connectionId, e.toString());
    }
  }

  /** Ends {@code run} with the outcome {@code e} implies; returns what the client should see. */
  private RuntimeException fail(QueryRun run, Throwable e) {
    final RuntimeException error = clientError(run, e);
    if (run == null) {
      return error;
    }
    runs.remove(run.statementId, run);
    if (run.timedOut()) {
      replaceCancelledStatement(run);
      final AvaticaRuntimeException timeout = timeoutError(run);
      log(run.finish(QueryLog.Outcome.TIMED_OUT, timeout.getErrorMessage()));
      return timeout;
    }
    final String message = error instanceof AvaticaRuntimeException
        ? ((AvaticaRuntimeException) error).getErrorMessage() : DriverStatements.rootMessage(error);
    log(run.finish(QueryLog.Outcome.FAILED, message));
    return error;
  }

  /**
   * Exceptions go on as they are ({@link ClientErrorService} maps them for the client); an Error (a stack
   * overflow in planning, say) becomes an SQL error here, because Avatica would otherwise answer with a
   * response the client cannot parse.
   */
  private static RuntimeException clientError(QueryRun run, Throwable e) {
    if (e instanceof RuntimeException) {
      return (RuntimeException) e;
    }
    final SpillwaySqlErrors.Classified classified = SpillwaySqlErrors.classify(e);
    if (SpillwaySqlErrors.INTERNAL_ERROR.equals(classified.sqlState())) {
      LOG.error("internal error in the driver{}", run == null ? "" : " on statement " + run.statementId, e);
    }
    return new AvaticaRuntimeException(classified.message()
        + (run == null ? "" : " (statement: " + StatementClassifier.abbreviate(run.sql) + ")"),
        0, classified.sqlState(), AvaticaSeverity.ERROR);
  }

  private AvaticaRuntimeException timeoutError(QueryRun run) {
    return new AvaticaRuntimeException(timeoutMessage(queryTimeout, run.sql), 0, TIMEOUT_SQLSTATE,
        AvaticaSeverity.ERROR);
  }

  /** What a client whose statement ran past the server's query timeout is told, over either protocol. */
  static String timeoutMessage(Duration queryTimeout, String sql) {
    return "Query cancelled: it ran longer than the server's query timeout of " + queryTimeout.toMillis()
        + " ms (--query-timeout); statement: " + StatementClassifier.abbreviate(sql);
  }

  private void finish(int statementId, QueryLog.Outcome outcome) {
    final QueryRun run = runs.remove(statementId);
    if (run != null) {
      log(run.finish(outcome, null));
    }
  }

  private void log(QueryLog.Entry entry) {
    if (entry != null) {
      finishedQueries.incrementAndGet();
      queryLog.write(entry);
    }
  }

  private String userOf(String connectionId) {
    final String owner = ownership.ownerOf(connectionId);
    return owner == null ? RemoteUserHandler.currentUser() : owner;
  }
}
