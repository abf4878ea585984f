package org.spillway.adapter.server;

import com.google.protobuf.Any;
import com.google.protobuf.ByteString;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.Message;
import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.arrow.flight.CallStatus;
import org.apache.arrow.flight.CancelFlightInfoRequest;
import org.apache.arrow.flight.CancelStatus;
import org.apache.arrow.flight.CloseSessionRequest;
import org.apache.arrow.flight.CloseSessionResult;
import org.apache.arrow.flight.FlightDescriptor;
import org.apache.arrow.flight.FlightEndpoint;
import org.apache.arrow.flight.FlightInfo;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.flight.FlightStream;
import org.apache.arrow.flight.PutResult;
import org.apache.arrow.flight.Result;
import org.apache.arrow.flight.SchemaResult;
import org.apache.arrow.flight.Ticket;
import org.apache.arrow.flight.sql.CancelResult;
import org.apache.arrow.flight.sql.NoOpFlightSqlProducer;
import org.apache.arrow.flight.sql.SqlInfoBuilder;
import org.apache.arrow.flight.sql.impl.FlightSql.ActionClosePreparedStatementRequest;
import org.apache.arrow.flight.sql.impl.FlightSql.ActionCreatePreparedStatementRequest;
import org.apache.arrow.flight.sql.impl.FlightSql.ActionCreatePreparedStatementResult;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandGetCatalogs;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandGetCrossReference;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandGetDbSchemas;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandGetExportedKeys;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandGetImportedKeys;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandGetPrimaryKeys;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandGetSqlInfo;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandGetTableTypes;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandGetTables;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandGetXdbcTypeInfo;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandPreparedStatementQuery;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandPreparedStatementUpdate;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandStatementQuery;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandStatementUpdate;
import org.apache.arrow.flight.sql.impl.FlightSql.DoPutPreparedStatementResult;
import org.apache.arrow.flight.sql.impl.FlightSql.SqlSupportedTransaction;
import org.apache.arrow.flight.sql.impl.FlightSql.TicketStatementQuery;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.spillway.adapter.jdbc.SpillwayStatementGuard;

/**
 * The Flight SQL protocol over the embedded Spillway driver: statement and prepared-statement queries streamed
 * as Arrow record batches, updates (with --allow-writes), cancel, and the metadata BI tools browse. It guards
 * every statement as the Avatica server does, with the same code: length limit and read-only classification
 * ({@link StatementClassifier}), the concurrency limit ({@link AdmissionControl}, shared with Avatica when both
 * run), the query timeout and one {@link QueryLog} line per execution (run by {@link FlightSqlExecutions}).
 *
 * <p>Each statement owns an embedded connection; handles are random and belong to the user who created them
 * (another user's handle is "not found").
 */
