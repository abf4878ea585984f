package org.spillway.adapter.server;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import org.apache.calcite.avatica.remote.Driver.Serialization;
import org.spillway.adapter.SpillwayOptions;
import org.spillway.gpu.device.DeviceAllocator;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** The {@code spillway server} subcommand: serves a catalog over Avatica until interrupted. */
@Command(name = "server", mixinStandardHelpOptions = true,
    description = "Serve a Spillway catalog to remote JDBC clients and BI tools (Avatica over HTTP,"
        + " Arrow Flight SQL over gRPC).")
public final class ServerCommand implements Callable<Integer> {
  @Spec
  CommandSpec spec;

  @Option(names = {"-d", "--data-dir"}, required = true, description = "Spillway catalog directory.")
  Path dataDir;

  @Option(names = "--host", defaultValue = ServerConfig.DEFAULT_HOST,
      description = "Address to bind (default: ${DEFAULT-VALUE}; 0.0.0.0 exposes all interfaces and"
          + " needs --users or --allow-anonymous).")
  String host;

  @Option(names = "--port",
      description = "Avatica (HTTP) TCP port (default: " + ServerConfig.DEFAULT_PORT + ", unless only"
          + " --flight-sql-port is given); 0 picks a free port and prints it.")
  Integer port;

  @Option(names = "--flight-sql-port", paramLabel = "N",
      description = "Also (or, without --port, only) serve Arrow Flight SQL on TCP port N, with the same"
          + " users, limits and read-only default; 0 picks a free port and prints it.")
  Integer flightSqlPort;

  @Option(names = "--serialization", defaultValue = "protobuf",
      description = "Wire format: protobuf or json (default: ${DEFAULT-VALUE}); clients must match.")
  String serialization;

  @Option(names = "--users", paramLabel = "FILE",
      description = "Enable HTTP BASIC authentication with users from FILE ('user: password' lines;"
          + " write salted hashes with 'spillway users add').")
  Path usersFile;

  @Option(names = "--allow-anonymous",
      description = "Serve a non-loopback --host without --users (anyone who reaches it may query).")
  boolean allowAnonymous;

  @Option(names = "--max-request-size", defaultValue = "16m", paramLabel = "SIZE",
      description = "Refuse HTTP request bodies larger than SIZE with 413 (default: ${DEFAULT-VALUE}).")
  String maxRequestSize;

  @Option(names = "--allow-writes",
      description = "Execute statements other than queries and metadata (default: read-only).")
  boolean allowWrites;

  @Option(names = "--max-concurrent", defaultValue = "" + ServerConfig.DEFAULT_MAX_CONCURRENT,
      description = "Statements executing at once (default: ${DEFAULT-VALUE}).")
  int maxConcurrent;

  @Option(names = "--admission-wait", defaultValue = "30", paramLabel = "SECONDS",
      description = "How long an excess statement waits for a slot before it is refused"
          + " (default: ${DEFAULT-VALUE}).")
  double admissionWaitSeconds;

  @Option(names = "--query-timeout", defaultValue = "0", paramLabel = "SECONDS",
      description = "Cancel statements running longer than this; 0 = no limit (default).")
  double queryTimeoutSeconds;

  @Option(names = "--gpu-cache", paramLabel = "SIZE",
      description = "Keep hot columns in GPU memory for every client, up to SIZE (e.g. 40g; off: stream every"
          + " run); the connection property gpuCache of the served connections (default: off).")
  String gpuCache;

