package org.spillway.gpu.bench;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Locale;
import org.spillway.gpu.join.ZipfDistribution;
import org.spillway.gpu.transfer.ColumnType;

/**
 * DuckDB as a baseline on the same machine and the same data: its JDBC driver is reached at run time through
 * {@link DriverManager} (no compile dependency), an in-memory database on {@code threads} cores. The relations
 * are generated inside DuckDB by SQL that reproduces {@link JoinBenchmarkData}'s formulas bit for bit:
 * SplittableRandom's draws in closed form (draw k of a segment seeded z is mix64(z + k * gamma), computed modulo
 * 2^64 in UHUGEINT), the key permutation, the sparse multiplier and the payload hash; a Zipf rank is the first
 * rank whose cumulative probability (the Java doubles, read from a CSV) reaches the draw, an ASOF join. Each run
 * times {@link #JOIN_SQL} by wall clock; loading is timed apart and never counted.
 */
final class JoinBenchmarkDuckDb implements AutoCloseable {
  static final String URL = "jdbc:duckdb:";
  /** The INNER join fused into count and sums, as the other joins run it. */
  static final String JOIN_SQL = "SELECT count(*), sum(r.v), sum(s.v) FROM r JOIN s ON r.k = s.k";
  private static final String M64 = "18446744073709551615::UHUGEINT";
  private static final String[] MACROS = {
      "mul64(a, b) AS ((a::UHUGEINT * b::UHUGEINT) & " + M64 + ")::UBIGINT",
      "add64(a, b) AS ((a::UHUGEINT + b::UHUGEINT) & " + M64 + ")::UBIGINT",
      "mixstep(z, s, m) AS mul64(xor(z, z >> s), m)",
      "mix64(z) AS xor(mixstep(mixstep(z, 30, " + u(0xbf58476d1ce4e5b9L) + "), 27, " + u(0x94d049bb133111ebL) + "),"
          + " mixstep(mixstep(z, 30, " + u(0xbf58476d1ce4e5b9L) + "), 27, " + u(0x94d049bb133111ebL) + ") >> 31)",
      // draw t (0-based) of row i, when every row of a segment of 2^20 rows takes `per` draws of its stream
      "draw(base, i, t, per) AS mix64(add64(add64(base, i >> " + JoinBenchmarkData.SEGMENT_BITS + "), mul64(per * (i & "
          + ((1 << JoinBenchmarkData.SEGMENT_BITS) - 1) + ") + t + 1, " + u(JoinBenchmarkData.PERMUTE) + ")))",
      "unif(d) AS (d >> 11)::DOUBLE / 9007199254740992::DOUBLE",
      "s64(x) AS CASE WHEN x >= 9223372036854775808::UBIGINT THEN (x::HUGEINT - 18446744073709551616::HUGEINT)::BIGINT"
          + " ELSE x::BIGINT END",
      "s32(x) AS CASE WHEN (x & 4294967295::UBIGINT) >= 2147483648::UBIGINT"
          + " THEN ((x & 4294967295::UBIGINT)::BIGINT - 4294967296)::INTEGER ELSE (x & 4294967295::UBIGINT)::INTEGER END",
      "u64(x) AS CASE WHEN x < 0 THEN (x::HUGEINT + 18446744073709551616::HUGEINT)::UBIGINT ELSE x::UBIGINT END",
  };

  private final Connection connection;
  private final Path tempDir;
  private final String version;
  private JoinBenchmarkData.Spec loaded;

  private JoinBenchmarkDuckDb(Connection connection, Path tempDir, int threads) throws SQLException {
    this.connection = connection;
    this.tempDir = tempDir;
    execute("SET threads = " + threads);
    execute("SET preserve_insertion_order = false");
    execute("SET temp_directory = '" + tempDir.resolve("spill") + "'");
    for (String macro : MACROS) {
      execute("CREATE OR REPLACE TEMP MACRO " + macro);
    }
    try (Statement st = connection.createStatement(); ResultSet rs = st.executeQuery("SELECT version()")) {
      rs.next();
      version = rs.getString(1);
    }
  }

  /** Why DuckDB cannot run here (its JDBC driver is not on the class path), or null. */
  static String unavailableReason() {
    try {
      DriverManager.getDriver(URL);
      return null;
    } catch (SQLException e) {
      return "DuckDB's JDBC driver (org.duckdb:duckdb_jdbc) is not on the class path";
    }
  }

  /** An in-memory database running on {@code threads} cores. */
  static JoinBenchmarkDuckDb open(int threads) throws SQLException, IOException {
    Path dir = Files.createTempDirectory("spillway-duckdb");
    Connection c = DriverManager.getConnection(URL);
    try {
      return new JoinBenchmarkDuckDb(c, dir, threads);
    } catch (SQLException | RuntimeException e) {
      c.close();
      throw e;
    }
  }

