package org.spillway.tpch.bench;

import io.trino.tpch.LineItem;
import io.trino.tpch.LineItemGenerator;
import java.io.PrintStream;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;
import org.duckdb.DuckDBAppender;
import org.duckdb.DuckDBConnection;

/**
 * An in-memory DuckDB database (compressed, as DuckDB stores tables on disk) holding lineitem's Q1/Q6 columns,
 * loaded from the same io.trino.tpch generator and partitioning as Spillway's tables (so the same rows), through
 * one DuckDB appender per generator part on all cores. DuckDB's JDBC driver must be on the class path.
 */
final class DuckDbTpch implements AutoCloseable {
  private static final String TABLE = "create table lineitem (l_quantity decimal(15,2), l_extendedprice decimal(15,2),"
      + " l_discount decimal(15,2), l_tax decimal(15,2), l_returnflag varchar, l_linestatus varchar, l_shipdate date)";

  private final Connection connection;

  private DuckDbTpch(Connection connection) {
    this.connection = connection;
  }

  /** A database holding lineitem at {@code sf}, loaded with {@code threads} appenders; progress goes to {@code log}. */
  static DuckDbTpch load(double sf, int threads, PrintStream log) throws Exception {
    Connection connection = DriverManager.getConnection("jdbc:duckdb:");
    try (Statement s = connection.createStatement()) {
      s.execute("attach ':memory:' as bench (compress)");
      s.execute("use bench");
      s.execute("set threads to " + threads);
      s.execute(TABLE);
    } catch (SQLException e) {
      connection.close();
      throw e;
    }
    DuckDBConnection duck = connection.unwrap(DuckDBConnection.class);
    long start = System.nanoTime();
    int parts = Math.max(threads * 4, (int) Math.ceil(sf * 6_000_000 / (1 << 22)));
    AtomicLong rows = new AtomicLong();
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      List<Future<?>> futures = new ArrayList<>();
      for (int part = 1; part <= parts; part++) {
        int p = part;
        futures.add(pool.submit(() -> appendPart(duck, sf, p, parts, rows)));
      }
      long lastLog = System.nanoTime();
      for (Future<?> f : futures) {
        f.get();
        if (System.nanoTime() - lastLog > 10e9) {
          log.printf("  duckdb: %,d rows loaded (%.0f s)%n", rows.get(), (System.nanoTime() - start) / 1e9);
          lastLog = System.nanoTime();
        }
      }
    } catch (Exception e) {
      connection.close();
      throw e;
    } finally {
      pool.shutdownNow();
    }
    log.printf("  duckdb %s: %,d lineitem rows loaded in %.1f s with %d appenders%n", version(connection), rows.get(),
        (System.nanoTime() - start) / 1e9, threads);
    return new DuckDbTpch(connection);
  }

  private static Void appendPart(DuckDBConnection duck, double sf, int part, int parts, AtomicLong rows)
      throws SQLException {
    long n = 0;
    try (DuckDBConnection own = (DuckDBConnection) duck.duplicate();
         DuckDBAppender appender = own.createAppender("bench", "main", "lineitem")) {
      for (LineItem e : new LineItemGenerator(sf, part, parts)) {
        appender.beginRow()
            .appendDecimal(e.getQuantity() * 100L)
            .appendDecimal(e.getExtendedPriceInCents())
            .appendDecimal(e.getDiscountPercent())
            .appendDecimal(e.getTaxPercent())
            .append(e.getReturnFlag())
            .append(e.getStatus())
            .appendEpochDays(e.getShipDate())
            .endRow();
        n++;
      }
    }
    rows.addAndGet(n);
    return null;
  }

  private static String version(Connection connection) throws SQLException {
    try (Statement s = connection.createStatement(); ResultSet rs = s.executeQuery("select version()")) {
      rs.next();
      return rs.getString(1);
    }
  }

  /** The connection whose default database holds lineitem. */
  Connection connection() {
    return connection;
  }

  @Override public void close() throws SQLException {
    connection.close();
  }
}
