package org.spillway.adapter.jdbc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigDecimal;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.spillway.adapter.CatalogRegistry;

/**
 * A result set's value getters, which the proxy calls directly rather than by reflection, answer as the wrapped result
 * set does and fail as every other call does: with an SQLException of the failure's class.
 */
class SpillwayJdbcProxyTest {
  @TempDir static Path dir;

  @AfterAll static void closeCatalogs() {
    CatalogRegistry.close(dir);
  }

  @Test void valueGettersAnswerAsTheResultSet() throws SQLException {
    try (Connection c = DriverManager.getConnection(SpillwayDriver.CONNECT_STRING_PREFIX + "dataDir=" + dir);
         Statement s = c.createStatement();
         ResultSet rs = s.executeQuery("select 'abc' as t, cast(42 as bigint) as n, cast(1.25 as decimal(5, 2)) as d, "
             + "cast(null as integer) as z, true as b, date '2024-02-29' as dt from (values (1), (2)) as v(x)")) {
      assertTrue(rs.next());
      assertEquals("abc", rs.getString(1));
      assertEquals(42L, rs.getLong(2));
      assertEquals(42, rs.getInt(2));
      assertEquals(42.0, rs.getDouble(2));
      assertEquals(new BigDecimal("1.25"), rs.getBigDecimal(3));
      assertEquals(0, rs.getInt(4));
      assertTrue(rs.wasNull());
      assertNull(rs.getObject(4));
      assertTrue(rs.getBoolean(5));
      assertEquals(java.sql.Date.valueOf("2024-02-29"), rs.getDate(6));
      assertEquals("abc", rs.getString("T"), "by label: the reflective path");
      assertTrue(rs.next());
      assertFalse(rs.next());
    }
  }

  @Test void aFailingGetterThrowsAClassifiedSqlException() throws SQLException {
    try (Connection c = DriverManager.getConnection(SpillwayDriver.CONNECT_STRING_PREFIX + "dataDir=" + dir);
         Statement s = c.createStatement();
         ResultSet rs = s.executeQuery("select 'abc' as t from (values (1)) as v(x)")) {
      assertTrue(rs.next());
      SQLException e = assertThrows(SQLException.class, () -> rs.getInt(1));
      assertEquals(SpillwaySqlErrors.DATA_EXCEPTION, e.getSQLState(), e.toString());
      assertTrue(e.getMessage().contains("cannot convert"), e.getMessage());
      assertThrows(SQLException.class, () -> rs.getString(7), "no such column");
    }
  }
}