final class SpillwayFlightSqlProducer extends NoOpFlightSqlProducer implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(SpillwayFlightSqlProducer.class);
  private static final SecureRandom RANDOM = new SecureRandom();
  /**
   * A statement query's ticket not fetched within this time is dropped with its connection: a client that asked
   * for a query and went away must not hold server memory for good.
   */
  static final Duration UNFETCHED_TICKET_LIFETIME = Duration.ofMinutes(10);

  private final String url;
  private final Properties driverInfo;
  private final boolean allowWrites;
  private final AdmissionControl admission;
  private final BufferAllocator allocator;
  private final SqlInfoBuilder sqlInfo;
  private final ScheduledExecutorService watchdog;
  private final FlightSqlExecutions executions;
  private final Map<ByteString, FlightSqlStatement> statements = new ConcurrentHashMap<>();
  private final AtomicInteger statementIds = new AtomicInteger();

  SpillwayFlightSqlProducer(String url, Properties driverInfo, ServerConfig config, AdmissionControl admission,
      QueryLog queryLog, BufferAllocator allocator) {
    this.url = url;
    this.driverInfo = driverInfo;
    this.allowWrites = config.allowWrites();
    this.admission = admission;
    this.allocator = allocator;
    this.sqlInfo = sqlInfo(allowWrites);
    this.watchdog = Executors.newSingleThreadScheduledExecutor(runnable -> {
      final Thread thread = new Thread(runnable, "spillway-flight-sql-timer");
      thread.setDaemon(true);
      return thread;
    });
    this.executions = new FlightSqlExecutions(config.queryTimeout(), admission, queryLog, allocator, watchdog);
    watchdog.scheduleWithFixedDelay(() -> dropUnfetched(UNFETCHED_TICKET_LIFETIME), 1, 1, TimeUnit.MINUTES);
  }

  /** Closes the statement queries whose tickets were not fetched within {@code lifetime}. */
  void dropUnfetched(Duration lifetime) {
    final long now = System.nanoTime();
    for (FlightSqlStatement statement : new ArrayList<>(statements.values())) {
      if (statement.isUnfetched(now, lifetime.toNanos())) {
        LOG.info("dropping Flight SQL statement {} of user {}: its ticket was not fetched within {} s",
            statement.id, statement.user, lifetime.toSeconds());
        close(statement);
      }
    }
  }

  private static SqlInfoBuilder sqlInfo(boolean allowWrites) {
    final Package arrow = Schema.class.getPackage();
    return new SqlInfoBuilder()
        .withFlightSqlServerName("Spillway")
        .withFlightSqlServerVersion(Objects.toString(SpillwayFlightSqlProducer.class.getPackage()
            .getImplementationVersion(), "development"))
        .withFlightSqlServerArrowVersion(Objects.toString(arrow.getImplementationVersion(), "unknown"))
        .withFlightSqlServerReadOnly(!allowWrites)
        .withFlightSqlServerSql(true)
        .withFlightSqlServerSubstrait(false)
        .withFlightSqlServerTransaction(SqlSupportedTransaction.SQL_SUPPORTED_TRANSACTION_NONE)
        .withFlightSqlServerCancel(true)
        .withSqlIdentifierQuoteChar("\"")
        .withSqlSearchStringEscape("\\")
        .withSqlSchemaTerm("schema")
        .withSqlCatalogTerm("catalog")
        .withSqlDdlTable(allowWrites)
        .withSqlSupportsColumnAliasing(true)
        .withSqlNullPlusNullIsNull(true)
        .withSqlSupportsTableCorrelationNames(true)
        .withSqlSupportsExpressionsInOrderBy(true)
        .withSqlSupportsLikeEscapeClause(true);
  }

  // ---- statements ------------------------------------------------------------------------------------------

  @Override
  public FlightInfo getFlightInfoStatement(CommandStatementQuery command, CallContext context,
      FlightDescriptor descriptor) {
    final FlightSqlStatement statement = open(context, command.getQuery(), false);
    if (!statement.isQuery()) {
      close(statement);
      throw CallStatus.INVALID_ARGUMENT.withDescription("not a query; send it as an update: "
          + StatementClassifier.abbreviate(command.getQuery())).toRuntimeException();
    }
    final TicketStatementQuery ticket = TicketStatementQuery.newBuilder()
        .setStatementHandle(statement.handle).build();
    return flightInfo(statement.schema, descriptor, ticket);
  }

  @Override
  public SchemaResult getSchemaStatement(CommandStatementQuery command, CallContext context,
      FlightDescriptor descriptor) {
    final FlightSqlStatement statement = open(context, command.getQuery(), false);
    try {
      return new SchemaResult(statement.schema);
    } finally {
      close(statement);
    }
  }

  @Override
  public void getStreamStatement(TicketStatementQuery ticket, CallContext context,
      ServerStreamListener listener) {
    final FlightSqlStatement statement;
    try {
      statement = lookUp(context, ticket.getStatementHandle());
    } catch (FlightRuntimeException e) {
      listener.error(e);
      return;
    }
    try {
      executions.stream(statement, listener);
    } finally {
      // A statement query's ticket is good for one stream.
      close(statement);
    }
  }

  @Override
  public void createPreparedStatement(ActionCreatePreparedStatementRequest request, CallContext context,
      StreamListener<Result> listener) {
    try {
      final FlightSqlStatement statement = open(context, request.getQuery(), true);
      final ActionCreatePreparedStatementResult result = ActionCreatePreparedStatementResult.newBuilder()
          .setPreparedStatementHandle(statement.handle)
          .setDatasetSchema(ByteString.copyFrom(statement.schema.serializeAsMessage()))
          .setParameterSchema(ByteString.copyFrom(statement.parameterSchema.serializeAsMessage()))
          .build();
      listener.onNext(new Result(Any.pack(result).toByteArray()));
      listener.onCompleted();
    } catch (RuntimeException e) {
      listener.onError(FlightSqlErrors.toFlight(e));
    }
  }

  @Override
  public void closePreparedStatement(ActionClosePreparedStatementRequest request, CallContext context,
      StreamListener<Result> listener) {
    try {
      close(lookUp(context, request.getPreparedStatementHandle()));
      listener.onCompleted();
    } catch (RuntimeException e) {
      listener.onError(FlightSqlErrors.toFlight(e));
    }
  }

  @Override
  public FlightInfo getFlightInfoPreparedStatement(CommandPreparedStatementQuery command, CallContext context,
      FlightDescriptor descriptor) {
    final FlightSqlStatement statement = lookUp(context, command.getPreparedStatementHandle());
    if (!statement.isQuery()) {
      throw CallStatus.INVALID_ARGUMENT.withDescription("the prepared statement is not a query; execute it as"
          + " an update: " + StatementClassifier.abbreviate(statement.sql)).toRuntimeException();
    }
    statement.issue();
    return flightInfo(statement.schema, descriptor, command);
  }

  @Override
  public SchemaResult getSchemaPreparedStatement(CommandPreparedStatementQuery command, CallContext context,
      FlightDescriptor descriptor) {
    return new SchemaResult(lookUp(context, command.getPreparedStatementHandle()).schema);
  }

  @Override
  public void getStreamPreparedStatement(CommandPreparedStatementQuery command, CallContext context,
      ServerStreamListener listener) {
    try {
      executions.stream(lookUp(context, command.getPreparedStatementHandle()), listener);
    } catch (FlightRuntimeException e) {
      listener.error(e);
    }
  }

  @Override
  public Runnable acceptPutPreparedStatementQuery(CommandPreparedStatementQuery command, CallContext context,
      FlightStream parameters, StreamListener<PutResult> ackStream) {
    return () -> {
      try {
        final FlightSqlStatement statement = lookUp(context, command.getPreparedStatementHandle());
        statement.setParameters(onlyRow(parameters));
        final byte[] result = DoPutPreparedStatementResult.newBuilder()
            .setPreparedStatementHandle(statement.handle).build().toByteArray();
        try (ArrowBuf metadata = allocator.buffer(result.length)) {
          metadata.writeBytes(result);
          ackStream.onNext(PutResult.metadata(metadata));
        }
        ackStream.onCompleted();
      } catch (RuntimeException e) {
        ackStream.onError(FlightSqlErrors.toFlight(e));
      }
    };
  }

  @Override
  public Runnable acceptPutStatement(CommandStatementUpdate command, CallContext context,
      FlightStream flightStream, StreamListener<PutResult> ackStream) {
    return () -> {
      final FlightSqlStatement statement;
      try {
        statement = open(context, command.getQuery(), false);
      } catch (RuntimeException e) {
        ackStream.onError(FlightSqlErrors.toFlight(e));
        return;
      }
      try {
        executions.update(statement, ackStream);
      } finally {
        close(statement);
      }
    };
  }

  @Override
  public Runnable acceptPutPreparedStatementUpdate(CommandPreparedStatementUpdate command, CallContext context,
      FlightStream parameters, StreamListener<PutResult> ackStream) {
    return () -> {
      try {
        final FlightSqlStatement statement = lookUp(context, command.getPreparedStatementHandle());
        final List<Object> values = onlyRow(parameters);
        if (!values.isEmpty()) {
          statement.setParameters(values);
        }
        executions.update(statement, ackStream);
      } catch (RuntimeException e) {
        ackStream.onError(FlightSqlErrors.toFlight(e));
      }
    };
  }

  // ---- cancel ----------------------------------------------------------------------------------------------

  @Override
  public void cancelFlightInfo(CancelFlightInfoRequest request, CallContext context,
      StreamListener<CancelStatus> listener) {
    try {
      listener.onNext(cancel(context, request.getInfo()));
      listener.onCompleted();
    } catch (RuntimeException e) {
      listener.onError(FlightSqlErrors.toFlight(e));
    }
  }

  @Override
  @SuppressWarnings("deprecation")
  public void cancelQuery(FlightInfo info, CallContext context, StreamListener<CancelResult> listener) {
    try {
      final CancelStatus status = cancel(context, info);
      listener.onNext(status == CancelStatus.CANCELLED ? CancelResult.CANCELLED : CancelResult.NOT_CANCELLABLE);
      listener.onCompleted();
    } catch (RuntimeException e) {
      listener.onError(FlightSqlErrors.toFlight(e));
    }
  }

  /** Cancels the statements the info's tickets name: the one running, or the next execution of each. */
  private CancelStatus cancel(CallContext context, FlightInfo info) {
    boolean cancelled = false;
    for (FlightEndpoint endpoint : info.getEndpoints()) {
      final FlightSqlStatement statement = statements.get(handleOf(endpoint.getTicket()));
      if (statement == null || !statement.user.equals(userOf(context))) {
        continue;  // finished and closed already (or another user's): nothing to cancel
      }
      try {
        cancelled |= statement.cancel();
      } catch (SQLException e) {
        throw FlightSqlErrors.toFlight(e);
      }
    }
    return cancelled ? CancelStatus.CANCELLED : CancelStatus.NOT_CANCELLABLE;
  }

  private static ByteString handleOf(Ticket ticket) {
    try {
      final Any any = Any.parseFrom(ticket.getBytes());
      if (any.is(TicketStatementQuery.class)) {
        return any.unpack(TicketStatementQuery.class).getStatementHandle();
      }
      if (any.is(CommandPreparedStatementQuery.class)) {
        return any.unpack(CommandPreparedStatementQuery.class).getPreparedStatementHandle();
      }
    } catch (InvalidProtocolBufferException e) {
      throw CallStatus.INVALID_ARGUMENT.withDescription("not a Spillway Flight SQL ticket: " + e.getMessage())
          .toRuntimeException();
    }
    throw CallStatus.INVALID_ARGUMENT.withDescription("the ticket names no statement").toRuntimeException();
  }

  @Override
  public void closeSession(CloseSessionRequest request, CallContext context,
      StreamListener<CloseSessionResult> listener) {
    // Statements, not sessions, hold the server's state; the JDBC driver closes its session on close.
    listener.onNext(new CloseSessionResult(CloseSessionResult.Status.CLOSED));
    listener.onCompleted();
  }

  // ---- metadata --------------------------------------------------------------------------------------------

  @Override
  public FlightInfo getFlightInfoSqlInfo(CommandGetSqlInfo command, CallContext context,
      FlightDescriptor descriptor) {
    return flightInfo(Schemas.GET_SQL_INFO_SCHEMA, descriptor, command);
  }

  @Override
  public void getStreamSqlInfo(CommandGetSqlInfo command, CallContext context, ServerStreamListener listener) {
    sqlInfo.send(command.getInfoList(), listener);
  }

  @Override
  public FlightInfo getFlightInfoCatalogs(CommandGetCatalogs command, CallContext context,
      FlightDescriptor descriptor) {
    return flightInfo(Schemas.GET_CATALOGS_SCHEMA, descriptor, command);
  }

  @Override
  public void getStreamCatalogs(CallContext context, ServerStreamListener listener) {
    sendMetadata(Schemas.GET_CATALOGS_SCHEMA, listener, FlightSqlMetadata::catalogs);
  }

  @Override
  public FlightInfo getFlightInfoSchemas(CommandGetDbSchemas command, CallContext context,
      FlightDescriptor descriptor) {
    return flightInfo(Schemas.GET_SCHEMAS_SCHEMA, descriptor, command);
  }

  @Override
  public void getStreamSchemas(CommandGetDbSchemas command, CallContext context, ServerStreamListener listener) {
    sendMetadata(Schemas.GET_SCHEMAS_SCHEMA, listener, metaData -> FlightSqlMetadata.schemas(metaData, command));
  }

  @Override
  public FlightInfo getFlightInfoTables(CommandGetTables command, CallContext context,
      FlightDescriptor descriptor) {
    return flightInfo(FlightSqlMetadata.tablesSchema(command), descriptor, command);
  }

  @Override
  public void getStreamTables(CommandGetTables command, CallContext context, ServerStreamListener listener) {
    sendMetadata(FlightSqlMetadata.tablesSchema(command), listener,
        metaData -> FlightSqlMetadata.tables(metaData, command));
  }

  @Override
  public FlightInfo getFlightInfoTableTypes(CommandGetTableTypes command, CallContext context,
      FlightDescriptor descriptor) {
    return flightInfo(Schemas.GET_TABLE_TYPES_SCHEMA, descriptor, command);
  }

  @Override
  public void getStreamTableTypes(CallContext context, ServerStreamListener listener) {
    sendMetadata(Schemas.GET_TABLE_TYPES_SCHEMA, listener, FlightSqlMetadata::tableTypes);
  }

  @Override
  public FlightInfo getFlightInfoTypeInfo(CommandGetXdbcTypeInfo command, CallContext context,
      FlightDescriptor descriptor) {
    return flightInfo(Schemas.GET_TYPE_INFO_SCHEMA, descriptor, command);
  }

  @Override
  public void getStreamTypeInfo(CommandGetXdbcTypeInfo command, CallContext context,
      ServerStreamListener listener) {
    sendMetadata(Schemas.GET_TYPE_INFO_SCHEMA, listener,
        metaData -> FlightSqlMetadata.typeInfo(metaData, command.hasDataType() ? command.getDataType() : null));
  }

  // Spillway's tables declare no keys: the key calls answer with no rows rather than "unimplemented".

  @Override
  public FlightInfo getFlightInfoPrimaryKeys(CommandGetPrimaryKeys command, CallContext context,
      FlightDescriptor descriptor) {
    return flightInfo(Schemas.GET_PRIMARY_KEYS_SCHEMA, descriptor, command);
  }

  @Override
  public void getStreamPrimaryKeys(CommandGetPrimaryKeys command, CallContext context,
      ServerStreamListener listener) {
    FlightSqlMetadata.send(Schemas.GET_PRIMARY_KEYS_SCHEMA, List.of(), allocator, listener);
  }

  @Override
  public FlightInfo getFlightInfoExportedKeys(CommandGetExportedKeys command, CallContext context,
      FlightDescriptor descriptor) {
    return flightInfo(Schemas.GET_EXPORTED_KEYS_SCHEMA, descriptor, command);
  }

  @Override
  public void getStreamExportedKeys(CommandGetExportedKeys command, CallContext context,
      ServerStreamListener listener) {
    FlightSqlMetadata.send(Schemas.GET_EXPORTED_KEYS_SCHEMA, List.of(), allocator, listener);
  }

  @Override
  public FlightInfo getFlightInfoImportedKeys(CommandGetImportedKeys command, CallContext context,
      FlightDescriptor descriptor) {
    return flightInfo(Schemas.GET_IMPORTED_KEYS_SCHEMA, descriptor, command);
  }

  @Override
  public void getStreamImportedKeys(CommandGetImportedKeys command, CallContext context,
      ServerStreamListener listener) {
    FlightSqlMetadata.send(Schemas.GET_IMPORTED_KEYS_SCHEMA, List.of(), allocator, listener);
  }

  @Override
  public FlightInfo getFlightInfoCrossReference(CommandGetCrossReference command, CallContext context,
      FlightDescriptor descriptor) {
    return flightInfo(Schemas.GET_CROSS_REFERENCE_SCHEMA, descriptor, command);
  }

  @Override
  public void getStreamCrossReference(CommandGetCrossReference command, CallContext context,
      ServerStreamListener listener) {
    FlightSqlMetadata.send(Schemas.GET_CROSS_REFERENCE_SCHEMA, List.of(), allocator, listener);
  }

  /** Reads metadata rows from an embedded connection of its own. */
  private interface MetadataRows {
    List<Object[]> read(DatabaseMetaData metaData) throws SQLException;
  }

  private void sendMetadata(Schema schema, ServerStreamListener listener, MetadataRows rows) {
    final List<Object[]> read;
    try (Connection connection = connect()) {
      read = rows.read(connection.getMetaData());
    } catch (SQLException | RuntimeException e) {
      listener.error(FlightSqlErrors.toFlight(e));
      return;
    }
    FlightSqlMetadata.send(schema, read, allocator, listener);
  }

  // ---- the work ------------------------------------------------------------------------------------------

  /**
   * Checks {@code sql} as the Avatica server does (length, then read-only unless writes are allowed) and
   * registers it under a new handle: a query prepared by the driver, a write kept as text.
   */
  @SuppressWarnings("try")
  private FlightSqlStatement open(CallContext context, String sql, boolean prepared) {
    final String user = userOf(context);
    final int id = statementIds.incrementAndGet();
    boolean query;
    try {
      SpillwayStatementGuard.checkLength(sql);
      StatementClassifier.requireReadOnly(sql);
      query = true;
    } catch (SQLException e) {
      if (!allowWrites || !StatementClassifier.READ_ONLY_SQLSTATE.equals(e.getSQLState())) {
        executions.log(new QueryRun(user, FlightSqlExecutions.connectionLabel(id), id, sql).finish(QueryLog.Outcome.REFUSED, e.getMessage()));
        throw FlightSqlErrors.toFlight(e);
      }
      query = false;
    }
    final byte[] random = new byte[16];
    RANDOM.nextBytes(random);
    final ByteString handle = ByteString.copyFrom(random);
    Connection connection = null;
    try (AdmissionControl.Permit ignored = admission.acquire()) {
      // Inside a slot, as with Avatica: planning a query is work too.
      connection = connect();
      final PreparedStatement driverStatement = query ? connection.prepareStatement(sql) : null;
      final FlightSqlStatement statement = new FlightSqlStatement(handle, id, prepared, user, sql, connection,
          driverStatement);
      statements.put(handle, statement);
      return statement;
    } catch (SQLException | RuntimeException e) {
      closeQuietly(connection);
      final boolean busy = e instanceof SQLException refusal
          && AdmissionControl.BUSY_SQLSTATE.equals(refusal.getSQLState());
      executions.log(new QueryRun(user, FlightSqlExecutions.connectionLabel(id), id, sql).finish(
          busy ? QueryLog.Outcome.REFUSED : QueryLog.Outcome.FAILED, e.getMessage()));
      throw FlightSqlErrors.toFlight(e);
    }
  }

  private Connection connect() throws SQLException {
    return DriverManager.getConnection(url, driverInfo);
  }

  /** The user's statement under {@code handle}; another user's is not found, as an unknown one. */
  private FlightSqlStatement lookUp(CallContext context, ByteString handle) {
    final FlightSqlStatement statement = statements.get(handle);
    if (statement == null || !statement.user.equals(userOf(context))) {
      throw CallStatus.NOT_FOUND.withDescription("no open statement with this handle (closed, never created,"
          + " or another user's)").toRuntimeException();
    }
    return statement;
  }

  private void close(FlightSqlStatement statement) {
    statements.remove(statement.handle, statement);
    try {
      statement.close();
    } catch (SQLException e) {
      LOG.warn("cannot close Flight SQL statement {}: {}", statement.id, e.toString());
    }
  }

  /** The one row of parameters a DoPut carries; none (no batch) gives an empty list. */
  private static List<Object> onlyRow(FlightStream parameters) {
    List<Object> values = List.of();
    int rows = 0;
    while (parameters.next()) {
      final VectorSchemaRoot batch = parameters.getRoot();
      rows += batch.getRowCount();
      if (batch.getRowCount() > 0) {
        values = FlightSqlParameters.row(batch, batch.getRowCount() - 1);
      }
    }
    if (rows > 1) {
      throw CallStatus.INVALID_ARGUMENT.withDescription("Spillway binds one row of parameters per execution,"
          + " got " + rows).toRuntimeException();
    }
    return values;
  }

  private static FlightInfo flightInfo(Schema schema, FlightDescriptor descriptor, Message ticket) {
    final Ticket t = new Ticket(Any.pack(ticket).toByteArray());
    return new FlightInfo(schema, descriptor, List.of(new FlightEndpoint(t)), -1, -1);
  }

  /** The authenticated user; without a users file every client is {@link RemoteUserHandler#ANONYMOUS}. */
  private static String userOf(CallContext context) {
    final String peer = context.peerIdentity();
    return peer == null || peer.isEmpty() ? RemoteUserHandler.ANONYMOUS : peer;
  }

  private static void closeQuietly(Connection connection) {
    if (connection == null) {
      return;
    }
    try {
      connection.close();
    } catch (SQLException e) {
      LOG.debug("cannot close an embedded connection", e);
    }
  }

  /** Statements open now (prepared, or queries whose ticket was not fetched); for tests. */
  int openStatements() {
    return statements.size();
  }

  /** Closes every statement still open; the endpoint calls this when it stops. */
  @Override
  public void close() {
    watchdog.shutdownNow();
    for (FlightSqlStatement statement : new ArrayList<>(statements.values())) {
      close(statement);
    }
  }
}
