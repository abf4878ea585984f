package org.spillway.adapter.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.apache.arrow.flight.CallStatus;
import org.apache.arrow.flight.CancelFlightInfoRequest;
import org.apache.arrow.flight.CancelStatus;
import org.apache.arrow.flight.FlightClient;
import org.apache.arrow.flight.grpc.CredentialCallOption;
import org.apache.arrow.flight.FlightInfo;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.flight.FlightStatusCode;
import org.apache.arrow.flight.FlightStream;
import org.apache.arrow.flight.Location;
import org.apache.arrow.flight.sql.FlightSqlClient;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the Flight SQL endpoint shares with the Avatica server: users file authentication, the concurrency
 * limit, the query timeout and cancel, and writes only when allowed; over the Flight SQL JDBC driver and
 * Arrow's own FlightSqlClient (statement queries and CancelFlightInfo, which the JDBC driver does not send).
 */
class FlightSqlGuardsTest {
  /** Runs for many minutes at SF 0.01 unless something stops it. */
  private static final String ENDLESS = "select a.l_orderkey, b.l_partkey from lineitem a, lineitem b";

  @TempDir
  static Path dir;

  private static FlightSqlEndpoint endpoint;
  private static AdmissionControl admission;
  private static QueryLog queryLog;
  private static BufferAllocator allocator;

  @BeforeAll
  static void start() throws Exception {
    final Path users = Files.writeString(dir.resolve("users"), "alice: wonderland\nbob: builder\n");
    final ServerConfig config = ServerConfig.of(TpchTestData.dataDir()).withUsersFile(users)
        .withAdmission(1, Duration.ZERO).withQueryTimeout(Duration.ofSeconds(2));
    admission = new AdmissionControl(config.maxConcurrent(), config.admissionWait());
    queryLog = new QueryLog();
    endpoint = FlightSqlEndpoint.start(config, 0, admission, queryLog);
    allocator = new RootAllocator();
  }

  @AfterAll
  static void stop() {
    endpoint.close();
    allocator.close();
  }

  private static String url(String user, String password) {
    return endpoint.jdbcUrl() + "&user=" + user + "&password=" + password;
  }

  private static long count(Connection connection, String sql) throws SQLException {
    try (Statement statement = connection.createStatement(); ResultSet resultSet = statement.executeQuery(sql)) {
      assertTrue(resultSet.next());
      return resultSet.getLong(1);
    }
  }

  @Test
  void rightPasswordQueriesUnderTheUsersName() throws SQLException {
    final List<QueryLog.Entry> entries = new CopyOnWriteArrayList<>();
    queryLog.addListener(entries::add);
    try (Connection connection = DriverManager.getConnection(url("alice", "wonderland"))) {
      assertEquals(5, count(connection, "select count(*) from region"));
    }
    assertTrue(entries.stream().anyMatch(e -> e.user().equals("alice") && e.outcome() == QueryLog.Outcome.OK
        && e.rows() == 1), entries.toString());
  }

  @Test
  void wrongPasswordUnknownUserAndNoCredentialsAreRefused() {
    for (String url : List.of(url("alice", "rabbit"), url("mallory", "wonderland"), endpoint.jdbcUrl())) {
      final SQLException refused = assertThrows(SQLException.class, () -> {
        try (Connection connection = DriverManager.getConnection(url)) {
          count(connection, "select count(*) from region");
        }
      }, url);
      assertTrue(String.valueOf(refused.getMessage()).contains("UNAUTHENTICATED")
          || String.valueOf(refused.getCause()).contains("UNAUTHENTICATED"), url + ": " + refused);
    }
  }

  @Test
  void excessStatementIsRefusedWhileTheOnlySlotIsTaken() throws SQLException {
    try (Connection connection = DriverManager.getConnection(url("bob", "builder"))) {
      try (AdmissionControl.Permit taken = admission.acquire()) {
        final SQLException busy = assertThrows(SQLException.class,
            () -> count(connection, "select count(*) from nation"));
        assertTrue(busy.getMessage().contains("Spillway server is busy: 1 statements are already running"),
            busy.getMessage());
        assertTrue(busy.getMessage().contains("53300"), busy.getMessage());
      }
      assertEquals(25, count(connection, "select count(*) from nation"));
    }
  }

  private static FlightClient flightClient() {
    return FlightClient.builder(allocator, Location.forGrpcInsecure("127.0.0.1", endpoint.port())).build();
  }

