package org.spillway.tpch.bench;

import io.trino.tpch.LineItem;
import io.trino.tpch.LineItemGenerator;
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
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.IntStream;

/**
 * An in-memory DuckDB database (compressed, as DuckDB stores tables on disk) holding lineitem's Q1/Q6 columns,
 * loaded from the same io.trino.tpch generator as Spillway's tables (so the same rows): the generator's parts are
 * written as text on all cores into a scratch directory, a round of parts at a time (so that SF 100 needs a few GB of
 * scratch, not its whole text), DuckDB's parallel CSV reader loads each round, and a checkpoint compresses it
 * ({@link DuckDbTpchTables#compress}). Its Java appender passes each value through JNI and loaded SF 100 at about
 * 1.2 M rows a second on the 16-core hosts. DuckDB's JDBC driver must be on the class path.
 */
final class DuckDbTpch implements AutoCloseable {
  private static final String TABLE = "create table lineitem (l_quantity decimal(15,2), l_extendedprice decimal(15,2),"
      + " l_discount decimal(15,2), l_tax decimal(15,2), l_returnflag varchar, l_linestatus varchar, l_shipdate date)";
  private static final String CSV_COLUMNS = "{'l_quantity': 'DECIMAL(15,2)', 'l_extendedprice': 'DECIMAL(15,2)',"
      + " 'l_discount': 'DECIMAL(15,2)', 'l_tax': 'DECIMAL(15,2)', 'l_returnflag': 'VARCHAR',"
      + " 'l_linestatus': 'VARCHAR', 'l_shipdate': 'DATE'}";
  /** Rows of a generator part: enough parts to keep every core busy. */
  private static final long ROWS_PER_PART = 1 << 22;
  /** Parts written per core before DuckDB loads them: bounds the scratch text (about 30 bytes a row). */
  private static final int PARTS_PER_THREAD_PER_ROUND = 2;
  /** Ship dates as text, by epoch day from {@link #FIRST_DAY}: TPC-H's dates fall within 1992 to 1998. */
  private static final int FIRST_DAY = (int) LocalDate.of(1992, 1, 1).toEpochDay();
  private static final String[] DATES = IntStream.rangeClosed(FIRST_DAY, (int) LocalDate.of(1999, 12, 31).toEpochDay())
      .mapToObj(d -> LocalDate.ofEpochDay(d).toString()).toArray(String[]::new);

  private final Connection connection;

  private DuckDbTpch(Connection connection) {
    this.connection = connection;
  }

  /** A database holding lineitem at {@code sf}, loaded on {@code threads} cores; progress goes to {@code log}. */
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
    long start = System.nanoTime();
    int parts = (int) Math.max(threads * 4L, (long) Math.ceil(sf * 6_000_000 / ROWS_PER_PART));
    int perRound = Math.max(1, threads * PARTS_PER_THREAD_PER_ROUND);
    AtomicLong rows = new AtomicLong();
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    Path scratch = Files.createTempDirectory("duckdb-lineitem");
    try {
      for (int first = 1; first <= parts; first += perRound) {
        int last = Math.min(parts, first + perRound - 1);
        List<Future<?>> futures = new ArrayList<>();
        for (int part = first; part <= last; part++) {
          int p = part;
          futures.add(pool.submit(() -> writePart(sf, p, parts, scratch, rows)));
        }
        for (Future<?> f : futures) {
          f.get();
        }
        try {
          String glob = scratch.resolve("lineitem-*.tbl").toString();
          DuckDbTpchTables.insertText(connection, "lineitem", glob, CSV_COLUMNS);
        } finally {
          for (int part = first; part <= last; part++) {
            Files.deleteIfExists(partFile(scratch, part));
          }
        }
        // each round compressed before the next: uncompressed, SF 100's seven columns would hold about 40 GB
        DuckDbTpchTables.compress(connection);
        log.printf("  duckdb: %,d rows loaded (%.0f s)%n", rows.get(), (System.nanoTime() - start) / 1e9);
      }
    } catch (Exception e) {
      connection.close();
      throw e;
    } finally {
      pool.shutdownNow();
      Files.deleteIfExists(scratch);
    }
    log.printf("  duckdb %s: %,d lineitem rows loaded in %.1f s on %d cores%n", version(connection), rows.get(),
        (System.nanoTime() - start) / 1e9, threads);
    return new DuckDbTpch(connection);
  }

  private static Path partFile(Path scratch, int part) {
    return scratch.resolve("lineitem-" + part + ".tbl");
  }

  /** Writes one generator part's Q1/Q6 columns as '|'-separated text. */
  private static Void writePart(double sf, int part, int parts, Path scratch, AtomicLong rows) throws IOException {
    long n = 0;
    StringBuilder line = new StringBuilder(64);
    try (BufferedWriter out = Files.newBufferedWriter(partFile(scratch, part), StandardCharsets.US_ASCII)) {
      for (LineItem e : new LineItemGenerator(sf, part, parts)) {
        line.setLength(0);
        line.append(e.getQuantity()).append('|');
        hundredths(line, e.getExtendedPriceInCents()).append('|');
        hundredths(line, e.getDiscountPercent()).append('|');
        hundredths(line, e.getTaxPercent()).append('|');
        line.append(e.getReturnFlag()).append('|').append(e.getStatus()).append('|').append(date(e.getShipDate()));
        out.append(line).append('\n');
        n++;
      }
    }
    rows.addAndGet(n);
    return null;
  }

  /** {@code value / 100} as a decimal with two places, e.g. 5 as 0.05 (TPC-H's values are not negative). */
  static StringBuilder hundredths(StringBuilder out, long value) {
    long cents = value % 100;
    return out.append(value / 100).append('.').append(cents < 10 ? "0" : "").append(cents);
  }

  /** An epoch day as an ISO date. */
  static String date(int epochDay) {
    int i = epochDay - FIRST_DAY;
    return i >= 0 && i < DATES.length ? DATES[i] : LocalDate.ofEpochDay(epochDay).toString();
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
