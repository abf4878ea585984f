package org.spillway.tpch.bench;

import io.trino.tpch.TpchEntity;
import io.trino.tpch.TpchTable;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.StringJoiner;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;
import org.spillway.storage.ColumnDef;
import org.spillway.storage.ColumnKind;
import org.spillway.storage.TableSchema;
import org.spillway.tpch.TpchSchema;

/**
 * An in-memory DuckDB database holding all eight TPC-H tables with Spillway's column types ({@link TpchSchema}),
 * loaded from the same io.trino.tpch generators (so the same rows): the generator's parts are written as text on all
 * cores into a scratch directory, which DuckDB's parallel CSV reader loads (much faster than its Java appender,
 * which passes each value through JNI). As loaded the tables are uncompressed; {@link #compress} stores them as
 * DuckDB does on disk. DuckDB's JDBC driver must be on the class path.
 */
final class DuckDbTpchTables implements AutoCloseable {
  /** Rows one text part holds at most: enough parts to keep every core busy on the large tables. */
  private static final long ROWS_PER_PART = 1 << 22;
  /** The attached database that holds the tables: a new session must {@code use} it. */
  static final String DATABASE = "bench";

  private final Connection connection;

  private DuckDbTpchTables(Connection connection) {
    this.connection = connection;
  }

  /** A database holding TPC-H at {@code sf} in DuckDB's own (compressed) storage, loaded with {@code threads}. */
  static DuckDbTpchTables load(double sf, int threads, PrintStream log) throws Exception {
    return load(sf, threads, log, table -> true);
  }

  /** A database holding the TPC-H tables {@code tables} accepts (by name), as {@link #load(double, int, PrintStream)}. */
  static DuckDbTpchTables load(double sf, int threads, PrintStream log, Predicate<String> tables) throws Exception {
    Connection connection = DriverManager.getConnection("jdbc:duckdb:");
    try {
      try (Statement s = connection.createStatement()) {
        s.execute("attach ':memory:' as " + DATABASE + " (compress)");
        s.execute("use " + DATABASE);
        s.execute("set threads to " + threads);
      }
      Map<String, TableSchema> schemas = TpchSchema.tables(sf);
      ExecutorService pool = Executors.newFixedThreadPool(threads);
      Path scratch = Files.createTempDirectory("duckdb-tpch");
      try {
        for (TpchTable<?> table : TpchTable.getTables()) {
          if (!tables.test(table.getTableName())) {
            continue;
          }
          loadTable(connection, table, schemas.get(table.getTableName()), sf, threads, pool, scratch, log);
        }
      } finally {
        pool.shutdownNow();
        Files.deleteIfExists(scratch);
      }
      return new DuckDbTpchTables(connection);
    } catch (Exception e) {
      connection.close();
      throw e;
    }
  }

  private static <E extends TpchEntity> void loadTable(Connection duck, TpchTable<E> table, TableSchema schema,
      double sf, int threads, ExecutorService pool, Path scratch, PrintStream log) throws Exception {
    long start = System.nanoTime();
    long expected = estimatedRows(table, sf);
    int parts = (int) Math.max(1, Math.min(Math.max(threads * 4L, expected / ROWS_PER_PART),
        expected / 10_000 + 1));
    AtomicLong rows = new AtomicLong();
    List<Future<?>> futures = new ArrayList<>();
    for (int part = 1; part <= parts; part++) {
      int p = part;
      futures.add(pool.submit(() -> writePart(table, sf, p, parts, scratch, rows)));
    }
    for (Future<?> f : futures) {
      f.get();
    }
    double written = (System.nanoTime() - start) / 1e9;
    String glob = scratch.resolve(table.getTableName() + "-*.tbl").toString();
    try (Statement s = duck.createStatement()) {
      s.execute("create table " + table.getTableName() + " " + columns(schema));
      insertText(duck, table.getTableName(), glob, csvColumns(schema));
    } finally {
      for (int part = 1; part <= parts; part++) {
        Files.deleteIfExists(partFile(scratch, table, part));
      }
    }
    log.printf("  duckdb: %-8s %,12d rows in %6.1f s (text written in %.1f s)%n", table.getTableName(), rows.get(),
        (System.nanoTime() - start) / 1e9, written);
  }

