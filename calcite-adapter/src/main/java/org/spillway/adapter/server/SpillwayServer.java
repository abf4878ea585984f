package org.spillway.adapter.server;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.List;
import java.util.Locale;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.calcite.avatica.remote.Driver.Serialization;
import org.apache.calcite.avatica.server.AvaticaHandler;
import org.apache.calcite.avatica.server.HandlerFactory;
import org.apache.calcite.avatica.server.HttpServer;
import org.apache.calcite.avatica.server.ServerCustomizer;
import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;

/** An Avatica HTTP server that serves one Spillway catalog to remote JDBC clients and BI tools. */
public final class SpillwayServer implements AutoCloseable {
  /** The embedded driver's URL prefix; the data directory travels in the Properties, unescaped. */
  static final String EMBEDDED_URL = "jdbc:spillway:";

  private final ServerConfig config;
  private final GuardedJdbcMeta meta;
  private final HttpServer httpServer;
  private final AdmissionControl admission;
  private final QueryLog queryLog;
  private final AtomicBoolean closed = new AtomicBoolean();

  private SpillwayServer(ServerConfig config, GuardedJdbcMeta meta, HttpServer httpServer,
      AdmissionControl admission, QueryLog queryLog) {
    this.config = config;
    this.meta = meta;
    this.httpServer = httpServer;
    this.admission = admission;
    this.queryLog = queryLog;
  }

  /**
   * Checks the configuration, opens the catalog once (so a bad data directory fails here, not at the
   * first client), and starts listening.
   */
  public static SpillwayServer start(ServerConfig config) throws IOException, SQLException {
    return start(config, new AdmissionControl(config.maxConcurrent(), config.admissionWait()), new QueryLog());
  }

  /**
   * Starts a server whose statements take their slots from {@code admission} and are logged to {@code queryLog}:
   * the Flight SQL endpoint's, when both protocols are served, so that the limit covers both.
   */
  public static SpillwayServer start(ServerConfig config, AdmissionControl admission, QueryLog queryLog)
      throws IOException, SQLException {
    ServerSecurity.checkAtStartup(config);
    final Properties driverInfo = embeddedProperties(config);
    try (Connection probe = DriverManager.getConnection(EMBEDDED_URL, driverInfo)) {
      probe.getMetaData();
    }
    final GuardedJdbcMeta meta = new GuardedJdbcMeta(EMBEDDED_URL, driverInfo,
        config.allowWrites(), config.queryTimeout(), admission, queryLog);
    final AvaticaHandler avaticaHandler =
        new HandlerFactory().getHandler(ClientErrorService.wrap(new OwnershipCheckingService(meta)),
            config.serialization());
    final HttpServer.Builder<Server> builder = HttpServer.Builder.<Server>newBuilder()
        .withPort(config.port())
        .withHandler(new RemoteUserHandler(avaticaHandler))
        .withServerCustomizers(
            List.of(bindTo(config.host()), ServerSecurity.handlers(config)), Server.class);
    final HttpServer httpServer = builder.build();
    try {
      httpServer.start();
    } catch (RuntimeException e) {
      meta.closeAll();
      // Suppressed, not the cause: command lines print the root cause, and this message is the
      // one that says which address could not be bound.
      final IOException failure = new IOException("Cannot start the Spillway server on "
          + config.host() + ":" + config.port() + ": " + DriverStatements.rootMessage(e));
      failure.addSuppressed(e);
      throw failure;
    }
    return new SpillwayServer(config, meta, httpServer, admission, queryLog);
  }

  /** Driver properties of the served connections; the same ones embedded clients would pass. */
  static Properties embeddedProperties(ServerConfig config) throws IOException {
    final Path dataDir = config.dataDir();
    if (!Files.isDirectory(dataDir)) {
      throw new IOException("data directory " + dataDir.toAbsolutePath()
          + " does not exist or is not a directory");
    }
    final Properties info = new Properties();
    config.connectionProperties().forEach(info::setProperty);
    info.setProperty("dataDir", dataDir.toAbsolutePath().toString());
    return info;
  }

  /** Jetty binds every interface unless told a host; the customizer runs before the bind. */
  private static ServerCustomizer<Server> bindTo(String host) {
    return server -> {
      for (Connector connector : server.getConnectors()) {
        if (connector instanceof ServerConnector) {
          ((ServerConnector) connector).setHost(host);
        }
      }
    };
  }

  /** The port actually bound (the chosen one when the configuration said 0). */
  public int port() {
    return httpServer.getPort();
  }

  public ServerConfig config() {
    return config;
  }

  /** The URL of the HTTP endpoint, e.g. {@code http://127.0.0.1:8765}. */
  public String httpUrl() {
    final String host = config.host().contains(":") ? "[" + config.host() + "]" : config.host();
    return "http://" + host + ":" + port();
  }

  /** The Avatica remote JDBC URL clients use, without credentials. */
  public String jdbcUrl() {
    return "jdbc:avatica:remote:url=" + httpUrl() + ";serialization="
        + config.serialization().name().toLowerCase(Locale.ROOT)
        + (config.usersFile() == null ? "" : ";authentication=BASIC");
  }

  public QueryLog queryLog() {
    return queryLog;
  }

  public AdmissionControl admission() {
    return admission;
  }

  public GuardedJdbcMeta meta() {
    return meta;
  }

  /** Blocks until the server stops. */
  public void join() throws InterruptedException {
    httpServer.join();
  }

  /** Stops listening, then closes every client connection still open on the server; idempotent. */
  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    try {
      httpServer.stop();
    } finally {
      meta.closeAll();
    }
  }
}
