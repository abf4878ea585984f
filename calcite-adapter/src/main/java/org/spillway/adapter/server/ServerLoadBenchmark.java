package org.spillway.adapter.server;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.spillway.gpu.bench.BenchReport;
import org.spillway.tpch.TpchQueries;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * Load benchmark of the Avatica server: remote clients run a TPC-H mix for a fixed time at each
 * concurrency level; reports queries/s and latency percentiles as a table, a CSV file and a chart.
 */
@Command(name = "server-load-benchmark", mixinStandardHelpOptions = true,
    description = "Queries/s and latency percentiles of the Spillway server under concurrent clients.")
public final class ServerLoadBenchmark implements Callable<Integer> {
  @Option(names = "--data-dir", required = true, description = "Spillway catalog to serve.")
  Path dataDir;

  @Option(names = "--clients", split = ",", defaultValue = "1,4,16",
      description = "Concurrency levels (default: ${DEFAULT-VALUE}).")
  int[] clientCounts;

  @Option(names = "--seconds", defaultValue = "30",
      description = "Measured seconds per level (default: ${DEFAULT-VALUE}).")
  int seconds;

  @Option(names = "--warmup-seconds", defaultValue = "5",
      description = "Unmeasured seconds before each level (default: ${DEFAULT-VALUE}).")
  int warmupSeconds;

  @Option(names = "--queries", split = ",", defaultValue = "1,3,6,10,12,14",
      description = "TPC-H query numbers of the mix (default: ${DEFAULT-VALUE}).")
  int[] queries;

  @Option(names = "--csv", defaultValue = "server-load.csv",
      description = "CSV output file (default: ${DEFAULT-VALUE}).")
  Path csv;

  @Option(names = "--png", defaultValue = "server-load.png",
      description = "Bar chart of queries/s per level (default: ${DEFAULT-VALUE}).")
  Path png;

  /** One measured concurrency level. */
  record Level(int clients, double seconds, long queries, long errors, double p50Millis,
      double p95Millis, double p99Millis) {
    double queriesPerSecond() {
      return queries / seconds;
    }
  }

  @Override
  public Integer call() throws Exception {
    final PrintStream out = System.out;
    final List<Level> levels = new ArrayList<>();
    try (SpillwayServer server =
        SpillwayServer.start(ServerConfig.of(dataDir).withPort(0).withAdmission(
            Arrays.stream(clientCounts).max().orElse(1), ServerConfig.DEFAULT_ADMISSION_WAIT))) {
      out.printf(Locale.ROOT, "server %s, mix Q%s, %d s per level (+%d s warm-up), %d CPUs%n",
          server.httpUrl(), Arrays.toString(queries), seconds, warmupSeconds,
          Runtime.getRuntime().availableProcessors());
      for (int clients : clientCounts) {
        runLevel(server.jdbcUrl(), clients, warmupSeconds);
        final Level level = runLevel(server.jdbcUrl(), clients, seconds);
        levels.add(level);
        out.printf(Locale.ROOT, "  %2d clients: %8.1f q/s  p50 %8.1f ms  p95 %8.1f ms"
            + "  p99 %8.1f ms  errors %d%n", level.clients(), level.queriesPerSecond(),
            level.p50Millis(), level.p95Millis(), level.p99Millis(), level.errors());
      }
    }
    final BenchReport report = report(levels);
    out.println();
    out.print(report.toTable());
    createParent(csv);
    report.writeCsv(csv);
    createParent(png);
    report.writeBarChart(png, "clients", "queries_per_s", "queries/s", 0, "");
    out.println("CSV written to " + csv.toAbsolutePath() + ", chart to " + png.toAbsolutePath());
    return levels.stream().anyMatch(level -> level.errors() > 0) ? 1 : 0;
  }

  private Level runLevel(String url, int clients, int runSeconds) throws Exception {
    final ExecutorService pool = Executors.newFixedThreadPool(clients);
    final long start = System.nanoTime();
    final long deadline = start + TimeUnit.SECONDS.toNanos(runSeconds);
    final List<Future<ClientResult>> futures = new ArrayList<>();
    for (int c = 0; c < clients; c++) {
      final int client = c;
      futures.add(pool.submit(() -> runClient(url, client, deadline)));
    }
    final List<Long> latencies = new ArrayList<>();
    long errors = 0;
    for (Future<ClientResult> future : futures) {
      final ClientResult result = future.get();
      latencies.addAll(result.latenciesNanos());
      errors += result.errors();
    }
    final double elapsed = (System.nanoTime() - start) / 1e9;
    pool.shutdown();
    final long[] sorted = latencies.stream().mapToLong(Long::longValue).sorted().toArray();
    return new Level(clients, elapsed, sorted.length, errors, percentileMillis(sorted, 0.50),
        percentileMillis(sorted, 0.95), percentileMillis(sorted, 0.99));
  }

  private record ClientResult(List<Long> latenciesNanos, long errors) {}

  private ClientResult runClient(String url, int client, long deadline) throws SQLException {
    final List<Long> latencies = new ArrayList<>();
    long errors = 0;
    try (Connection connection = DriverManager.getConnection(url)) {
      for (int i = client; System.nanoTime() < deadline; i++) {
        final String sql = TpchQueries.sql(queries[i % queries.length]);
        final long begin = System.nanoTime();
        try (Statement statement = connection.createStatement();
            ResultSet resultSet = statement.executeQuery(sql)) {
          while (resultSet.next()) {
            resultSet.getObject(1);
          }
          latencies.add(System.nanoTime() - begin);
        } catch (SQLException e) {
          if (errors++ == 0) {
            System.err.println("client " + client + ": " + e.getMessage());
          }
        }
      }
    }
    return new ClientResult(latencies, errors);
  }

  /** Nearest-rank percentile. */
  static double percentileMillis(long[] sortedNanos, double fraction) {
    if (sortedNanos.length == 0) {
      return Double.NaN;
    }
    final int rank = (int) Math.ceil(fraction * sortedNanos.length);
    return sortedNanos[Math.max(0, rank - 1)] / 1e6;
  }

  private BenchReport report(List<Level> levels) {
    final BenchReport report = new BenchReport("Spillway server load: TPC-H Q"
        + Arrays.toString(queries) + " from " + dataDir.getFileName() + ", " + seconds + " s per level",
        List.of("clients", "queries_per_s", "p50_ms", "p95_ms", "p99_ms", "queries", "errors"));
    for (Level level : levels) {
      report.row(level.clients() + " clients", level.queriesPerSecond(), level.p50Millis(),
          level.p95Millis(), level.p99Millis(), level.queries(), level.errors());
    }
    return report;
  }

  private static void createParent(Path file) throws IOException {
    final Path parent = file.toAbsolutePath().getParent();
    if (parent != null) {
      Files.createDirectories(parent);
    }
  }

  public static void main(String[] args) {
    System.exit(new CommandLine(new ServerLoadBenchmark()).execute(args));
  }
}
