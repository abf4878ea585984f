package org.spillway.adapter.server;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.apache.arrow.flight.CallStatus;
import org.apache.arrow.flight.FlightProducer.ServerStreamListener;
import org.apache.arrow.flight.FlightProducer.StreamListener;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.flight.PutResult;
import org.apache.arrow.flight.sql.impl.FlightSql.DoPutUpdateResult;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.spillway.adapter.SpillwayColumnarCapture;
import org.spillway.adapter.SpillwayColumnarResult;
import org.spillway.adapter.SpillwayDeviceUsage;

/**
 * Runs the Flight SQL endpoint's statements under the server's guards, as {@link GuardedJdbcMeta} does for
 * Avatica: each execution takes a slot of the shared {@link AdmissionControl}, is cancelled at the query timeout,
 * and ends in one {@link QueryLog} line; a query's rows stream as Arrow record batches (copied from the engine's
 * columns where the plan has a Spillway node on top, the line's {@code path}), an update answers with its count.
 */
final class FlightSqlExecutions {
  private static final Logger LOG = LoggerFactory.getLogger(FlightSqlExecutions.class);
  /** How long the endpoint waits for a client that stopped reading before it abandons the stream. */
  private static final long BACKPRESSURE_WAIT_MS = TimeUnit.MINUTES.toMillis(10);
  /** The first and the longest pause between two looks at whether a slow client is ready again. */
  private static final long MIN_READY_PAUSE_NANOS = TimeUnit.MICROSECONDS.toNanos(50);
  private static final long MAX_READY_PAUSE_NANOS = TimeUnit.MILLISECONDS.toNanos(5);

  private final Duration queryTimeout;
  private final AdmissionControl admission;
  private final QueryLog queryLog;
  private final BufferAllocator allocator;
  private final ScheduledExecutorService watchdog;

  FlightSqlExecutions(Duration queryTimeout, AdmissionControl admission, QueryLog queryLog,
      BufferAllocator allocator, ScheduledExecutorService watchdog) {
    this.queryTimeout = queryTimeout;
    this.admission = admission;
    this.queryLog = queryLog;
    this.allocator = allocator;
    this.watchdog = watchdog;
  }

  /** Runs a query and streams its rows as record batches, inside a slot and under the query timeout. */
  @SuppressWarnings("try")
  void stream(FlightSqlStatement statement, ServerStreamListener listener) {
    final QueryRun run = begin(statement);
    QueryLog.Outcome outcome = QueryLog.Outcome.OK;
    try (AdmissionControl.Permit ignored = admission.acquire()) {
      if (!statement.start(run)) {
        throw CallStatus.CANCELLED.withDescription("Query cancelled by the client before it ran; statement: "
            + StatementClassifier.abbreviate(statement.sql)).toRuntimeException();
      }
      armTimeout(run, statement);
      final PreparedStatement query = statement.query();
      FlightSqlParameters.bind(query, statement.parameters());
      listener.setOnCancelHandler(() -> cancelQuietly(statement));
      final ResultSet executed;
      final Optional<SpillwayColumnarResult> columns;
      try (SpillwayColumnarCapture capture = SpillwayColumnarCapture.start()) {
        executed = query.executeQuery();
        columns = capture.result();
      }
      try (ResultSet resultSet = executed;
          BufferAllocator streamAllocator = allocator.newChildAllocator("flight-sql-" + statement.id, 0,
              Long.MAX_VALUE);
          VectorSchemaRoot root = VectorSchemaRoot.create(FlightSqlTypes.schema(resultSet.getMetaData()),
              streamAllocator)) {
        listener.start(root);
        final FlightSqlBatches batches = FlightSqlBatches.of(columns, resultSet, root);
        run.setResultPath(batches.path());
        int rows;
        while ((rows = batches.next(FlightSqlBatches.BATCH_ROWS)) > 0) {
          if (!awaitClient(listener, BACKPRESSURE_WAIT_MS)) {
            // The client went away or stopped reading: what it has is all it gets.
            outcome = QueryLog.Outcome.CLOSED;
            break;
          }
          listener.putNext();
          run.addRows(rows);
        }
        if (outcome == QueryLog.Outcome.OK) {
          listener.completed();
        }
      }
      log(run.finish(outcome, null));
    } catch (SQLException | RuntimeException e) {
      listener.error(failure(run, statement, e));
    } finally {
      finishQuietly(statement);
    }
  }

  /**
   * Waits until the client can take another record batch; false if it cancelled the stream or stayed not ready
   * for {@code timeoutMs}. It polls {@code isReady}: gRPC runs a call's ready and cancel callbacks on the thread
   * that runs this stream, which is busy here, so a wait for the ready callback (Arrow's
   * {@code CallbackBackpressureStrategy}) sleeps out its whole timeout whenever the client falls behind a
   * producer faster than it, as the columnar path is.
   */
  static boolean awaitClient(ServerStreamListener listener, long timeoutMs) {
    final long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
    long pauseNanos = MIN_READY_PAUSE_NANOS;
    while (!listener.isReady()) {
      if (listener.isCancelled() || Thread.currentThread().isInterrupted() || System.nanoTime() - deadline > 0) {
        return false;
      }
      LockSupport.parkNanos(pauseNanos);
      pauseNanos = Math.min(2 * pauseNanos, MAX_READY_PAUSE_NANOS);
    }
    return !listener.isCancelled();
  }

