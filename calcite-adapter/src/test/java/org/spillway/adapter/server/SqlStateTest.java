package org.spillway.adapter.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.calcite.avatica.AvaticaSqlException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.spillway.adapter.jdbc.SpillwayStatementGuard;

/**
 * The repros, embedded and remote: each failure is an SQLException with the SQLSTATE of its class, and
 * cancel and timeouts stop even the queries Calcite runs itself within about a second.
 */
class SqlStateTest {
  /** A cross join Calcite runs as a nested loop: 60175 x 15000 pairs, minutes of one core. */
  static final String CROSS_JOIN_COUNT = "select count(*) from lineitem, orders";

  @RegisterExtension
  static final TpchServerExtension SERVER = new TpchServerExtension();

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "select l_orderkey form lineitem | 42601",
      "select * from no_such_table | 42P01",
      "select no_such_column from lineitem | 42703",
      "select cast('abc' as integer) | 22P02",
      "select 1/0 | 22012",
      "select cast('2020-13-45' as date) | 22008",
      "select cast(n_name as date) from nation | 22007",
      "select 2147483647 + n_nationkey * 2147483647 from nation | 22003",
  })
  void embeddedFailuresCarryTheirState(String sql, String sqlState) throws SQLException {
    try (Connection connection = TpchTestData.embedded()) {
      // Twice: the second run of a cached plan must fail the same way (1/0 used to become NoClassDefFoundError).
      for (int run = 0; run < 2; run++) {
        final SQLException e = assertThrows(SQLException.class, () -> drain(connection, sql));
        assertEquals(sqlState, e.getSQLState(), e.toString());
      }
      assertEquals(5, count(connection, "select count(*) from region"));
    }
  }

  /** The driver's JDBC objects are wrapped to map errors; the wrappers must not change what clients see. */
  @Test
  void wrappedObjectsKeepIdentityAndUnwrap() throws SQLException {
    try (Connection connection = TpchTestData.embedded(); Statement statement = connection.createStatement();
        ResultSet resultSet = statement.executeQuery("select n_name from nation")) {
      assertTrue(resultSet.getStatement() == statement, "ResultSet.getStatement() is the client's statement");
      assertTrue(statement.getConnection() == connection, "Statement.getConnection() is the client's connection");
      assertTrue(connection.isWrapperFor(org.apache.calcite.jdbc.CalciteConnection.class));
      assertEquals("spillway", connection.unwrap(org.apache.calcite.jdbc.CalciteConnection.class).getSchema());
      assertTrue(statement.unwrap(org.apache.calcite.avatica.AvaticaStatement.class)
          instanceof org.apache.calcite.avatica.AvaticaStatement, "unwrap reaches Avatica's statement");
      // only what a method is declared to return as a JDBC interface is wrapped; values come back as they are
      try (java.sql.PreparedStatement prepared = connection.prepareStatement(
          "select n_nationkey, n_name from nation where n_nationkey = ?")) {
        prepared.setInt(1, 3);
        try (ResultSet rows = prepared.executeQuery()) {
          assertTrue(rows.getStatement() == prepared, "the prepared statement's rows know it");
          assertTrue(rows.next());
          assertEquals(3, rows.getInt(1));
          assertEquals(3, ((Number) rows.getObject(1)).intValue());
          assertEquals("CANADA", rows.getString(2));
          assertEquals("CANADA", rows.getObject("n_name"));
          assertFalse(rows.next());
        }
      }
      java.sql.DatabaseMetaData metadata = connection.getMetaData();
      assertTrue(metadata.getConnection() == connection, "the metadata's connection is the client's");
      try (ResultSet tables = metadata.getTables(null, null, "nation", null)) {
        assertTrue(tables.next(), "the metadata's result sets are read through the wrapper too");
      }
    }
  }

  @Test
  void deepExpressionIsTooComplexNotAStackOverflow() throws SQLException {
    try (Connection connection = TpchTestData.embedded()) {
      final SQLException e = assertThrows(SQLException.class, () -> drain(connection, chain(2_000)));
      assertEquals("54001", e.getSQLState(), e.toString());
    }
  }

  @Test
  void overlongStatementIsRefusedBeforeParsing() throws SQLException {
    final String sql = chain(SpillwayStatementGuard.MAX_STATEMENT_LENGTH);
    try (Connection connection = TpchTestData.embedded()) {
      final long start = System.nanoTime();
      final SQLException e = assertThrows(SQLException.class, () -> drain(connection, sql));
      assertEquals("54000", e.getSQLState(), e.toString());
      assertTrue(System.nanoTime() - start < TimeUnit.SECONDS.toNanos(1), "refused without parsing");
    }
    try (Connection remote = DriverManager.getConnection(SERVER.jdbcUrl())) {
      final SQLException e = assertThrows(SQLException.class, () -> drain(remote, sql));
      assertEquals("54000", e.getSQLState(), e.toString());
    }
  }

  @Test
  void cancelStopsACalciteJoinAndTheStatementRunsAgain() throws Exception {
    final ScheduledExecutorService canceller = Executors.newSingleThreadScheduledExecutor();
    try (Connection connection = TpchTestData.embedded(); Statement statement = connection.createStatement()) {
      canceller.schedule(() -> {
        statement.cancel();
        return null;
      }, 300, TimeUnit.MILLISECONDS);
      final long start = System.nanoTime();
      final SQLException e = assertThrows(SQLException.class, () -> drain(statement, CROSS_JOIN_COUNT));
      final long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
      assertEquals("57014", e.getSQLState(), e.toString());
      assertTrue(millis < 300 + 1_000, "cancel took effect after " + millis + " ms");
      assertEquals(25, count(statement, "select count(*) from nation"));
    } finally {
      canceller.shutdownNow();
    }
  }

  @Test
  void embeddedQueryTimeoutIsEnforced() throws SQLException {
    try (Connection connection = TpchTestData.embedded(); Statement statement = connection.createStatement()) {
      statement.setQueryTimeout(1);
      final long start = System.nanoTime();
      final SQLException e = assertThrows(SQLException.class, () -> drain(statement, CROSS_JOIN_COUNT));
      final long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
      assertEquals("57014", e.getSQLState(), e.toString());
      assertTrue(e.getMessage().contains("timeout"), e.getMessage());
      assertTrue(millis < 2_000, "timeout took effect after " + millis + " ms");
      assertEquals(25, count(statement, "select count(*) from nation"));
    }
  }

  @Test
  void remoteFailuresCarryStateAndLogIdButNoStackTrace() throws SQLException {
    try (Connection remote = DriverManager.getConnection(SERVER.jdbcUrl())) {
      for (String[] failure : new String[][] {
          {"select l_orderkey form lineitem", "42601"}, {"select * from no_such_table", "42P01"},
          {"select 1/0", "22012"}, {"select cast('abc' as integer)", "22P02"}, {chain(2_000), "54001"}}) {
        final SQLException e = assertThrows(SQLException.class, () -> drain(remote, failure[0]));
        assertEquals(failure[1], e.getSQLState(), e.toString());
        final String whole = e.getMessage() + (e.getCause() == null ? "" : e.getCause().getMessage());
        assertTrue(whole.contains("server log id"), whole);
        assertFalse(whole.contains("\tat "), "stack trace sent to the client: " + whole);
        assertFalse(whole.contains("org.apache.calcite."), "internals sent to the client: " + whole);
        if (e instanceof AvaticaSqlException avatica) {
          // Avatica sends the server's stack traces alongside the message unless the server strips them.
          for (String trace : avatica.getStackTraces()) {
            assertFalse(trace.contains("\tat "), "stack trace sent to the client: " + trace);
          }
        }
      }
      assertEquals(5, count(remote, "select count(*) from region"));
    }
  }

  /** {@code select 1+1+...+1}, {@code terms} terms deep. */
  static String chain(int terms) {
    final StringBuilder sql = new StringBuilder("select 1");
    for (int i = 0; i < terms; i++) {
      sql.append("+1");
    }
    return sql.toString();
  }

  static void drain(Connection connection, String sql) throws SQLException {
    try (Statement statement = connection.createStatement()) {
      drain(statement, sql);
    }
  }

  static void drain(Statement statement, String sql) throws SQLException {
    try (ResultSet resultSet = statement.executeQuery(sql)) {
      while (resultSet.next()) {
        resultSet.getObject(1);
      }
    }
  }

  private static long count(Connection connection, String sql) throws SQLException {
    try (Statement statement = connection.createStatement()) {
      return count(statement, sql);
    }
  }

  private static long count(Statement statement, String sql) throws SQLException {
    try (ResultSet resultSet = statement.executeQuery(sql)) {
      assertTrue(resultSet.next());
      return resultSet.getLong(1);
    }
  }
}