  @Test
  void statementQueryAndTimeoutOverFlightSqlClient() throws Exception {
    final FlightClient flight = flightClient();
    final CredentialCallOption token = flight.authenticateBasicToken("bob", "builder").orElseThrow();
    try (FlightSqlClient client = new FlightSqlClient(flight)) {
      final FlightInfo info = client.execute("select count(*) from nation", token);
      try (FlightStream stream = client.getStream(info.getEndpoints().get(0).getTicket(), token)) {
        assertTrue(stream.next());
        assertEquals(25, ((BigIntVector) stream.getRoot().getVector(0)).get(0));
      }
      final long start = System.nanoTime();
      final FlightInfo endless = client.execute(ENDLESS, token);
      final FlightRuntimeException timedOut = assertThrows(FlightRuntimeException.class, () -> drain(client,
          endless, token));
      assertEquals(FlightStatusCode.TIMED_OUT, timedOut.status().code(), timedOut.toString());
      assertTrue(timedOut.getMessage().contains("query timeout of 2000 ms"), timedOut.getMessage());
      assertTrue(System.nanoTime() - start < TimeUnit.SECONDS.toNanos(30), "the timeout took effect late");
    }
    awaitNothingLeftBehind();
  }

  /** The server closes a failed stream's statement and frees its slot just after the client saw the error. */
  private static void awaitNothingLeftBehind() throws InterruptedException {
    final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while ((endpoint.openStatements() > 0 || admission.inUse() > 0) && System.nanoTime() < deadline) {
      TimeUnit.MILLISECONDS.sleep(20);
    }
    assertEquals(0, endpoint.openStatements(), "statements left open on the server");
    assertEquals(0, admission.inUse(), "slots left taken");
  }

  @Test
  void cancelFlightInfoStopsTheRunningQuery() throws Exception {
    final FlightClient flight = flightClient();
    final CredentialCallOption token = flight.authenticateBasicToken("alice", "wonderland").orElseThrow();
    try (FlightSqlClient client = new FlightSqlClient(flight)) {
      final FlightInfo endless = client.execute(ENDLESS, token);
      final CompletableFuture<Long> reader = CompletableFuture.supplyAsync(() -> drain(client, endless, token));
      // Let the query start streaming: the cancel must stop a running query, not only a waiting one.
      TimeUnit.MILLISECONDS.sleep(300);
      assertEquals(CancelStatus.CANCELLED,
          client.cancelFlightInfo(new CancelFlightInfoRequest(endless), token).getStatus());
      final Throwable failure = assertThrows(Exception.class, () -> reader.get(20, TimeUnit.SECONDS)).getCause();
      assertTrue(failure instanceof FlightRuntimeException, String.valueOf(failure));
      assertEquals(CallStatus.CANCELLED.code(), ((FlightRuntimeException) failure).status().code(),
          failure.toString());
    }
    awaitNothingLeftBehind();
  }

  @Test
  void lateCancelDoesNotStopTheNextExecutionOfAPreparedStatement() throws Exception {
    final FlightClient flight = flightClient();
    final CredentialCallOption token = flight.authenticateBasicToken("alice", "wonderland").orElseThrow();
    try (FlightSqlClient client = new FlightSqlClient(flight)) {
      final FlightSqlClient.PreparedStatement prepared = client.prepare("select n_name from nation", token);
      final FlightInfo first = prepared.execute(token);
      assertEquals(25, drain(client, first, token));
      assertEquals(CancelStatus.NOT_CANCELLABLE,
          client.cancelFlightInfo(new CancelFlightInfoRequest(first), token).getStatus());
      assertEquals(25, drain(client, prepared.execute(token), token));
      prepared.close(token);
    }
    assertEquals(0, endpoint.openStatements(), "statements left open on the server");
  }

  @Test
  void anotherUsersTicketIsNotFound() throws Exception {
    final FlightClient bobsFlight = flightClient();
    final CredentialCallOption bob = bobsFlight.authenticateBasicToken("bob", "builder").orElseThrow();
    final FlightClient alicesFlight = flightClient();
    final CredentialCallOption alice = alicesFlight.authenticateBasicToken("alice", "wonderland").orElseThrow();
    try (FlightSqlClient bobs = new FlightSqlClient(bobsFlight);
        FlightSqlClient alices = new FlightSqlClient(alicesFlight)) {
      final FlightInfo info = bobs.execute("select n_name from nation", bob);
      final FlightRuntimeException notHers = assertThrows(FlightRuntimeException.class,
          () -> drain(alices, info, alice));
      assertEquals(FlightStatusCode.NOT_FOUND, notHers.status().code(), notHers.toString());
      assertEquals(25, drain(bobs, info, bob));
    }
  }

