package org.spillway.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.spillway.adapter.CatalogRegistry;
import org.spillway.adapter.jdbc.SpillwayDriver;
import org.spillway.storage.Catalog;
import org.spillway.storage.StorageException;
import org.spillway.storage.imports.ImportOptions;
import org.spillway.storage.imports.TableImport;
import org.spillway.storage.imports.TimestampMode;

/**
 * Parquet files as DuckDB writes them (each compression, dictionary and plain pages, several row groups, every type
 * Spillway holds, NULLs, TIMESTAMP) imported and queried through Spillway against DuckDB reading the same file;
 * CREATE TABLE AS over the imported table against DuckDB's answer; types Spillway cannot hold refused.
 */
class ImportOracleTest {
  private static final int ROWS = 5000;
  /** Every type; flags and words repeat (DuckDB writes dictionary pages), comments are unique (plain pages). */
  private static final String COLUMNS = "SELECT i::INTEGER AS id, (i * 7919 - 3000000)::BIGINT AS big,"
      + " (i % 200 - 100)::SMALLINT AS small,"
      + " CASE WHEN i % 11 = 0 THEN NULL ELSE i / 8.0 END::DOUBLE AS x, (i / 4)::FLOAT AS f,"
      + " CASE WHEN i % 13 = 0 THEN NULL ELSE i * 1.01 END::DECIMAL(15,2) AS price,"
      + " (i % 1000 * 0.001)::DECIMAL(9,3) AS rate, (i * 12345.6789)::DECIMAL(18,4) AS wide,"
      + " DATE '1992-01-01' + (i % 2500)::INTEGER AS dt,"
      + " ['A', 'N', 'R'][i % 3 + 1] AS flag, CASE WHEN i % 17 = 0 THEN NULL ELSE 'word' || (i % 40) END AS word,"
      + " 'comment ' || i || ' ünï' AS comment,"
      + " TIMESTAMP '2024-02-29 13:00:00' + to_microseconds(i * 1000003) AS stamp"
      + " FROM range(" + ROWS + ") AS r(i)";

  @TempDir static Path tmp;
  private static Connection duckDb;

  @BeforeAll static void openDuckDb() throws SQLException {
    duckDb = DriverManager.getConnection("jdbc:duckdb:");
  }

  @AfterAll static void closeDuckDb() throws SQLException {
    duckDb.close();
  }

  @ParameterizedTest
  @ValueSource(strings = {"uncompressed", "snappy", "zstd", "gzip"})
  void duckDbFilesReadAsDuckDbReadsThem(String compression) throws Exception {
    Path file = tmp.resolve(compression + ".parquet");
    execute(duckDb, "COPY (" + COLUMNS + ") TO '" + file + "' (FORMAT PARQUET, COMPRESSION " + compression
        + ", ROW_GROUP_SIZE 1024)");
    Path data = tmp.resolve("data-" + compression);
    try (Catalog catalog = Catalog.create(data)) {
      TableImport.run(catalog, "t", List.of(file), ImportOptions.defaults().withTimestamps(TimestampMode.MICROS));
    }
    try (Connection spillway = connect(data)) {
      String columns = "id, big, small, x, f, price, rate, wide, dt, flag, word, comment";
      compare("all rows, " + compression, "SELECT " + columns + ", stamp FROM t ORDER BY id",
          "SELECT " + columns + ", epoch_us(stamp) AS stamp FROM read_parquet('" + file + "') ORDER BY id", spillway);
      // the table is an ordinary table: a query, and CREATE TABLE AS over it, answer as DuckDB does
      String summary = "SELECT flag, COUNT(*) AS n, SUM(price) AS total, MIN(dt) AS first_day, AVG(x) AS mean,"
          + " COUNT(word) AS words FROM %s WHERE small > -50 GROUP BY flag";
      execute(spillway, "CREATE TABLE summary AS " + String.format(summary, "t"));
      compare("CREATE TABLE AS, " + compression, "SELECT * FROM summary ORDER BY flag",
          String.format(summary, "read_parquet('" + file + "')") + " ORDER BY flag", spillway);
    } finally {
      CatalogRegistry.close(data);
    }
  }

  @Test void anEmptyFileMakesAnEmptyTable() throws Exception {
    Path file = tmp.resolve("empty.parquet");
    execute(duckDb, "COPY (" + COLUMNS + " WHERE i < 0) TO '" + file + "' (FORMAT PARQUET)");
    try (Catalog catalog = Catalog.create(tmp.resolve("data-empty"))) {
      var table = TableImport.run(catalog, "t", List.of(file), ImportOptions.defaults()
          .withTimestamps(TimestampMode.DATE)).table();
      assertEquals(0, table.rowCount());
      assertEquals(13, table.schema().size());
    }
  }

  @Test void typesSpillwayCannotHoldAreRefusedByName() throws Exception {
    for (String[] refused : new String[][] {{"SELECT [1, 2] AS xs", "column xs"},
        {"SELECT 1::DECIMAL(38,2) AS h", "column h of type FIXED_LEN_BYTE_ARRAY (DECIMAL(38,2))"},
        {"SELECT true AS ok", "column ok of type BOOLEAN"}}) {
      Path file = tmp.resolve("refused.parquet");
      Files.deleteIfExists(file);
      execute(duckDb, "COPY (" + refused[0] + ") TO '" + file + "' (FORMAT PARQUET)");
      Path data = tmp.resolve("data-refused");
      try (Catalog catalog = Catalog.create(data)) {
        StorageException e = assertThrows(StorageException.class,
            () -> TableImport.run(catalog, "t", List.of(file), ImportOptions.defaults()));
        assertTrue(e.getMessage().startsWith(file + ": " + refused[1]), e.getMessage());
        assertEquals(List.of(), catalog.tableNames());
      }
    }
  }

  private static void compare(String name, String spillwaySql, String duckDbSql, Connection spillway)
      throws SQLException {
    QueryResult actual = query(spillway, spillwaySql);
    QueryResult expected = query(duckDb, duckDbSql);
    assertTrue(actual.rows().size() > 0 || expected.rows().isEmpty(), name);
    Optional<String> difference = new ResultComparator(name, List.of(actual.labels().get(0)), OptionalLong.empty())
        .compare(actual, expected);
    assertTrue(difference.isEmpty(), () -> difference.get());
  }

  private static QueryResult query(Connection connection, String sql) throws SQLException {
    try (Statement statement = connection.createStatement(); ResultSet rs = statement.executeQuery(sql)) {
      return QueryResult.read(rs);
    }
  }

  private static void execute(Connection connection, String sql) throws SQLException {
    try (Statement statement = connection.createStatement()) {
      statement.execute(sql);
    }
  }

  private static Connection connect(Path data) throws SQLException {
    return DriverManager.getConnection(SpillwayDriver.CONNECT_STRING_PREFIX + "dataDir=" + data + ";device=cpu");
  }
}
