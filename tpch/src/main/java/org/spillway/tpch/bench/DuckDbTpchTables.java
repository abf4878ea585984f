package org.spillway.tpch.bench;

import io.trino.tpch.TpchColumn;
import io.trino.tpch.TpchColumnType;
import io.trino.tpch.TpchEntity;
import io.trino.tpch.TpchTable;
import java.io.PrintStream;
import java.sql.Connection;
import java.sql.DriverManager;
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
import org.duckdb.DuckDBAppender;
import org.duckdb.DuckDBConnection;
import org.spillway.storage.ColumnDef;
import org.spillway.storage.ColumnKind;
import org.spillway.storage.TableSchema;
import org.spillway.tpch.TpchSchema;

/**
 * An in-memory DuckDB database holding all eight TPC-H tables with Spillway's column types ({@link TpchSchema}),
 * loaded from the same io.trino.tpch generators (so the same rows) through one DuckDB appender per generator part
 * on all cores. DuckDB's JDBC driver must be on the class path.
 */
final class DuckDbTpchTables implements AutoCloseable {
  /** Rows one appender writes at most: enough parts to keep every core busy on the large tables. */
  private static final long ROWS_PER_PART = 1 << 22;
  /** The attached database that holds the tables: a new session must {@code use} it. */
  static final String DATABASE = "bench";

  private final Connection connection;

  private DuckDbTpchTables(Connection connection) {
    this.connection = connection;
  }

  /** A database holding TPC-H at {@code sf} in DuckDB's own (compressed) storage, loaded with {@code threads}. */
  static DuckDbTpchTables load(double sf, int threads, PrintStream log) throws Exception {
    Connection connection = DriverManager.getConnection("jdbc:duckdb:");
    try {
      try (Statement s = connection.createStatement()) {
        s.execute("attach ':memory:' as " + DATABASE + " (compress)");
        s.execute("use " + DATABASE);
        s.execute("set threads to " + threads);
      }
      Map<String, TableSchema> schemas = TpchSchema.tables(sf);
      ExecutorService pool = Executors.newFixedThreadPool(threads);
      try {
        for (TpchTable<?> table : TpchTable.getTables()) {
          loadTable(connection.unwrap(DuckDBConnection.class), table, schemas.get(table.getTableName()), sf,
              threads, pool, log);
        }
      } finally {
        pool.shutdownNow();
      }
      return new DuckDbTpchTables(connection);
    } catch (Exception e) {
      connection.close();
      throw e;
    }
  }

  private static <E extends TpchEntity> void loadTable(DuckDBConnection duck, TpchTable<E> table, TableSchema schema,
      double sf, int threads, ExecutorService pool, PrintStream log) throws Exception {
    long start = System.nanoTime();
    try (Statement s = duck.createStatement()) {
      s.execute("create table " + table.getTableName() + " " + columns(schema));
    }
    long expected = estimatedRows(table, sf);
    int parts = (int) Math.max(1, Math.min(Math.max(threads * 4L, expected / ROWS_PER_PART),
        expected / 10_000 + 1));
    AtomicLong rows = new AtomicLong();
    List<Future<?>> futures = new ArrayList<>();
    for (int part = 1; part <= parts; part++) {
      int p = part;
      futures.add(pool.submit(() -> appendPart(duck, table, schema, sf, p, parts, rows)));
    }
    for (Future<?> f : futures) {
      f.get();
    }
    log.printf("  duckdb: %-8s %,12d rows in %6.1f s%n", table.getTableName(), rows.get(),
        (System.nanoTime() - start) / 1e9);
  }

  /** The column list of a CREATE TABLE: Spillway's types, where CHAR(n) becomes VARCHAR (values are never padded). */
  private static String columns(TableSchema schema) {
    StringJoiner out = new StringJoiner(", ", "(", ")");
    for (ColumnDef c : schema.columns()) {
      String type = c.type().kind() == ColumnKind.CHAR ? "VARCHAR" : c.type().toString();
      out.add(c.name() + " " + type + " not null");
    }
    return out.toString();
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

  private static <E extends TpchEntity> Void appendPart(DuckDBConnection duck, TpchTable<E> table, TableSchema schema,
      double sf, int part, int parts, AtomicLong rows) throws SQLException {
    List<TpchColumn<E>> columns = table.getColumns();
    long n = 0;
    try (DuckDBConnection own = (DuckDBConnection) duck.duplicate();
         DuckDBAppender appender = own.createAppender(DATABASE, "main", table.getTableName())) {
      for (E e : table.createGenerator(sf, part, parts)) {
        appender.beginRow();
        for (int i = 0; i < columns.size(); i++) {
          append(appender, columns.get(i), schema.column(i).type().kind(), e);
        }
        appender.endRow();
        n++;
      }
    }
    rows.addAndGet(n);
    return null;
  }

  /** Appends one field as the stored column's kind: keys are INTEGER or BIGINT, money is DECIMAL(15,2). */
  private static <E extends TpchEntity> void append(DuckDBAppender appender, TpchColumn<E> column, ColumnKind kind,
      E e) throws SQLException {
    switch (kind) {
      case INTEGER -> appender.append(column.getType().getBase() == TpchColumnType.Base.IDENTIFIER
          ? Math.toIntExact(column.getIdentifier(e)) : column.getInteger(e));
      case BIGINT -> appender.append(column.getIdentifier(e));
      case DATE -> appender.appendEpochDays(column.getDate(e));
      case DECIMAL -> appender.appendDecimal(Math.round(column.getDouble(e) * 100));
      case CHAR, VARCHAR -> appender.append(column.getString(e));
      default -> throw new IllegalStateException("TPC-H column " + column.getColumnName() + " of kind " + kind);
    }
  }

  /** The connection whose default database holds the eight tables. */
  Connection connection() {
    return connection;
  }

  @Override public void close() throws SQLException {
    connection.close();
  }
}