  @Test
  void typeInfoListsTheEmbeddedDriversTypes() throws Exception {
    final FlightClient flight = flightClient();
    final CredentialCallOption token = flight.authenticateBasicToken("bob", "builder").orElseThrow();
    final List<String> expected = new java.util.ArrayList<>();
    try (Connection embedded = TpchTestData.embedded(); ResultSet types = embedded.getMetaData().getTypeInfo()) {
      while (types.next()) {
        expected.add(types.getString("TYPE_NAME") + " " + types.getInt("DATA_TYPE"));
      }
    }
    final List<String> actual = new java.util.ArrayList<>();
    try (FlightSqlClient client = new FlightSqlClient(flight);
        FlightStream stream = client.getStream(
            client.getXdbcTypeInfo(token).getEndpoints().get(0).getTicket(), token)) {
      while (stream.next()) {
        final var root = stream.getRoot();
        for (int row = 0; row < root.getRowCount(); row++) {
          actual.add(root.getVector("type_name").getObject(row) + " " + root.getVector("data_type").getObject(row));
        }
      }
    }
    assertTrue(actual.contains("DECIMAL " + java.sql.Types.DECIMAL), actual.toString());
    assertEquals(expected, actual);
  }

  @Test
  void unfetchedTicketIsDroppedWithItsStatement() throws Exception {
    final FlightClient flight = flightClient();
    final CredentialCallOption token = flight.authenticateBasicToken("bob", "builder").orElseThrow();
    try (FlightSqlClient client = new FlightSqlClient(flight)) {
      final FlightInfo info = client.execute("select count(*) from nation", token);
      assertEquals(1, endpoint.openStatements());
      endpoint.dropUnfetched(Duration.ZERO);
      assertEquals(0, endpoint.openStatements());
      final FlightRuntimeException gone = assertThrows(FlightRuntimeException.class,
          () -> drain(client, info, token));
      assertEquals(FlightStatusCode.NOT_FOUND, gone.status().code(), gone.toString());
    }
  }

  /** Reads every batch of the info's stream; returns the row count. */
  private static long drain(FlightSqlClient client, FlightInfo info,
      org.apache.arrow.flight.CallOption... options) {
    long rows = 0;
    try (FlightStream stream = client.getStream(info.getEndpoints().get(0).getTicket(), options)) {
      while (stream.next()) {
        rows += stream.getRoot().getRowCount();
      }
    } catch (FlightRuntimeException e) {
      throw e;
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
    return rows;
  }

  /**
   * The server command stops the endpoint from an interrupted thread: close still waits until the server terminated
   * (the port refuses connections once it returns) and keeps the interrupt.
   */
  @Test
  void closingOnAnInterruptedThreadFreesThePortAndKeepsTheInterrupt() throws Exception {
    final FlightSqlEndpoint closing = FlightSqlEndpoint.start(ServerConfig.of(TpchTestData.dataDir()), 0);
    final int port = closing.port();
    new java.net.Socket("127.0.0.1", port).close();
    Thread.currentThread().interrupt();
    try {
      closing.close();
    } finally {
      assertTrue(Thread.interrupted(), "the interrupt was lost");
    }
    assertThrows(java.net.ConnectException.class, () -> new java.net.Socket("127.0.0.1", port).close());
  }

  @Test
  void nonLoopbackHostWithoutUsersRefusesToStartAsAvaticaDoes() {
    final java.io.IOException refused = assertThrows(java.io.IOException.class,
        () -> FlightSqlEndpoint.start(ServerConfig.of(TpchTestData.dataDir()).withHost("0.0.0.0"), 0).close());
    assertTrue(refused.getMessage().contains("Refusing to serve 0.0.0.0 without authentication"),
        refused.getMessage());
  }

  @Test
  void writesRunOnlyWhenTheServerAllowsThem() throws Exception {
    final Path catalog = Files.createDirectory(dir.resolve("writable"));
    try (FlightSqlEndpoint writable = FlightSqlEndpoint.start(
        ServerConfig.of(catalog).withAllowWrites(true), 0)) {
      try (Connection connection = DriverManager.getConnection(writable.jdbcUrl());
          Statement statement = connection.createStatement()) {
        statement.executeUpdate("create table kept as select * from (values (1, 'a'), (2, 'b')) as v(x, y)");
        assertEquals(2, count(connection, "select count(*) from kept"));
      }
      assertEquals(0, writable.openStatements(), "statements left open on the server");
    }
  }
}
