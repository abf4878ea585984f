package org.spillway.adapter.server;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Driver;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.ServiceLoader;
import java.util.concurrent.Callable;
import org.apache.arrow.flight.FlightClient;
import org.apache.arrow.flight.FlightEndpoint;
import org.apache.arrow.flight.FlightInfo;
import org.apache.arrow.flight.FlightStream;
import org.apache.arrow.flight.Location;
import org.apache.arrow.flight.sql.FlightSqlClient;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.spillway.gpu.bench.BenchReport;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * Rows per second of one large result ({@code SELECT * FROM lineitem} by default) from one server process over
 * each remote protocol: Avatica protobuf through its JDBC driver, Flight SQL through Arrow's FlightSqlClient
 * (Arrow batches, what ADBC and pyarrow clients see) and, where it is on the class path, through the Flight SQL
 * JDBC driver, each with the server filling its record batches from the engine's columns and from JDBC rows
 * ({@link FlightSqlBatches#COLUMNAR_PROPERTY}). JDBC clients read every column of every row; the Arrow client
 * receives whole batches.
 */
@Command(name = "flight-sql-benchmark", mixinStandardHelpOptions = true,
    description = "Rows/s of a large result over Avatica protobuf and Arrow Flight SQL.")
public final class FlightSqlBenchmark implements Callable<Integer> {
  private static final String FLIGHT_SQL_JDBC_PREFIX = "jdbc:arrow-flight-sql:";

  @Option(names = "--data-dir", required = true, description = "Spillway catalog to serve.")
  Path dataDir;

  @Option(names = "--query", defaultValue = "select * from lineitem",
      description = "The query (default: ${DEFAULT-VALUE}).")
  String query;

  @Option(names = "--runs", defaultValue = "3",
      description = "Measured runs per client, after one unmeasured warm-up run (default: ${DEFAULT-VALUE}).")
  int runs;

  @Option(names = "--avatica-fetch-sizes", split = ",", defaultValue = "0,10000",
      description = "Avatica frame sizes to measure; 0 is the driver's default (default: ${DEFAULT-VALUE}).")
  int[] avaticaFetchSizes;

  @Option(names = "--skip-avatica", description = "Measure Flight SQL only.")
  boolean skipAvatica;

  @Option(names = "--flight-paths", split = ",", defaultValue = "columnar,rows",
      description = "How the server fills Flight SQL record batches, each measured in turn: columnar (from the"
          + " engine's columns where a Spillway node tops the plan) and rows (from the JDBC result set)"
          + " (default: ${DEFAULT-VALUE}).")
  List<String> flightPaths;

  @Option(names = "--csv", defaultValue = "flight-sql-vs-avatica.csv",
      description = "CSV output file (default: ${DEFAULT-VALUE}).")
  Path csv;

  /** One way of reading the result: returns the rows it read. */
  @FunctionalInterface
  private interface Client {
    long read() throws Exception;
  }

  /** The measured runs of one client. */
  record Measured(String client, long rows, double bestSeconds, double medianSeconds) {
    double rowsPerSecond() {
      return rows / medianSeconds;
    }
  }

  @Override
  public Integer call() throws Exception {
    final PrintStream out = System.out;
    final List<Measured> results = new ArrayList<>();
    final ServerConfig config = ServerConfig.of(dataDir).withPort(0);
    try (SpillwayServer avatica = SpillwayServer.start(config);
        FlightSqlEndpoint flightSql = FlightSqlEndpoint.start(config, 0);
        BufferAllocator allocator = new RootAllocator()) {
      out.printf(Locale.ROOT, "query: %s%nAvatica %s, Flight SQL port %d, %d CPUs, %d runs after a warm-up%n",
          query, avatica.httpUrl(), flightSql.port(), Runtime.getRuntime().availableProcessors(), runs);
      for (int fetchSize : skipAvatica ? new int[0] : avaticaFetchSizes) {
        results.add(measure("Avatica protobuf, JDBC, fetch size "
            + (fetchSize == 0 ? "default" : String.valueOf(fetchSize)),
            () -> readJdbc(avatica.jdbcUrl(), fetchSize), out));
      }
      final boolean jdbcDriver = flightSqlJdbcDriverPresent();
      if (!jdbcDriver) {
        out.println("(the Flight SQL JDBC driver is not on the class path: its rows are left out)");
      }
      final String previous = System.getProperty(FlightSqlBatches.COLUMNAR_PROPERTY);
      try {
        for (String path : flightPaths) {
          System.setProperty(FlightSqlBatches.COLUMNAR_PROPERTY, String.valueOf(columnarPath(path)));
          results.add(measure("Flight SQL, FlightSqlClient (Arrow batches), " + path + " path",
              () -> readArrow(allocator, flightSql.port()), out));
          if (jdbcDriver) {
            results.add(measure("Flight SQL, Flight SQL JDBC driver, " + path + " path",
                () -> readJdbc(flightSql.jdbcUrl(), 0), out));
          }
        }
      } finally {
        if (previous == null) {
          System.clearProperty(FlightSqlBatches.COLUMNAR_PROPERTY);
        } else {
          System.setProperty(FlightSqlBatches.COLUMNAR_PROPERTY, previous);
        }
      }
    }
    final BenchReport report = new BenchReport("Rows/s of '" + query + "' from " + dataDir.getFileName()
        + ", median of " + runs + " runs", List.of("client", "rows", "median_s", "best_s", "rows_per_s"));
    for (Measured m : results) {
      report.row(m.client(), m.rows(), m.medianSeconds(), m.bestSeconds(), m.rowsPerSecond());
    }
    out.println();
    out.print(report.toTable());
    final Path parent = csv.toAbsolutePath().getParent();
    if (parent != null) {
      Files.createDirectories(parent);
    }
    report.writeCsv(csv);
    out.println("CSV written to " + csv.toAbsolutePath());
    return 0;
  }

  private static boolean columnarPath(String path) {
    return switch (path) {
      case "columnar" -> true;
      case "rows" -> false;
      default -> throw new IllegalArgumentException("--flight-paths takes columnar and rows, not " + path);
    };
  }

  private Measured measure(String name, Client client, PrintStream out) throws Exception {
    final long rows = client.read();
    final double[] seconds = new double[runs];
    for (int r = 0; r < runs; r++) {
      final long start = System.nanoTime();
      final long read = client.read();
      seconds[r] = (System.nanoTime() - start) / 1e9;
      if (read != rows) {
        throw new IllegalStateException(name + ": run " + r + " read " + read + " rows, the warm-up " + rows);
      }
    }
    final double[] sorted = seconds.clone();
    Arrays.sort(sorted);
    final Measured measured = new Measured(name, rows, sorted[0], sorted[sorted.length / 2]);
    out.printf(Locale.ROOT, "  %-50s %,12d rows  median %7.2f s  %,12.0f rows/s%n", name, rows,
        measured.medianSeconds(), measured.rowsPerSecond());
    return measured;
  }

  private long readJdbc(String url, int fetchSize) throws SQLException {
    long rows = 0;
    try (Connection connection = DriverManager.getConnection(url);
        Statement statement = connection.createStatement()) {
      if (fetchSize > 0) {
        statement.setFetchSize(fetchSize);
      }
      try (ResultSet resultSet = statement.executeQuery(query)) {
        final int columns = resultSet.getMetaData().getColumnCount();
        while (resultSet.next()) {
          for (int c = 1; c <= columns; c++) {
            resultSet.getObject(c);
          }
          rows++;
        }
      }
    }
    return rows;
  }

  private long readArrow(BufferAllocator allocator, int port) throws Exception {
    long rows = 0;
    try (FlightSqlClient client = new FlightSqlClient(
        FlightClient.builder(allocator, Location.forGrpcInsecure("127.0.0.1", port)).build())) {
      final FlightInfo info = client.execute(query);
      for (FlightEndpoint endpoint : info.getEndpoints()) {
        try (FlightStream stream = client.getStream(endpoint.getTicket())) {
          while (stream.next()) {
            rows += stream.getRoot().getRowCount();
          }
        }
      }
    }
    return rows;
  }

  private static boolean flightSqlJdbcDriverPresent() {
    for (Driver driver : ServiceLoader.load(Driver.class)) {
      try {
        if (driver.acceptsURL(FLIGHT_SQL_JDBC_PREFIX + "//127.0.0.1:1")) {
          return true;
        }
      } catch (SQLException e) {
        // not this one
      }
    }
    return false;
  }

  public static void main(String[] args) throws IOException {
    System.exit(new CommandLine(new FlightSqlBenchmark()).execute(args));
  }
}
