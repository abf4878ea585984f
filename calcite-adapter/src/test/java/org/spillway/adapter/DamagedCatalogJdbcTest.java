package org.spillway.adapter;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.spillway.adapter.jdbc.SpillwayDriver;
import org.spillway.adapter.server.ServerConfig;
import org.spillway.adapter.server.SpillwayServer;
import org.spillway.tpch.ProgressListener;
import org.spillway.tpch.TpchGenerator;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The repros through JDBC: a flipped bit in lineitem's data and an unreadable table.json fail their
 * own table's queries with the table, the file and the reason, while every other table still answers.
 */
class DamagedCatalogJdbcTest {
  @TempDir static Path dir;

  @BeforeAll static void generateAndDamage() throws IOException {
    TpchGenerator.generate(dir, 0.001, 1, ProgressListener.NONE);
    Path lineitem = dir.resolve("lineitem/part-000000.arrow");
    try (RandomAccessFile file = new RandomAccessFile(lineitem.toFile(), "rw")) {
      long middle = file.length() / 2;
      file.seek(middle);
      int b = file.read();
      file.seek(middle);
      file.write(b ^ 0x01);
    }
    Files.writeString(dir.resolve("region/table.json"), "{ not json");
  }

  @AfterAll static void release() {
    CatalogRegistry.close(dir);
  }

  private static Connection connect() throws SQLException {
    return DriverManager.getConnection(SpillwayDriver.CONNECT_STRING_PREFIX + "dataDir=" + dir);
  }

  private static long count(Statement statement, String sql) throws SQLException {
    try (ResultSet rs = statement.executeQuery(sql)) {
      assertTrue(rs.next());
      return rs.getLong(1);
    }
  }

  @Test void damagedDataFailsItsQueryWithChecksumMismatchAndOtherTablesServe() throws SQLException {
    try (Connection connection = connect(); Statement statement = connection.createStatement()) {
      SQLException e = assertThrows(SQLException.class,
          () -> count(statement, "select sum(l_extendedprice) from lineitem"));
      assertTrue(e.getMessage().contains("table lineitem: file " + dir.resolve("lineitem/part-000000.arrow")
          + ": checksum mismatch"), e.getMessage());
      assertEquals("XX001", e.getSQLState(), "data_corrupted");
      assertEquals(25, count(statement, "select count(*) from nation"));
      assertEquals(1500, count(statement, "select count(*) from orders"));
      assertThrows(SQLException.class, () -> count(statement, "select max(l_shipdate) from lineitem"));
    }
  }

  @Test void aTableWithAnUnreadableSidecarFailsAloneWithItsFile() throws SQLException {
    try (Connection connection = connect(); Statement statement = connection.createStatement()) {
      SQLException e = assertThrows(SQLException.class, () -> count(statement, "select count(*) from region"));
      assertTrue(e.getMessage().contains("table region: cannot read table metadata "
          + dir.resolve("region/table.json") + ": "), e.getMessage());
      assertEquals("XX001", e.getSQLState(), "metadata that does not parse is damage");
      assertEquals(25, count(statement, "select count(*) from nation"));
      try (ResultSet tables = connection.getMetaData().getTables(null, "spillway", "%", null)) {
        int listed = 0;
        while (tables.next()) {
          listed++;
        }
        assertEquals(8, listed, "the broken table is listed with the others");
      }
      try (ResultSet columns = connection.getMetaData().getColumns(null, "spillway", "nation", "%")) {
        assertTrue(columns.next());
        assertEquals("n_nationkey", columns.getString("COLUMN_NAME"));
      }
    }
  }

  @Test void theServerStartsAndServesTheOtherTablesAndReportsTheDamage() throws Exception {
    try (SpillwayServer server = SpillwayServer.start(ServerConfig.of(dir).withPort(0));
        Connection remote = DriverManager.getConnection(server.jdbcUrl());
        Statement statement = remote.createStatement()) {
      assertEquals(25, count(statement, "select count(*) from nation"));
      SQLException damaged = assertThrows(SQLException.class,
          () -> count(statement, "select sum(l_extendedprice) from lineitem"));
      assertTrue(damaged.getMessage().contains("table lineitem: file " + dir.resolve("lineitem/part-000000.arrow")
          + ": checksum mismatch"), damaged.getMessage());
      SQLException broken = assertThrows(SQLException.class, () -> count(statement, "select * from region"));
      assertTrue(broken.getMessage().contains("table region: cannot read table metadata"), broken.getMessage());
      assertEquals("XX001", broken.getSQLState());
    }
  }
}
