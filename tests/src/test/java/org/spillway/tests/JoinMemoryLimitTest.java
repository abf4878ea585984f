package org.spillway.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.spillway.gpu.device.MemoryGuard;
import org.spillway.gpu.device.SpillwayResourceException;

/**
 * Issue #12 item 9 at SF 0.01, with the memory guard's limit set small instead of exhausting the machine:
 * {@code COUNT(*)} over lineitem joined to itself on l_partkey (about 1.8 M rows) only counts the join's rows
 * (no row ids, no gathered column), an aggregate over a join streams the joined rows into it, and a join whose
 * output exceeds the limit fails with SQLSTATE 53200's error instead of OutOfMemoryError.
 */
@ExtendWith(TpchDataExtension.class)
class JoinMemoryLimitTest {
  private static final String SELF_JOIN =
      "SELECT COUNT(*) AS c FROM lineitem a JOIN lineitem b ON a.l_partkey = b.l_partkey";

  @AfterEach void clearLimit() {
    System.clearProperty(MemoryGuard.LIMIT_PROPERTY);
  }

  @Test void countOverAJoinStoresNoRowIdsAndGathersNoColumn(TpchDataSet data) throws SQLException {
    // Less than the join's row ids (8 bytes a row) or one gathered column (9) would take: only counting fits.
    System.setProperty(MemoryGuard.LIMIT_PROPERTY, "1m");
    String leftJoin = "SELECT COUNT(*) AS c FROM orders o LEFT JOIN lineitem l ON o.o_orderkey = l.l_orderkey"
        + " AND l.l_quantity > 45";
    try (Connection spillway = DriverManager.getConnection(data.spillwayUrl() + ";device=cpu")) {
      assertEquals(count(data.duckDb(), SELF_JOIN), count(spillway, SELF_JOIN));
      assertEquals(count(data.duckDb(), leftJoin), count(spillway, leftJoin));
    }
  }

  /** A pipelined join streams into the aggregate above it: neither its pairs nor its probe side are stored. */
  @Test void anAggregateOverAJoinStoresNoPairs(TpchDataSet data) throws SQLException {
    String sum = "SELECT SUM(a.l_quantity) AS q FROM lineitem a JOIN lineitem b ON a.l_partkey = b.l_partkey";
    System.setProperty(MemoryGuard.LIMIT_PROPERTY, "1m");
    try (Connection spillway = DriverManager.getConnection(data.spillwayUrl() + ";device=cpu")) {
      assertEquals(count(data.duckDb(), sum), count(spillway, sum));
    }
  }

  @Test void aJoinOutputBeyondTheLimitFailsWithOneClearError(TpchDataSet data) throws SQLException {
    String pairs = "SELECT a.l_orderkey, b.l_orderkey FROM lineitem a JOIN lineitem b ON a.l_partkey = b.l_partkey";
    System.setProperty(MemoryGuard.LIMIT_PROPERTY, "1m");
    try (Connection spillway = DriverManager.getConnection(data.spillwayUrl() + ";device=cpu")) {
      SQLException e = assertThrows(SQLException.class, () -> count(spillway, pairs));
      assertResourceError(e, "out of memory: the output of a pipeline");
      System.clearProperty(MemoryGuard.LIMIT_PROPERTY);
      assertEquals(count(data.duckDb(), SELF_JOIN), count(spillway, SELF_JOIN), "the connection still works");
    }
  }

  private static void assertResourceError(SQLException e, String what) {
    SpillwayResourceException cause = null;
    for (Throwable t = e; t != null && cause == null; t = t.getCause()) {
      cause = t instanceof SpillwayResourceException r ? r : null;
    }
    assertNotNull(cause, "no SpillwayResourceException behind " + e);
    assertEquals("53200", cause.sqlState());
    assertTrue(cause.getMessage().contains(what) && cause.getMessage().contains(" bytes, "), cause.getMessage());
  }

  private static long count(Connection connection, String sql) throws SQLException {
    try (Statement statement = connection.createStatement(); ResultSet resultSet = statement.executeQuery(sql)) {
      resultSet.next();
      return resultSet.getLong(1);
    }
  }
}
