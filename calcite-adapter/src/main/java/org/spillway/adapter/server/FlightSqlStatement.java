package org.spillway.adapter.server;

import com.google.protobuf.ByteString;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.List;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * One SQL text a Flight SQL client asked for: a statement query waiting for its ticket, or a prepared statement
 * living until the client closes it. It owns an embedded connection and, for a query, the driver's prepared
 * statement; a write (allowed only with --allow-writes) is kept as text and executed on update, because Calcite
 * runs DDL as it prepares it.
 */
final class FlightSqlStatement implements AutoCloseable {
  final ByteString handle;
  final int id;
  /** Whether the client prepared it (it lives until closed), rather than asked for a query's ticket. */
  final boolean prepared;
  final long createdNanos = System.nanoTime();
  final String user;
  final String sql;
  final Connection connection;
  /** The result's schema; empty for a write. */
  final Schema schema;
  /** The parameters' schema; empty for a write or a query without parameters. */
  final Schema parameterSchema;
  private PreparedStatement query;
  private List<Object> parameters = List.of();
  private QueryRun running;
  /** Whether the client was handed a ticket that it has not fetched yet: a cancel must stop that execution. */
  private boolean issued;
  private boolean cancelled;
  private boolean closed;

  FlightSqlStatement(ByteString handle, int id, boolean prepared, String user, String sql, Connection connection,
      PreparedStatement query) throws SQLException {
    this.handle = handle;
    this.id = id;
    this.prepared = prepared;
    this.issued = !prepared;
    this.user = user;
    this.sql = sql;
    this.connection = connection;
    this.query = query;
    this.schema = query == null ? new Schema(List.of()) : FlightSqlTypes.schema(query.getMetaData());
    this.parameterSchema = query == null ? new Schema(List.of())
        : FlightSqlTypes.parameterSchema(query.getParameterMetaData());
  }

  boolean isQuery() {
    return query != null;
  }

  synchronized PreparedStatement query() {
    return query;
  }

  synchronized List<Object> parameters() {
    return parameters;
  }

  synchronized void setParameters(List<Object> values) {
    parameters = List.copyOf(values);
  }

  /**
   * Marks {@code run} as this statement's execution, unless the client cancelled first; returns whether it may
   * start. A cancel that comes while it runs cancels the driver's statement.
   */
  synchronized boolean start(QueryRun run) {
    issued = false;
    if (cancelled || closed) {
      return false;
    }
    running = run;
    return true;
  }

  /** A ticket for the next execution went to the client (GetFlightInfo of a prepared statement). */
  synchronized void issue() {
    issued = true;
  }

  /**
   * Ends the execution; a prepared query whose driver statement was cancelled gets a fresh one, because
   * Calcite's cancel flag is never reset and the client may execute the prepared statement again.
   */
  synchronized void finish() throws SQLException {
    running = null;
    if (cancelled && prepared && query != null && !closed) {
      final PreparedStatement fresh = connection.prepareStatement(sql);
      query.close();
      query = fresh;
    }
    cancelled = false;
  }

  /**
   * Cancels the running execution, or the one whose ticket the client holds; false when there is neither (it
   * finished, or the statement is closed), so that a late cancel never stops a later execution.
   */
  synchronized boolean cancel() throws SQLException {
    if (closed || (running == null && !issued)) {
      return false;
    }
    cancelled = true;
    if (running != null && query != null) {
      query.cancel();
    }
    return true;
  }

  /** A statement query whose ticket was never fetched, older than {@code ageNanos}. */
  synchronized boolean isUnfetched(long nowNanos, long ageNanos) {
    return !prepared && running == null && nowNanos - createdNanos > ageNanos;
  }

  @Override
  public synchronized void close() throws SQLException {
    if (closed) {
      return;
    }
    closed = true;
    try {
      if (query != null) {
        query.close();
      }
    } finally {
      connection.close();
    }
  }
}