  /** Executes a write (or a query, counting its rows) and acknowledges with the update count. */
  @SuppressWarnings("try")
  void update(FlightSqlStatement statement, StreamListener<PutResult> ackStream) {
    final QueryRun run = begin(statement);
    try (AdmissionControl.Permit ignored = admission.acquire()) {
      if (!statement.start(run)) {
        throw CallStatus.CANCELLED.withDescription("Statement cancelled by the client before it ran")
            .toRuntimeException();
      }
      armTimeout(run, statement);
      final long count;
      if (statement.isQuery()) {
        final PreparedStatement query = statement.query();
        FlightSqlParameters.bind(query, statement.parameters());
        count = query.executeLargeUpdate();
      } else {
        if (!statement.parameters().isEmpty()) {
          throw new SQLException("parameters are not supported in statements other than queries", "0A000");
        }
        try (Statement write = statement.connection.createStatement()) {
          write.execute(statement.sql);
          count = Math.max(write.getLargeUpdateCount(), 0);
        }
      }
      run.addRows(count);
      final byte[] result = DoPutUpdateResult.newBuilder().setRecordCount(count).build().toByteArray();
      try (ArrowBuf metadata = allocator.buffer(result.length)) {
        metadata.writeBytes(result);
        ackStream.onNext(PutResult.metadata(metadata));
      }
      ackStream.onCompleted();
      log(run.finish(QueryLog.Outcome.OK, null));
    } catch (SQLException | RuntimeException e) {
      ackStream.onError(failure(run, statement, e));
    } finally {
      finishQuietly(statement);
    }
  }

  private QueryRun begin(FlightSqlStatement statement) {
    SpillwayDeviceUsage deviceUsage;
    try {
      deviceUsage = SpillwayDeviceUsage.of(statement.connection).orElse(null);
    } catch (SQLException e) {
      deviceUsage = null;  // the statement itself will report the broken connection
    }
    return new QueryRun(statement.user, connectionLabel(statement.id), statement.id, statement.sql, deviceUsage);
  }

  /** Ends {@code run} with the outcome {@code e} implies; returns the status the client gets. */
  private FlightRuntimeException failure(QueryRun run, FlightSqlStatement statement, Throwable e) {
    if (run.timedOut()) {
      final String message = GuardedJdbcMeta.timeoutMessage(queryTimeout, statement.sql);
      log(run.finish(QueryLog.Outcome.TIMED_OUT, message));
      return CallStatus.TIMED_OUT.withDescription(
          FlightSqlErrors.describe(GuardedJdbcMeta.TIMEOUT_SQLSTATE, message)).toRuntimeException();
    }
    final FlightRuntimeException flight = FlightSqlErrors.toFlight(e);
    final QueryLog.Outcome outcome = switch (flight.status().code()) {
      case RESOURCE_EXHAUSTED -> e instanceof SQLException sql
          && AdmissionControl.BUSY_SQLSTATE.equals(sql.getSQLState())
          ? QueryLog.Outcome.REFUSED : QueryLog.Outcome.FAILED;
      case CANCELLED -> QueryLog.Outcome.CLOSED;
      default -> QueryLog.Outcome.FAILED;
    };
    log(run.finish(outcome, flight.status().description()));
    return flight;
  }

  /** Cancels the statement at the deadline, as the Avatica server's watchdog does. */
  private void armTimeout(QueryRun run, FlightSqlStatement statement) {
    if (queryTimeout.isZero()) {
      return;
    }
    run.setTimeoutTask(watchdog.schedule(() -> run.timeOut(() -> cancelQuietly(statement)),
        queryTimeout.toNanos(), TimeUnit.NANOSECONDS));
  }

  private static void cancelQuietly(FlightSqlStatement statement) {
    try {
      statement.cancel();
    } catch (SQLException e) {
      LOG.debug("cancel failed for Flight SQL statement {}", statement.id, e);
    }
  }

  private static void finishQuietly(FlightSqlStatement statement) {
    try {
      statement.finish();
    } catch (SQLException e) {
      LOG.warn("cannot renew the cancelled Flight SQL statement {}: {}", statement.id, e.toString());
    }
  }

  /** The connection id of a Flight SQL statement in the query log. */
  static String connectionLabel(int statementId) {
    return "flight-" + statementId;
  }

  void log(QueryLog.Entry entry) {
    if (entry != null) {
      queryLog.write(entry);
    }
  }
}