  String version() {
    return version;
  }

  /**
   * Creates tables r(k, v) and s(k, v) holding {@code spec}'s relations (with the row number as column i first
   * when {@code rowIds}), DuckDB limited to {@code memoryLimit} bytes (0: its default); returns the nanoseconds.
   */
  long load(JoinBenchmarkData.Spec spec, boolean rowIds, long memoryLimit) throws SQLException {
    drop();
    long start = System.nanoTime();
    if (memoryLimit > 0) {
      execute("SET memory_limit = '" + Math.max(1, memoryLimit >> 20) + "MiB'");
    }
    Path cdf = spec.zipf() > 0 ? writeCdf(spec) : null;
    try {
      if (cdf != null) {
        execute("CREATE OR REPLACE TEMP TABLE zipf_cdf AS SELECT * FROM read_csv('" + cdf + "', header = false,"
            + " auto_detect = false, columns = {'k': 'UBIGINT', 'c': 'DOUBLE'})");
      }
      loaded = spec;
      execute(buildSql(spec, rowIds));
      execute(probeSql(spec, rowIds));
    } finally {
      if (cdf != null) {
        execute("DROP TABLE IF EXISTS zipf_cdf");
        deleteQuietly(cdf);
      }
    }
    return System.nanoTime() - start;
  }

  /**
   * The {@code duckdb} series of a case: loads the workload's relations on the first run (untimed; the load
   * time goes to the note), then times the join; closing drops the tables.
   */
  JoinBenchmarkJoins.Runner runner(long memoryLimit) {
    return new JoinBenchmarkJoins.Runner() {
      private String note = "";

      @Override
      public JoinBenchmarkJoins.Timed run(JoinBenchmarkData.Workload w) {
        try {
          if (loaded == null || !loaded.equals(w.spec)) {
            long nanos = load(w.spec, false, memoryLimit);
            note = String.format(Locale.ROOT, "load %.1f s (not timed); %s", nanos / 1e9, version);
          }
          JoinBenchmarkJoins.Timed t = join();
          return new JoinBenchmarkJoins.Timed(t.algorithm(), t.rows(), t.buildSum(), t.probeSum(), t.nanos(), null,
              note);
        } catch (SQLException e) {
          throw new IllegalStateException("DuckDB on " + w.spec.name() + ": " + e.getMessage(), e);
        }
      }

      @Override
      public void close() {
        try {
          drop();
        } catch (SQLException e) {
          throw new IllegalStateException("DuckDB could not drop its tables: " + e.getMessage(), e);
        }
      }
    };
  }

  /** One run of {@link #JOIN_SQL} over the loaded tables, timed by wall clock. */
  JoinBenchmarkJoins.Timed join() throws SQLException {
    long start = System.nanoTime();
    try (Statement st = connection.createStatement(); ResultSet rs = st.executeQuery(JOIN_SQL)) {
      rs.next();
      long rows = rs.getLong(1);
      long buildSum = wrap(rs.getString(2));
      long probeSum = wrap(rs.getString(3));
      return new JoinBenchmarkJoins.Timed("duckdb/hash-join", rows, buildSum, probeSum, System.nanoTime() - start,
          null, "");
    }
  }

  /** Drops the loaded tables. */
  void drop() throws SQLException {
    if (loaded != null) {
      loaded = null;
      execute("DROP TABLE IF EXISTS r");
      execute("DROP TABLE IF EXISTS s");
    }
  }

  /** A query's single row as text, for tests and checks. */
  String[] queryRow(String sql) throws SQLException {
    try (Statement st = connection.createStatement(); ResultSet rs = st.executeQuery(sql)) {
      if (!rs.next()) {
        return null;
      }
      String[] row = new String[rs.getMetaData().getColumnCount()];
      for (int c = 0; c < row.length; c++) {
        row[c] = rs.getString(c + 1);
      }
      return row;
    }
  }

  /** R: key ordinal i * PERMUTE mod |R| (or a Zipf rank's, drawn once per row, with skew on both sides). */
  static String buildSql(JoinBenchmarkData.Spec spec, boolean rowIds) {
    long n = spec.buildRows();
    String source = "range(" + n + ") t(i)";
    String rank = "i";
    String draw = "draw(" + u(spec.seed() * JoinBenchmarkData.PERMUTE) + ", i, 0, 1)";
    if (spec.bothSides() && spec.zipf() > 0) {
      source = "(SELECT i, unif(" + draw + ") AS u FROM " + source + ") g ASOF JOIN zipf_cdf c ON g.u <= c.c";
      rank = "c.k";
    } else if (spec.bothSides()) {
      rank = draw + " & " + (n - 1);  // uniform with duplicates
    }
    String payload = typed(spec, "xor(h, h >> 29) | 1");
    return "CREATE OR REPLACE TABLE r AS SELECT " + (rowIds ? "i, " : "") + typed(spec, "kb") + " AS k, " + payload
        + " AS v FROM (SELECT i, kb, mul64(xor(kb, kb >> 31), " + u(JoinBenchmarkData.PERMUTE) + ") AS h FROM"
        + " (SELECT i, " + keyBits(spec, "mul64(" + rank + ", " + u(JoinBenchmarkData.PERMUTE) + ") & " + (n - 1))
        + " AS kb FROM " + source + "))";
  }

