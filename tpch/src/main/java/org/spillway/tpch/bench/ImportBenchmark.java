package org.spillway.tpch.bench;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;
import org.spillway.gpu.bench.BenchReport;
import org.spillway.storage.Catalog;
import org.spillway.storage.imports.ImportOptions;
import org.spillway.storage.imports.ImportResult;
import org.spillway.storage.imports.TableImport;

/**
 * Parquet import speed against DuckDB's on the same file, in one JVM: DuckDB generates TPC-H lineitem (the
 * io.trino.tpch rows, {@link DuckDbTpchTables}) and writes it with {@code COPY ... TO 'f.parquet'} (its default
 * row groups, the given compression); then Spillway imports the file ({@link TableImport}, {@code --threads}) and
 * DuckDB runs {@code CREATE TABLE AS SELECT * FROM read_parquet} on it (the same threads), {@code --reps} times
 * each. Prints each run, then a table (best and median seconds, MB of Parquet per second of the best run) and
 * writes it as CSV. DuckDB's JDBC driver must be on the class path.
 *
 * <p>{@code --sf 1 --threads 16 --reps 3 --compression snappy --dir /tmp/spillway-import-bench --csv
 * import-vs-duckdb.csv}
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
    Path csv = args.path("--csv", Path.of("import-vs-duckdb.csv"));
    args.finish();
    BenchReport report = report(sf, compression, threads, reps);
    run(sf, threads, reps, compression, dir, System.out, report);
    System.out.println();
    System.out.print(report.toTable());
    Path parent = csv.toAbsolutePath().getParent();
    if (parent != null) {
      Files.createDirectories(parent);
    }
    report.writeCsv(csv);
    System.out.println("CSV written to " + csv.toAbsolutePath());
  }

  /** The report's title and columns, for {@link #run}'s rows. */
  static BenchReport report(double sf, String compression, int threads, int reps) {
    return new BenchReport(String.format(Locale.ROOT, "Parquet import of TPC-H lineitem SF %s (%s), %d threads,"
        + " %d runs each", sf, compression, threads, reps),
        List.of("engine", "file_mb", "rows", "threads", "best_s", "median_s", "mb_per_s"));
  }

  /** Runs the benchmark in {@code dir} (its files are replaced) and prints one line per run and engine. */
  public static Result run(double sf, int threads, int reps, String compression, Path dir, PrintStream out)
      throws Exception {
    return run(sf, threads, reps, compression, dir, out, report(sf, compression, threads, reps));
  }

  /** As {@link #run(double, int, int, String, Path, PrintStream)}, adding one row per engine to {@code report}. */
  static Result run(double sf, int threads, int reps, String compression, Path dir, PrintStream out,
      BenchReport report) throws Exception {
    Files.createDirectories(dir);
    Path file = dir.resolve("lineitem-sf" + sf + "-" + compression + ".parquet");
    long start = System.nanoTime();
    try (DuckDbTpchTables tables = DuckDbTpchTables.load(sf, threads, out, "lineitem"::equals)) {
      Connection connection = tables.connection();
      execute(connection, "COPY lineitem TO '" + file + "' (FORMAT PARQUET, COMPRESSION " + compression + ")");
      // only the file is read from here on
      execute(connection, "DROP TABLE lineitem");
      long bytes = Files.size(file);
      out.printf(Locale.ROOT, "lineitem SF %s as %s Parquet: %.1f MB, written in %.1f s%n", sf, compression,
          bytes / 1e6, (System.nanoTime() - start) / 1e9);
      double[] spillway = new double[reps];
      long spillwayRows = 0;
      Path data = dir.resolve("data");
      for (int rep = 0; rep < reps; rep++) {
        deleteRecursively(data);
        try (Catalog catalog = Catalog.create(data)) {
          ImportResult result = TableImport.run(catalog, "lineitem", List.of(file),
              ImportOptions.defaults().withThreads(threads));
          spillway[rep] = result.nanos() / 1e9;
          spillwayRows = result.rows();
        }
        out.printf(Locale.ROOT, "  spillway import, run %d: %.2f s%n", rep + 1, spillway[rep]);
      }
      deleteRecursively(data);
      double[] duckDb = new double[reps];
      long duckDbRows = 0;
      for (int rep = 0; rep < reps; rep++) {
        execute(connection, "DROP TABLE IF EXISTS imported");
        long t = System.nanoTime();
        execute(connection, "CREATE TABLE imported AS SELECT * FROM read_parquet('" + file + "')");
        duckDb[rep] = (System.nanoTime() - t) / 1e9;
        duckDbRows = count(connection, "imported");
        out.printf(Locale.ROOT, "  duckdb CREATE TABLE AS read_parquet, run %d: %.2f s%n", rep + 1, duckDb[rep]);
      }
      execute(connection, "DROP TABLE IF EXISTS imported");
      Arrays.sort(spillway);
      Arrays.sort(duckDb);
      Result result = new Result(bytes, spillwayRows, duckDbRows, bytes / 1e6 / spillway[0],
          bytes / 1e6 / duckDb[0]);
      report.row("spillway import", bytes / 1e6, spillwayRows, threads, spillway[0], spillway[reps / 2],
          result.spillwayMbPerSecond());
      report.row("duckdb CREATE TABLE AS read_parquet", bytes / 1e6, duckDbRows, threads, duckDb[0],
          duckDb[reps / 2], result.duckDbMbPerSecond());
      out.printf(Locale.ROOT, "lineitem SF %s, %s Parquet, %.1f MB, %,d rows, %d threads, best of %d:%n", sf,
          compression, bytes / 1e6, spillwayRows, threads, reps);
      out.printf(Locale.ROOT, "  spillway import               %8.1f MB/s  (%.2f s)%n", result.spillwayMbPerSecond(),
          spillway[0]);
      out.printf(Locale.ROOT, "  duckdb CREATE TABLE AS read_parquet %8.1f MB/s  (%.2f s)%n",
          result.duckDbMbPerSecond(), duckDb[0]);
      return result;
    } finally {
      Files.deleteIfExists(file);
    }
  }

  private static long count(Connection connection, String table) throws SQLException {
    try (Statement s = connection.createStatement();
        ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM " + table)) {
      rs.next();
      return rs.getLong(1);
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
