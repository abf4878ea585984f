package org.spillway.adapter.server;

import java.io.IOException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.arrow.flight.CallStatus;
import org.apache.arrow.flight.FlightServer;
import org.apache.arrow.flight.Location;
import org.apache.arrow.flight.auth2.BasicCallHeaderAuthenticator;
import org.apache.arrow.flight.auth2.CallHeaderAuthenticator;
import org.apache.arrow.flight.auth2.GeneratedBearerTokenAuthenticator;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.eclipse.jetty.server.UserIdentity;

/**
 * The Arrow Flight SQL endpoint of {@code spillway server --flight-sql-port N}: gRPC on the configured host
 * (loopback by default), with the Avatica server's users file, read-only default, concurrency limit and query
 * timeout. Clients authenticate with BASIC username and password as Flight SQL clients send them, and get a
 * bearer token for the calls that follow.
 */
public final class FlightSqlEndpoint implements AutoCloseable {
  /** How long a stop waits for running calls before it cuts them off. */
  private static final long SHUTDOWN_WAIT_SECONDS = 5;

  private final ServerConfig config;
  private final BufferAllocator allocator;
  private final SpillwayFlightSqlProducer producer;
  private final FlightServer server;
  private final AtomicBoolean closed = new AtomicBoolean();

  private FlightSqlEndpoint(ServerConfig config, BufferAllocator allocator, SpillwayFlightSqlProducer producer,
      FlightServer server) {
    this.config = config;
    this.allocator = allocator;
    this.producer = producer;
    this.server = server;
  }

  /** Starts an endpoint on {@code port} (0: a free one) with its own concurrency limit and query log. */
  public static FlightSqlEndpoint start(ServerConfig config, int port) throws IOException, SQLException {
    return start(config, port, new AdmissionControl(config.maxConcurrent(), config.admissionWait()),
        new QueryLog());
  }

  /**
   * Checks the configuration as the Avatica server does, opens the catalog once (a bad data directory fails
   * here), and starts listening on {@code port}; {@code admission} and {@code queryLog} may be the Avatica
   * server's, so that the limit covers both protocols.
   */
  public static FlightSqlEndpoint start(ServerConfig config, int port, AdmissionControl admission,
      QueryLog queryLog) throws IOException, SQLException {
    if (port < 0 || port > 65535) {
      throw new IllegalArgumentException("Flight SQL port must be in 0..65535, got " + port);
    }
    ServerSecurity.checkAtStartup(config);
    final Properties driverInfo = SpillwayServer.embeddedProperties(config);
    try (Connection probe = DriverManager.getConnection(SpillwayServer.EMBEDDED_URL, driverInfo)) {
      probe.getMetaData();
    }
    final BufferAllocator allocator = new RootAllocator();
    final SpillwayFlightSqlProducer producer = new SpillwayFlightSqlProducer(SpillwayServer.EMBEDDED_URL,
        driverInfo, config, admission, queryLog, allocator);
    final FlightServer.Builder builder = FlightServer.builder(allocator,
            Location.forGrpcInsecure(config.host(), port), producer)
        .maxInboundMessageSize((int) Math.min(config.maxRequestBytes(), Integer.MAX_VALUE));
    if (config.usersFile() != null) {
      builder.headerAuthenticator(authenticator(new UsersLoginService(config.usersFile())));
    }
    final FlightServer server = builder.build();
    try {
      server.start();
    } catch (IOException | RuntimeException e) {
      producer.close();
      allocator.close();
      throw new IOException("Cannot start the Spillway Flight SQL endpoint on " + config.host() + ":" + port
          + ": " + DriverStatements.rootMessage(e), e);
    }
    return new FlightSqlEndpoint(config, allocator, producer, server);
  }

  /**
   * BASIC credentials checked against the users file (salted hashes and Jetty's encodings alike, each failure
   * logged), then a bearer token for the rest of the client's calls.
   */
  static CallHeaderAuthenticator authenticator(UsersLoginService users) {
    final BasicCallHeaderAuthenticator.CredentialValidator validator = (user, password) -> {
      final UserIdentity identity = users.login(user, password, null);
      if (identity == null) {
        throw CallStatus.UNAUTHENTICATED.withDescription("Spillway refused the login: wrong password or"
            + " unknown user").toRuntimeException();
      }
      final String name = identity.getUserPrincipal().getName();
      return () -> name;
    };
    return new GeneratedBearerTokenAuthenticator(new BasicCallHeaderAuthenticator(validator));
  }

  /** The port actually bound (the chosen one when the configuration said 0). */
  public int port() {
    return server.getPort();
  }

  /** The Flight SQL JDBC driver's URL for this endpoint, without credentials. */
  public String jdbcUrl() {
    final String host = config.host().contains(":") ? "[" + config.host() + "]" : config.host();
    return "jdbc:arrow-flight-sql://" + host + ":" + port() + "/?useEncryption=false";
  }

  /** Statements open now; for tests that check nothing is left behind. */
  int openStatements() {
    return producer.openStatements();
  }

  /** Waits up to the shutdown wait for the server to terminate, through interrupts. */
  private boolean awaitTermination() throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(SHUTDOWN_WAIT_SECONDS);
    while (true) {
      try {
        return server.awaitTermination(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
      } catch (InterruptedException e) {
        if (System.nanoTime() >= deadline) {
          throw e;
        }
      }
    }
  }

  /** Drops the statement queries whose tickets were not fetched within {@code lifetime} (tests; a timer does it). */
  void dropUnfetched(Duration lifetime) {
    producer.dropUnfetched(lifetime);
  }

  /** Blocks until the endpoint stops. */
  public void join() throws InterruptedException {
    server.awaitTermination();
  }

  /** Stops listening, waits briefly for running calls, then closes every statement; idempotent. */
  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    // An interrupt (how the server command stops) must not cut the wait short: the port is free only once the
    // server terminated. The interrupt is kept for the caller.
    boolean interrupted = Thread.interrupted();
    try {
      server.shutdown();
      if (!awaitTermination()) {
        server.close();
      }
    } catch (InterruptedException e) {
      interrupted = true;
    } finally {
      producer.close();
      allocator.close();
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