  /** S: draws payload, match and rank per row; a match takes a key of R's set, a miss one outside it. */
  static String probeSql(JoinBenchmarkData.Spec spec, boolean rowIds) {
    long n = spec.buildRows();
    String base = u((spec.seed() + 1) * JoinBenchmarkData.PERMUTE);
    double sel = spec.selectivity();
    String match = sel >= 1 ? "true" : sel <= 0 ? "false"
        : "unif(draw(" + base + ", i, 1, 3)) < CAST('" + sel + "' AS DOUBLE)";
    String draws = "(SELECT i, draw(" + base + ", i, 0, 3) AS d0, draw(" + base + ", i, 2, 3) AS d2, " + match
        + " AS m FROM range(" + spec.probeRows() + ") t(i))";
    String rank = "d2 & " + (n - 1);
    if (spec.zipf() > 0) {
      draws = "(SELECT g.*, c.k AS rank FROM (SELECT *, unif(d2) AS u FROM " + draws + ") g ASOF JOIN zipf_cdf c"
          + " ON g.u <= c.c)";
      rank = "rank";
    }
    String hit = keyBits(spec, "mul64(" + rank + ", " + u(JoinBenchmarkData.PERMUTE) + ") & " + (n - 1));
    String miss = keyBits(spec, "(" + n + "::UBIGINT + (d2 & " + (n - 1) + "))");
    return "CREATE OR REPLACE TABLE s AS SELECT " + (rowIds ? "i, " : "") + typed(spec, "kb") + " AS k, "
        + typed(spec, "d0 | 1") + " AS v FROM (SELECT i, d0, CASE WHEN m THEN " + hit + " ELSE " + miss
        + " END AS kb FROM " + draws + ")";
  }

  /** The 64 bits of the Java long key of ordinal {@code o}: o, o * SPARSE, or its sign-extended low 32 bits. */
  private static String keyBits(JoinBenchmarkData.Spec spec, String o) {
    if (!spec.sparse()) {
      return "(" + o + ")::UBIGINT";
    }
    String product = "mul64(" + o + ", " + u(JoinBenchmarkData.SPARSE) + ")";
    return spec.type() == ColumnType.INT32 ? "u64(s32(" + product + ")::BIGINT)" : product;
  }

  /** The column value of 64 bits {@code x}: a BIGINT, or an INTEGER of its low 32 bits. */
  private static String typed(JoinBenchmarkData.Spec spec, String x) {
    return spec.type() == ColumnType.INT32 ? "s32(" + x + ")" : "s64(" + x + ")";
  }

  /** The Zipf distribution's cumulative probabilities as exact decimal text: rank, probability. */
  private Path writeCdf(JoinBenchmarkData.Spec spec) {
    ZipfDistribution zipf = new ZipfDistribution(Math.toIntExact(spec.buildRows()), spec.zipf());
    Path file = tempDir.resolve("zipf-" + spec.seed() + ".csv");
    try (BufferedWriter out = Files.newBufferedWriter(file, StandardCharsets.US_ASCII)) {
      for (int k = 0; k < zipf.size(); k++) {
        out.write(Integer.toString(k));
        out.write(',');
        out.write(Double.toString(zipf.cumulative(k)));  // shortest text that parses back to the same double
        out.write('\n');
      }
    } catch (IOException e) {
      throw new UncheckedIOException("writing the Zipf CDF of " + spec.name() + " to " + file, e);
    }
    return file;
  }

  private static long wrap(String hugeint) {
    return hugeint == null ? 0 : new BigInteger(hugeint).longValue();  // low 64 bits: Java's wrapping sum
  }

  static String u(long bits) {
    return Long.toUnsignedString(bits);
  }

  private void execute(String sql) throws SQLException {
    try (Statement st = connection.createStatement()) {
      st.execute(sql);
    }
  }

  private static void deleteQuietly(Path p) {
    try {
      Files.deleteIfExists(p);
    } catch (IOException e) {
      System.out.println("could not delete " + p + ": " + e);
    }
  }

  @Override
  public void close() throws SQLException {
    try {
      drop();
    } finally {
      connection.close();
      deleteQuietly(tempDir.resolve("spill"));
      deleteQuietly(tempDir);
    }
  }
}