  @Override
  public Integer call() throws Exception {
    final ServerConfig config = toConfig();
    final PrintWriter out = spec.commandLine().getOut();
    final AdmissionControl admission = new AdmissionControl(config.maxConcurrent(), config.admissionWait());
    final QueryLog queryLog = new QueryLog();
    final SpillwayServer server = servesAvatica() ? SpillwayServer.start(config, admission, queryLog) : null;
    final FlightSqlEndpoint flightSql;
    try {
      flightSql = flightSqlPort == null ? null
          : FlightSqlEndpoint.start(config, flightSqlPort, admission, queryLog);
    } catch (IOException | SQLException | RuntimeException e) {
      if (server != null) {
        server.close();
      }
      throw e;
    }
    final Runnable stop = () -> {
      try {
        if (flightSql != null) {
          flightSql.close();
        }
      } finally {
        if (server != null) {
          server.close();
        }
      }
    };
    final Thread stopOnExit = new Thread(stop, "spillway-server-stop");
    Runtime.getRuntime().addShutdownHook(stopOnExit);
    try {
      // Scripts that pass port 0 read the bound ports from these lines.
      if (server != null) {
        out.println("Spillway server listening on " + server.httpUrl() + " (port " + server.port() + ")");
        out.println("Connect with: " + server.jdbcUrl()
            + (config.usersFile() == null ? "" : ";avatica_user=USER;avatica_password=PASSWORD"));
      }
      if (flightSql != null) {
        out.println("Spillway Flight SQL listening on " + config.host() + " (port " + flightSql.port() + ")");
        out.println("Connect with: " + flightSql.jdbcUrl()
            + (config.usersFile() == null ? "" : "&user=USER&password=PASSWORD"));
      }
      out.flush();
      if (server != null) {
        server.join();
      } else {
        flightSql.join();
      }
    } finally {
      stop.run();
      try {
        Runtime.getRuntime().removeShutdownHook(stopOnExit);
      } catch (IllegalStateException shuttingDown) {
        // The JVM is exiting and the hook is closing the server already.
      }
    }
    return 0;
  }

  /** Avatica is served unless only --flight-sql-port was given. */
  boolean servesAvatica() {
    return port != null || flightSqlPort == null;
  }

  /** The configuration these options describe; invalid values fail with the option named. */
  ServerConfig toConfig() {
    if (admissionWaitSeconds < 0) {
      throw new ParameterException(spec.commandLine(),
          "--admission-wait must not be negative, got " + admissionWaitSeconds);
    }
    if (queryTimeoutSeconds < 0) {
      throw new ParameterException(spec.commandLine(),
          "--query-timeout must not be negative, got " + queryTimeoutSeconds);
    }
    if (maxConcurrent < 1) {
      throw new ParameterException(spec.commandLine(),
          "--max-concurrent must be at least 1, got " + maxConcurrent);
    }
    if (flightSqlPort != null && (flightSqlPort < 0 || flightSqlPort > 65535)) {
      throw new ParameterException(spec.commandLine(),
          "--flight-sql-port must be in 0..65535, got " + flightSqlPort);
    }
    ServerConfig config = new ServerConfig(dataDir, host, port == null ? ServerConfig.DEFAULT_PORT : port,
        serialization(), usersFile, allowWrites,
        maxConcurrent, seconds(admissionWaitSeconds), seconds(queryTimeoutSeconds), Map.of(),
        allowAnonymous, maxRequestBytes());
    if (gpuCache != null) {
      try {
        SpillwayOptions.parse(null, null, null, gpuCache);
      } catch (IllegalArgumentException e) {
        throw new ParameterException(spec.commandLine(), "--gpu-cache: " + e.getMessage());
      }
      config = config.withConnectionProperty("gpuCache", gpuCache);
    }
    return config;
  }

  private long maxRequestBytes() {
    try {
      return DeviceAllocator.parseBytes("--max-request-size", maxRequestSize);
    } catch (IllegalArgumentException e) {
      throw new ParameterException(spec.commandLine(), e.getMessage());
    }
  }

  private Serialization serialization() {
    switch (serialization.toLowerCase(Locale.ROOT)) {
      case "protobuf":
        return Serialization.PROTOBUF;
      case "json":
        return Serialization.JSON;
      default:
        throw new ParameterException(spec.commandLine(),
            "--serialization must be protobuf or json, got '" + serialization + "'");
    }
  }

  private static Duration seconds(double seconds) {
    return Duration.ofNanos(Math.round(seconds * 1e9));
  }
}
