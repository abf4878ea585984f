package org.spillway.adapter;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.spillway.adapter.jdbc.SpillwayDriver;
import org.spillway.storage.BatchBuilder;
import org.spillway.storage.Catalog;
import org.spillway.storage.ColumnDef;
import org.spillway.storage.StoredTable;
import org.spillway.storage.TableSchema;
import org.spillway.storage.TableWriter;

/**
 * CREATE TABLE AS, DROP TABLE and the file-reading table functions through JDBC: the new table holds the query's
 * rows with Spillway types and statistics, is visible at once to this and other connections and to another
 * catalog of the directory (another process), and a failing statement leaves no table.
 */
class SpillwayTableStatementsTest {
  private static final int ROWS = 1000;

  @TempDir Path dir;

  @BeforeEach void createTable() {
    TableSchema schema = TableSchema.of(ColumnDef.of("id", "INTEGER NOT NULL"), ColumnDef.of("price", "DECIMAL(12,2)"),
        ColumnDef.of("dt", "DATE"), ColumnDef.of("flag", "CHAR(1)"), ColumnDef.of("x", "DOUBLE"));
    try (Catalog catalog = Catalog.create(dir); TableWriter writer = catalog.createTable("t", schema)) {
      BatchBuilder batch = writer.newBatch(ROWS);
      for (int i = 0; i < ROWS; i++) {
        batch.setInt(0, i, i);
        batch.setDecimal(1, i, i * 101L);
        batch.setDate(2, i, 9_000 + i % 30);
        batch.setString(3, i, i % 3 == 0 ? "A" : "B");
        if (i % 10 == 0) {
          batch.setNull(4, i);
        } else {
          batch.setDouble(4, i, i / 8.0);
        }
      }
      batch.setRowCount(ROWS);
      writer.append(batch);
      writer.commit();
    }
  }

  @AfterEach void closeCatalog() {
    CatalogRegistry.close(dir);
  }

  private Connection connect() throws SQLException {
    return DriverManager.getConnection(SpillwayDriver.CONNECT_STRING_PREFIX + "dataDir=" + dir + ";device=cpu");
  }

  @Test void createTableAsKeepsTheRowsTypesAndStatisticsAndIsVisibleAtOnce() throws SQLException {
    String query = "SELECT flag, dt, COUNT(*) AS n, SUM(price) AS total, MAX(x) AS top FROM t WHERE id >= 10"
        + " GROUP BY flag, dt";
    try (Connection connection = connect(); Connection other = connect();
        Statement statement = connection.createStatement()) {
      // the other connection has planned over the schema before the table exists
      assertEquals(List.of("1000"), rows(other, "SELECT COUNT(*) FROM t"));
      assertEquals(0, statement.executeUpdate("CREATE TABLE summary AS " + query));
      String order = " ORDER BY flag, dt";
      assertEquals(rows(connection, query + order), rows(connection, "SELECT * FROM summary" + order));
      assertEquals(rows(connection, query + order), rows(other, "SELECT * FROM summary" + order),
          "another connection sees the table on its next statement");
      try (Catalog elsewhere = Catalog.open(dir)) {
        StoredTable summary = elsewhere.table("summary").orElseThrow();
        assertEquals(TableSchema.of(ColumnDef.of("flag", "VARCHAR(1)"), ColumnDef.of("dt", "DATE"),
            ColumnDef.of("n", "BIGINT NOT NULL"), ColumnDef.of("total", "DECIMAL(18,2)"),
            ColumnDef.of("top", "DOUBLE")), summary.schema());
        assertEquals(30, summary.rowCount(), "the flag follows from the day: one group per day");
        assertEquals(30, summary.statistics().columns().get(1).distinctCount(), "statistics were collected");
        assertTrue(summary.isDictionaryEncoded(0), "the generator's dictionary decision: 2 values in 30 rows");
      }
      assertEquals(0, statement.executeUpdate("DROP TABLE summary"));
      assertFalse(Files.exists(dir.resolve("summary")));
      assertEquals(0, statement.executeUpdate("DROP TABLE IF EXISTS summary"));
      assertThrows(SQLException.class, () -> rows(other, "SELECT * FROM summary"));
    }
  }

