package org.spillway.tpch.bench;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;
import org.spillway.storage.Catalog;
import org.spillway.storage.imports.ImportOptions;
import org.spillway.storage.imports.ImportResult;
import org.spillway.storage.imports.TableImport;

/**
 * Parquet import speed against DuckDB's on the same file: TPC-H lineitem written by DuckDB as Parquet (its default
 * row groups, the given compression), then imported by Spillway ({@link TableImport}, all threads) and by DuckDB
 * ({@code CREATE TABLE AS SELECT * FROM read_parquet}, the same threads), best of {@code --reps}, in MB of Parquet
 * per second. DuckDB's JDBC driver must be on the class path.
 */
public final class ImportBenchmark {
  private ImportBenchmark() {}

  /** What one run measured: the file's size and rows, and the best time of each engine. */
  public record Result(long fileBytes, long spillwayRows, long duckDbRows, double spillwayMbPerSecond,
      double duckDbMbPerSecond) {}

  public static void main(String[] argv) throws Exception {
    BenchArgs args = BenchArgs.parse(argv, "ImportBenchmark");
    double sf = args.number("--sf", 1);
    int threads = (int) args.number("--threads", Runtime.getRuntime().availableProcessors());
    int reps = (int) args.number("--reps", 3);
    String compression = args.text("--compression", "snappy");
    Path dir = args.path("--dir", Path.of(System.getProperty("java.io.tmpdir"), "spillway-import-bench"));
    args.finish();
    run(sf, threads, reps, compression, dir, System.out);
  }

  /** Runs the benchmark in {@code dir} (its files are replaced) and prints one line per engine. */
  public static Result run(double sf, int threads, int reps, String compression, Path dir, PrintStream out)
      throws Exception {
    Files.createDirectories(dir);
    Path file = dir.resolve("lineitem-sf" + sf + "-" + compression + ".parquet");
    try (DuckDbTpchTables duckDb = DuckDbTpchTables.load(sf, threads, System.err)) {
      Connection connection = duckDb.connection();
      execute(connection, "COPY lineitem TO '" + file + "' (FORMAT PARQUET, COMPRESSION " + compression + ")");
      long bytes = Files.size(file);
      double spillwayBest = Double.MAX_VALUE;
      long spillwayRows = 0;
      for (int rep = 0; rep < reps; rep++) {
        Path data = dir.resolve("data");
        deleteRecursively(data);
        try (Catalog catalog = Catalog.create(data)) {
          ImportResult result = TableImport.run(catalog, "lineitem", List.of(file),
              ImportOptions.defaults().withThreads(threads));
          spillwayBest = Math.min(spillwayBest, result.nanos() / 1e9);
          spillwayRows = result.rows();
        }
      }
      deleteRecursively(dir.resolve("data"));
      double duckDbBest = Double.MAX_VALUE;
      long duckDbRows = 0;
      for (int rep = 0; rep < reps; rep++) {
        execute(connection, "DROP TABLE IF EXISTS imported");
        long start = System.nanoTime();
        execute(connection, "CREATE TABLE imported AS SELECT * FROM read_parquet('" + file + "')");
        duckDbBest = Math.min(duckDbBest, (System.nanoTime() - start) / 1e9);
        try (Statement s = connection.createStatement();
            ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM imported")) {
          rs.next();
          duckDbRows = rs.getLong(1);
        }
      }
      execute(connection, "DROP TABLE IF EXISTS imported");
      Result result = new Result(bytes, spillwayRows, duckDbRows, bytes / 1e6 / spillwayBest,
          bytes / 1e6 / duckDbBest);
      out.printf(Locale.ROOT, "lineitem SF %s, %s Parquet, %.1f MB, %,d rows, %d threads, best of %d:%n", sf,
          compression, bytes / 1e6, spillwayRows, threads, reps);
      out.printf(Locale.ROOT, "  spillway import               %8.1f MB/s  (%.2f s)%n", result.spillwayMbPerSecond(),
          spillwayBest);
      out.printf(Locale.ROOT, "  duckdb CREATE TABLE AS read_parquet %8.1f MB/s  (%.2f s)%n",
          result.duckDbMbPerSecond(), duckDbBest);
      return result;
    } finally {
      Files.deleteIfExists(file);
    }
  }

  private static void execute(Connection connection, String sql) throws SQLException {
    try (Statement statement = connection.createStatement()) {
      statement.execute(sql);
    }
  }

  /** Deletes the benchmark's data directory between runs. */
  private static void deleteRecursively(Path dir) throws IOException {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(dir)) {
      for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(path);
      }
    }
  }
}
