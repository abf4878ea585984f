package org.spillway.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Locale;
import java.util.Properties;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.api.io.TempDir;

/**
 * Errors through {@link DriverManager}: each must be an SQLException whose message says what is wrong and
 * where, asserted on the facts the message has to carry rather than on Calcite's wording.
 */
@ExtendWith(TpchDataExtension.class)
class SpillwayJdbcErrorTest {
  @Test
  void syntaxErrorReportsParseProblemAndPosition(TpchDataSet data) throws SQLException {
    // "form" is taken as an alias of l_orderkey, so the parser stops at "lineitem", line 1, column 24.
    SQLException e = queryException(data, "select l_orderkey form lineitem");
    assertEquals("42601", e.getSQLState(), e.toString());
    String message = e.getMessage();
    assertContains(message, "parse");
    assertTrue(message.matches("(?s).*line 1, column 24.*"), "position of the offending token in: " + message);
  }

  /** Issue #12: a date past 9999-12-31 was printed as 0000-01-01; it is SQLSTATE 22008, datetime field overflow. */
  @Test
  void dateOutOfRangeIsDatetimeFieldOverflow(TpchDataSet data) throws SQLException {
    for (String sql : new String[] {"select date '9999-12-31' + interval '1' day",
        "select o_orderdate + interval '3000' year(4) + interval '5002' year(4) from orders"}) {
      SQLException e = queryException(data, sql);
      assertEquals("22008", e.getSQLState(), e.toString());
      assertContains(e.getMessage(), "date out of range");
    }
    try (Connection connection = DriverManager.getConnection(data.spillwayUrl());
         Statement statement = connection.createStatement();
         ResultSet rs = statement.executeQuery("select max(o_orderdate + interval '8000' year(4)) from orders")) {
      assertTrue(rs.next());
      assertTrue(rs.getString(1).startsWith("999"), rs.getString(1));
    }
  }

  @Test
  void unknownTableIsNamed(TpchDataSet data) throws SQLException {
    assertContains(queryError(data, "select count(*) from no_such_table"), "no_such_table");
    assertEquals("42P01", queryException(data, "select count(*) from no_such_table").getSQLState());
  }

  @Test
  void unknownColumnIsNamed(TpchDataSet data) throws SQLException {
    assertContains(queryError(data, "select l_no_such_column from lineitem"), "l_no_such_column");
    assertEquals("42703", queryException(data, "select l_no_such_column from lineitem").getSQLState());
  }

  @Test
  void unknownUrlPropertyIsNamed(TpchDataSet data) {
    String url = data.spillwayUrl() + ";bogus=1";
    assertContains(connectError(() -> DriverManager.getConnection(url).close()), "bogus");
  }

  @Test
  void unknownPropertiesEntryIsNamed(TpchDataSet data) {
    Properties info = new Properties();
    info.setProperty("bogusKey", "1");
    assertContains(connectError(() -> DriverManager.getConnection(data.spillwayUrl(), info).close()), "bogusKey");
  }

  @Test
  void missingDataDirectoryIsNamed(@TempDir Path tempDir) {
    Path missing = tempDir.resolve("no-such-catalog");
    String message = connectError(() -> DriverManager.getConnection("jdbc:spillway:dataDir=" + missing).close());
    assertContains(message, missing.toString());
  }

  @Test
  void dataDirectoryThatIsAFileIsNamed(@TempDir Path tempDir) throws IOException {
    Path file = Files.writeString(tempDir.resolve("not-a-directory"), "x");
    String message = connectError(() -> DriverManager.getConnection("jdbc:spillway:dataDir=" + file).close());
    assertContains(message, file.toString());
  }

  @Test
  void connectionStillWorksAfterAnError(TpchDataSet data) throws SQLException {
    try (Connection connection = DriverManager.getConnection(data.spillwayUrl());
         Statement statement = connection.createStatement()) {
      assertThrows(SQLException.class, () -> statement.executeQuery("select * from no_such_table"));
      try (ResultSet resultSet = statement.executeQuery("select count(*) from region")) {
        assertTrue(resultSet.next());
        assertEquals(5, resultSet.getLong(1));
      }
    }
  }

  /**
   * The message of the SQLException that {@code sql} raises, with any echo of the statement itself removed:
   * the statement contains the names the message must mention, so an echo alone would prove nothing.
   */
  private static String queryError(TpchDataSet data, String sql) throws SQLException {
    try (Connection connection = DriverManager.getConnection(data.spillwayUrl());
         Statement statement = connection.createStatement()) {
      String message = assertThrows(SQLException.class, () -> statement.executeQuery(sql).close(),
          "expected an SQLException for: " + sql).getMessage();
      return message == null ? null : message.replace(sql, "");
    }
  }

  /** The SQLException that {@code sql} raises, from execute or from fetching its rows. */
  private static SQLException queryException(TpchDataSet data, String sql) throws SQLException {
    try (Connection connection = DriverManager.getConnection(data.spillwayUrl());
         Statement statement = connection.createStatement()) {
      return assertThrows(SQLException.class, () -> {
        try (ResultSet resultSet = statement.executeQuery(sql)) {
          while (resultSet.next()) {
            resultSet.getObject(1);
          }
        }
      }, "expected an SQLException for: " + sql);
    }
  }

  private static String connectError(Executable connect) {
    return assertThrows(SQLException.class, connect, "expected connecting to fail").getMessage();
  }

  private static void assertContains(String message, String fact) {
    assertTrue(message != null && message.toLowerCase(Locale.ROOT).contains(fact.toLowerCase(Locale.ROOT)),
        () -> "message should name '" + fact + "' but was: " + message);
  }
}
