package org.spillway.tpch.bench;

import java.io.IOException;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
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
import org.spillway.storage.imports.ImportPhases;
import org.spillway.storage.imports.ImportResult;
import org.spillway.storage.imports.TableImport;

/**
 * Parquet import speed against DuckDB's on the same file, in one JVM: DuckDB generates TPC-H lineitem (the
 * io.trino.tpch rows, {@link DuckDbTpchTables}) and writes it with {@code COPY ... TO 'f.parquet'} (its default
 * row groups, the given compression); then Spillway imports the file ({@link TableImport}, {@code --threads}) and
 * DuckDB runs {@code CREATE TABLE AS SELECT * FROM read_parquet} on it (the same threads), {@code --reps} times
 * each, twice: into its in-memory database, and into a database file followed by {@code CHECKPOINT} (Spillway
 * persists its table too, so the file is the like-for-like comparison). Prints each run with its elapsed and CPU
 * seconds (the process's, DuckDB's native threads included, which say more than the elapsed time on a machine that
 * other work shares), then a table (best and median seconds, MB of Parquet per second of the best run, least CPU
 * seconds) and writes it as CSV. After each Spillway run a line tells its phases ({@link ImportPhases}: the serial
 * open, the part with every thread busy, the tail, the commit), each with its elapsed and CPU seconds. DuckDB's JDBC driver must be on the class path. {@code --parquet F} keeps the file
 * at F and reuses it on later runs (generated only if F does not exist yet; the scale factor and compression then
 * describe it).
 *
 * <p>{@code --sf 1 --threads 16 --reps 3 --compression snappy --dir /tmp/spillway-import-bench --csv
 * import-vs-duckdb.csv}
 */
public final class ImportBenchmark {
  private ImportBenchmark() {}

  /** What one run measured: the file's size and rows, and the best speed of each engine (and DuckDB's into a file). */
  public record Result(long fileBytes, long spillwayRows, long duckDbRows, double spillwayMbPerSecond,
      double duckDbMbPerSecond, double duckDbFileMbPerSecond) {}

  private static final String DUCKDB_MEMORY = "duckdb CREATE TABLE AS read_parquet";
  private static final String DUCKDB_FILE = "duckdb CTAS read_parquet to file + CHECKPOINT";