  private static Path partFile(Path scratch, TpchTable<?> table, int part) {
    return scratch.resolve(table.getTableName() + "-" + part + ".tbl");
  }

  /**
   * Compresses the tables as DuckDB stores them on disk: rows inserted from the CSV reader stay uncompressed in memory
   * until a checkpoint (the attached database's {@code compress} applies then). As loaded, DuckDB ran TPC-H Q1 and
   * Q19 about twice as slowly and most join queries faster (SF 3 on 2 cores).
   */
  void compress() throws SQLException {
    compress(connection);
  }

  /** Checkpoints the database of {@code connection}, which compresses what was inserted into it (see above). */
  static void compress(Connection connection) throws SQLException {
    try (Statement s = connection.createStatement()) {
      s.execute("checkpoint");
    }
  }

  /** The compression DuckDB stores each of {@code table}'s columns with, as "column: kinds", for tests and logs. */
  static List<String> compression(Connection connection, String table) throws SQLException {
    List<String> out = new ArrayList<>();
    try (Statement s = connection.createStatement(); ResultSet rs = s.executeQuery("select column_name,"
        + " string_agg(distinct compression, ',' order by compression) from pragma_storage_info('" + table + "')"
        + " group by column_name order by column_name")) {
      while (rs.next()) {
        out.add(rs.getString(1) + ": " + rs.getString(2));
      }
    }
    return out;
  }

  /** Writes one generator part as '|'-separated text, as dbgen does, without dbgen's trailing delimiter. */
  private static <E extends TpchEntity> Void writePart(TpchTable<E> table, double sf, int part, int parts,
      Path scratch, AtomicLong rows) throws IOException {
    long n = 0;
    try (BufferedWriter out = Files.newBufferedWriter(partFile(scratch, table, part), StandardCharsets.UTF_8)) {
      for (E e : table.createGenerator(sf, part, parts)) {
        String line = e.toLine();
        out.write(line, 0, line.endsWith("|") ? line.length() - 1 : line.length());
        out.newLine();
        n++;
      }
    }
    rows.addAndGet(n);
    return null;
  }

  /**
   * Inserts into {@code table} the '|'-separated text files {@code glob} matches, read by DuckDB's parallel CSV reader
   * as {@code columns} (a read_csv column struct, see {@link #csvColumns}).
   */
  static void insertText(Connection duck, String table, String glob, String columns) throws SQLException {
    try (Statement s = duck.createStatement()) {
      s.execute("insert into " + table + " select * from read_csv('" + glob + "', delim = '|', header = false,"
          + " quote = '', escape = '', auto_detect = false, columns = " + columns + ")");
    }
  }

  /** DuckDB's read_csv column struct, e.g. {'l_orderkey': 'INTEGER', ...}, with the stored types. */
  private static String csvColumns(TableSchema schema) {
    StringJoiner out = new StringJoiner(", ", "{", "}");
    for (ColumnDef c : schema.columns()) {
      out.add("'" + c.name() + "': '" + duckType(c) + "'");
    }
    return out.toString();
  }

  /** The column list of a CREATE TABLE: Spillway's types, where CHAR(n) becomes VARCHAR (values are never padded). */
  private static String columns(TableSchema schema) {
    StringJoiner out = new StringJoiner(", ", "(", ")");
    for (ColumnDef c : schema.columns()) {
      out.add(c.name() + " " + duckType(c) + " not null");
    }
    return out.toString();
  }

  /** Spillway's type, where CHAR(n) becomes VARCHAR (stored values are never blank-padded). */
  private static String duckType(ColumnDef c) {
    return c.type().kind() == ColumnKind.CHAR ? "VARCHAR" : c.type().toString();
  }

  private static long estimatedRows(TpchTable<?> table, double sf) {
    return switch (table.getTableName()) {
      case "lineitem" -> (long) (6_000_000 * sf);
      case "orders" -> (long) (1_500_000 * sf);
      case "partsupp" -> (long) (800_000 * sf);
      case "part" -> (long) (200_000 * sf);
      case "customer" -> (long) (150_000 * sf);
      case "supplier" -> (long) (10_000 * sf);
      default -> 25;
    };
  }

  /** The connection whose default database holds the eight tables. */
  Connection connection() {
    return connection;
  }

  @Override public void close() throws SQLException {
    connection.close();
  }
}