  @Test void aTableAnotherProcessCreatesIsSeenWithoutRestart() throws SQLException {
    try (Connection connection = connect()) {
      assertEquals(List.of("1000"), rows(connection, "SELECT COUNT(*) FROM t"));
      try (Catalog elsewhere = Catalog.open(dir); TableWriter writer = elsewhere.createTable("late",
          TableSchema.of(ColumnDef.of("k", "BIGINT")))) {
        BatchBuilder batch = writer.newBatch(2);
        batch.setLong(0, 0, 7);
        batch.setLong(0, 1, 8);
        batch.setRowCount(2);
        writer.append(batch);
        writer.commit();
      }
      assertEquals(List.of("15"), rows(connection, "SELECT SUM(k) FROM late"));
      try (Catalog elsewhere = Catalog.open(dir)) {
        elsewhere.dropTable("late");
      }
      SQLException gone = assertThrows(SQLException.class, () -> rows(connection, "SELECT SUM(k) FROM late"));
      assertTrue(gone.getMessage().contains("LATE") || gone.getMessage().contains("late"), gone.getMessage());
    }
  }

  @Test void failuresLeaveNoTable() throws Exception {
    try (Connection connection = connect(); Statement statement = connection.createStatement()) {
      // SUM widens to DECIMAL(19,0), kept as DECIMAL(18,0) while the values fit
      assertState(statement, "CREATE TABLE w AS SELECT SUM(x) AS wide FROM (VALUES CAST(999999999999999999 AS"
          + " DECIMAL(18,0)), CAST(999999999999999999 AS DECIMAL(18,0))) AS v(x)", "22000",
          "cannot create table w: table w, column wide DECIMAL(18,0), batch row 0: value 1999999999999999998 does"
          + " not fit DECIMAL(18,0)");
      assertState(statement, "CREATE TABLE t AS SELECT 1 AS a", "42P07", "cannot create table t: a table of that"
          + " name exists");
      assertState(statement, "CREATE TABLE b AS SELECT id > 5 AS big FROM t", "42804", "cannot create table b:"
          + " column big is BOOLEAN NOT NULL: Spillway has no BOOLEAN type");
      assertState(statement, "CREATE TABLE d AS SELECT 1 / (id - 500) AS boom FROM t", "22012", null);
      assertState(statement, "DROP TABLE nope", "42P01", "cannot drop table nope: it does not exist");
      assertState(statement, "CREATE TABLE x (a INT)", "42601", "cannot parse the statement");
      assertEquals(List.of("t"), tables());
    }
  }

  @Test void filesAreTablesThroughTableFunctions() throws Exception {
    Path csv = Files.writeString(dir.resolveSibling(dir.getFileName() + "-in.csv"), "k,name\n1,one\n2,two\n3,\n");
    try (Connection connection = connect(); Statement statement = connection.createStatement()) {
      String read = "SELECT k, name FROM TABLE(read_csv('" + csv + "')) WHERE k > 1 ORDER BY k";
      assertEquals(List.of("2|two", "3|null"), rows(connection, read));
      statement.executeUpdate("CREATE TABLE from_file AS SELECT * FROM TABLE(read_csv('" + csv + "'))");
      assertEquals(List.of("6"), rows(connection, "SELECT SUM(k) FROM from_file"));
      // a changed file is read again, by the same statement text too
      Files.writeString(csv, "k,name\n10,ten\n20,twenty\n");
      assertEquals(List.of("10|ten", "20|twenty"), rows(connection, read));
      assertState(statement, "SELECT * FROM TABLE(read_parquet('" + dir.resolve("missing.parquet") + "'))", null,
          "missing.parquet");
    } finally {
      Files.delete(csv);
    }
  }

  private List<String> tables() throws Exception {
    try (Stream<Path> children = Files.list(dir)) {
      return children.map(p -> p.getFileName().toString()).sorted().toList();
    }
  }

  private static void assertState(Statement statement, String sql, String state, String message) {
    SQLException e = assertThrows(SQLException.class, () -> statement.execute(sql), sql);
    if (state != null) {
      assertEquals(state, e.getSQLState(), e.getMessage());
    }
    if (message != null) {
      assertTrue(e.getMessage().contains(message), e.getMessage());
    }
  }

  private static List<String> rows(Connection connection, String sql) throws SQLException {
    List<String> rows = new ArrayList<>();
    try (Statement statement = connection.createStatement(); ResultSet rs = statement.executeQuery(sql)) {
      int columns = rs.getMetaData().getColumnCount();
      while (rs.next()) {
        StringBuilder row = new StringBuilder();
        for (int c = 1; c <= columns; c++) {
          Object value = rs.getObject(c);
          row.append(c > 1 ? "|" : "").append(value instanceof BigDecimal d ? d.toPlainString() : value);
        }
        rows.add(row.toString());
      }
    }
    return rows;
  }
}