  public static void main(String[] argv) throws Exception {
    BenchArgs args = BenchArgs.parse(argv, "ImportBenchmark");
    double sf = args.number("--sf", 1);
    int threads = (int) args.number("--threads", Runtime.getRuntime().availableProcessors());
    int reps = (int) args.number("--reps", 3);
    String compression = args.text("--compression", "snappy");
    Path dir = args.path("--dir", Path.of(System.getProperty("java.io.tmpdir"), "spillway-import-bench"));
    Path csv = args.path("--csv", Path.of("import-vs-duckdb.csv"));
    Path parquet = args.path("--parquet", null);
    args.finish();
    BenchReport report = report(sf, compression, threads, reps);
    if (parquet == null) {
      run(sf, threads, reps, compression, dir, System.out, report);
    } else {
      if (!Files.exists(parquet)) {
        writeParquet(parquet, sf, threads, compression, System.out);
      }
      measure(parquet, sf, threads, reps, compression, dir, System.out, report);
    }
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
        List.of("engine", "file_mb", "rows", "threads", "best_s", "median_s", "mb_per_s", "least_cpu_s"));
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
    try {
      writeParquet(file, sf, threads, compression, out);
      return measure(file, sf, threads, reps, compression, dir, out, report);
    } finally {
      Files.deleteIfExists(file);
    }
  }

  /** Has DuckDB generate lineitem and write it to {@code file} as Parquet with its default row groups. */
  private static void writeParquet(Path file, double sf, int threads, String compression, PrintStream out)
      throws Exception {
    long start = System.nanoTime();
    try (DuckDbTpchTables tables = DuckDbTpchTables.load(sf, threads, out, "lineitem"::equals)) {
      execute(tables.connection(), "COPY lineitem TO '" + file + "' (FORMAT PARQUET, COMPRESSION " + compression
          + ")");
    }
    out.printf(Locale.ROOT, "lineitem SF %s as %s Parquet: %.1f MB, written in %.1f s%n", sf, compression,
        Files.size(file) / 1e6, (System.nanoTime() - start) / 1e9);
  }

  /** Times Spillway's import and DuckDB's two CREATE TABLE AS of {@code file}, {@code reps} times each. */
  private static Result measure(Path file, double sf, int threads, int reps, String compression, Path dir,
      PrintStream out, BenchReport report) throws Exception {
    Files.createDirectories(dir);
    long bytes = Files.size(file);
    double[] spillway = new double[reps];
    double[] spillwayCpu = new double[reps];
    long spillwayRows = 0;
    Path data = dir.resolve("data");
    for (int rep = 0; rep < reps; rep++) {
      deleteRecursively(data);
      double cpu = processCpuSeconds();
      ImportPhases phases;
      try (Catalog catalog = Catalog.create(data)) {
        ImportResult result = TableImport.run(catalog, "lineitem", List.of(file),
            ImportOptions.defaults().withThreads(threads));
        spillway[rep] = result.nanos() / 1e9;
        spillwayRows = result.rows();
        phases = result.phases();
      }
      spillwayCpu[rep] = processCpuSeconds() - cpu;
      out.printf(Locale.ROOT, "  spillway import, run %d: %.2f s (%.2f CPU-s)%n", rep + 1, spillway[rep],
          spillwayCpu[rep]);
      out.printf(Locale.ROOT, "    phases: %s%n", phases.describe());
    }
    deleteRecursively(data);
    double[] duckDb = new double[reps];
    double[] duckDbCpu = new double[reps];
    long duckDbRows;
    try (Connection connection = DriverManager.getConnection("jdbc:duckdb:")) {
      duckDbRows = timeDuckDb(connection, file, threads, false, duckDb, duckDbCpu, DUCKDB_MEMORY, out);
    }
    double[] duckDbFile = new double[reps];
    double[] duckDbFileCpu = new double[reps];
    Path database = dir.resolve("duckdb-import.duckdb");
    try {
      Files.deleteIfExists(database);
      try (Connection connection = DriverManager.getConnection("jdbc:duckdb:" + database)) {
        timeDuckDb(connection, file, threads, true, duckDbFile, duckDbFileCpu, DUCKDB_FILE, out);
      }
    } finally {
      Files.deleteIfExists(database);
      Files.deleteIfExists(Path.of(database + ".wal"));
    }
    Arrays.sort(spillway);
    Arrays.sort(duckDb);
    Arrays.sort(duckDbFile);
    Arrays.sort(spillwayCpu);
    Arrays.sort(duckDbCpu);
    Arrays.sort(duckDbFileCpu);
    Result result = new Result(bytes, spillwayRows, duckDbRows, bytes / 1e6 / spillway[0], bytes / 1e6 / duckDb[0],
        bytes / 1e6 / duckDbFile[0]);
    report.row("spillway import", bytes / 1e6, spillwayRows, threads, spillway[0], spillway[reps / 2],
        result.spillwayMbPerSecond(), spillwayCpu[0]);
    report.row(DUCKDB_MEMORY, bytes / 1e6, duckDbRows, threads, duckDb[0], duckDb[reps / 2],
        result.duckDbMbPerSecond(), duckDbCpu[0]);
    report.row(DUCKDB_FILE, bytes / 1e6, duckDbRows, threads, duckDbFile[0], duckDbFile[reps / 2],
        result.duckDbFileMbPerSecond(), duckDbFileCpu[0]);
    out.printf(Locale.ROOT, "lineitem SF %s, %s Parquet, %.1f MB, %,d rows, %d threads, best of %d:%n", sf,
        compression, bytes / 1e6, spillwayRows, threads, reps);
    out.printf(Locale.ROOT, "  %-46s %8.1f MB/s  (%.2f s)%n", "spillway import", result.spillwayMbPerSecond(),
        spillway[0]);
    out.printf(Locale.ROOT, "  %-46s %8.1f MB/s  (%.2f s)%n", DUCKDB_MEMORY, result.duckDbMbPerSecond(), duckDb[0]);
    out.printf(Locale.ROOT, "  %-46s %8.1f MB/s  (%.2f s)%n", DUCKDB_FILE, result.duckDbFileMbPerSecond(),
        duckDbFile[0]);
    return result;
  }

  /**
   * Times DuckDB's {@code CREATE TABLE AS SELECT * FROM read_parquet} of {@code file} on {@code connection}, each
   * run into {@code seconds}; with {@code checkpoint} the time includes the {@code CHECKPOINT} that writes the table
   * into the database file; the process's CPU seconds of each run go to {@code cpuSeconds}. Returns the table's rows.
   */
  private static long timeDuckDb(Connection connection, Path file, int threads, boolean checkpoint,
      double[] seconds, double[] cpuSeconds, String label, PrintStream out) throws SQLException {
    execute(connection, "SET threads TO " + threads);
    long rows = 0;
    for (int rep = 0; rep < seconds.length; rep++) {
      execute(connection, "DROP TABLE IF EXISTS imported");
      if (checkpoint) {
        execute(connection, "CHECKPOINT");  // the drop's space is free before the timed run
      }
      double cpu = processCpuSeconds();
      long t = System.nanoTime();
      execute(connection, "CREATE TABLE imported AS SELECT * FROM read_parquet('" + file + "')");
      if (checkpoint) {
        execute(connection, "CHECKPOINT");
      }
      seconds[rep] = (System.nanoTime() - t) / 1e9;
      cpuSeconds[rep] = processCpuSeconds() - cpu;
      rows = count(connection, "imported");
      out.printf(Locale.ROOT, "  %s, run %d: %.2f s (%.2f CPU-s)%n", label, rep + 1, seconds[rep], cpuSeconds[rep]);
    }
    execute(connection, "DROP TABLE IF EXISTS imported");
    return rows;
  }

  /** CPU time of this process so far, all its threads (DuckDB's native ones too). */
  private static double processCpuSeconds() {
    return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
        .getProcessCpuTime() / 1e9;
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
