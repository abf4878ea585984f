package org.spillway.adapter;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.spillway.adapter.jdbc.SpillwayDriver;
import org.spillway.storage.BatchBuilder;
import org.spillway.storage.Catalog;
import org.spillway.storage.ColumnDef;
import org.spillway.storage.TableSchema;
import org.spillway.storage.TableWriter;

/**
 * CREATE INDEX and DROP INDEX through JDBC over a small table of two batches: every kind indexes a sorted unique
 * column of each integral type, getIndexInfo lists the indexes (after a reconnect too), DROP INDEX removes them, and
 * each bad statement fails alone with its SQLSTATE and a message that names what is wrong, recording nothing.
 */
class SpillwayIndexStatementsTest {
  /** Rows per batch; the bad keys sit in the second batch, so a row number counts the first batch's rows. */
  private static final int BATCH = 5;

  @TempDir Path dir;

  @BeforeEach void createTable() {
    TableSchema schema = TableSchema.of(ColumnDef.of("id", "INTEGER NOT NULL"), ColumnDef.of("big", "BIGINT"),
        ColumnDef.of("day", "DATE"), ColumnDef.of("name", "VARCHAR"), ColumnDef.of("shuffled", "INTEGER"),
        ColumnDef.of("repeated", "INTEGER"), ColumnDef.of("gap", "BIGINT"));
    try (Catalog catalog = Catalog.create(dir); TableWriter writer = catalog.createTable("t", schema)) {
      for (int b = 0; b < 2; b++) {
        BatchBuilder batch = writer.newBatch(BATCH);
        for (int i = 0; i < BATCH; i++) {
          int row = b * BATCH + i;
          batch.setInt(0, i, row + 1);
          batch.setLong(1, i, (row - 3) * 1_000_000_000_000L);
          batch.setDate(2, i, 19_000 + 7 * row);
          batch.setString(3, i, "n" + row);
          batch.setInt(4, i, row == 7 ? 2 : row * 10);  // row 7 goes back below row 6's key
          batch.setInt(5, i, row == 8 ? 7 : row);       // row 8 repeats row 7's key
          if (row == 6) {
            batch.setNull(6, i);
          } else {
            batch.setLong(6, i, row);
          }
        }
        batch.setRowCount(BATCH);
        writer.append(batch);
      }
      writer.commit();
    }
  }

  @AfterEach void closeCatalog() {
    CatalogRegistry.close(dir);
  }

  private Connection connect() throws SQLException {
    return DriverManager.getConnection(SpillwayDriver.CONNECT_STRING_PREFIX + "dataDir=" + dir + ";device=cpu");
  }

  @Test void everyKindIndexesASortedUniqueColumnAndMetadataListsIt() throws SQLException {
    try (Connection connection = connect(); Statement statement = connection.createStatement()) {
      assertEquals(0, statement.executeUpdate("CREATE INDEX t_id ON t (id)"), "DDL's update count");
      assertEquals(0, statement.executeUpdate("create index T_Big on t(BIG) using btree"));
      assertEquals(0, statement.executeUpdate("CREATE INDEX t_day ON spillway.t (day) USING Harmonia;"));
      assertEquals(0, statement.executeUpdate("CREATE INDEX \"t_id2\" ON \"t\" (\"id\") USING RADIXSPLINE"));
      assertEquals(0, statement.executeUpdate("CREATE INDEX t_id3 ON t (id) USING b_plus_tree"));
      assertEquals(List.of("t_big BTREE big 10", "t_day HARMONIA day 10", "t_id BINARY_SEARCH id 10",
          "t_id2 RADIXSPLINE id 10", "t_id3 BTREE id 10"), indexInfo(connection.getMetaData(), "T"));
      assertEquals(List.of(), indexInfo(connection.getMetaData(), "no_such_table"));
      try (ResultSet count = statement.executeQuery("SELECT COUNT(*) FROM t")) {
        assertTrue(count.next());
        assertEquals(10, count.getLong(1), "the table still reads");
      }
    }
    CatalogRegistry.close(dir);
    try (Connection connection = connect(); Statement statement = connection.createStatement()) {
      assertEquals(5, indexInfo(connection.getMetaData(), "t").size(), "the indexes survive a reopen");
      for (String name : List.of("t_id", "T_BIG", "t_day", "t_id2", "t_id3")) {
        assertEquals(0, statement.executeUpdate("DROP INDEX " + name));
      }
      assertEquals(0, statement.executeUpdate("drop index if exists t_id"));
      assertEquals(List.of(), indexInfo(connection.getMetaData(), "t"));
    }
  }

  @Test void eachBadStatementFailsWithItsStateAndRecordsNothing() throws Exception {
    try (Connection connection = connect(); Statement statement = connection.createStatement()) {
      statement.executeUpdate("CREATE INDEX taken ON t (id)");
      assertError(statement, "CREATE INDEX i ON nope (id)", "42P01", "table nope does not exist");
      assertError(statement, "CREATE INDEX i ON t (nope)", "42703", "table t has no column nope");
      assertError(statement, "CREATE INDEX i ON t (name)", "42804", "column name is VARCHAR");
      assertError(statement, "CREATE INDEX i ON t (shuffled)", "22000", "cannot create index i on t (shuffled): "
          + "an index needs sorted, unique keys, but row 7 has key 2 after key 60");
      assertError(statement, "CREATE INDEX i ON t (repeated) USING HARMONIA", "23505",
          "row 8 has key 7 after key 7 (a duplicate)");
      assertError(statement, "CREATE INDEX i ON t (gap) USING BTREE", "23502", "(gap): row 6 is NULL");
      assertError(statement, "CREATE INDEX taken ON t (big)", "42P07", "an index of that name exists");
      assertError(statement, "CREATE INDEX i ON t (id) USING HASH", "22023", "unknown index kind HASH");
      assertError(statement, "CREATE INDEX i ON t id", "42601", "cannot parse the statement");
      assertError(statement, "DROP INDEX nope", "42704", "cannot drop index nope: it does not exist");
      assertEquals(List.of("taken BINARY_SEARCH id 10"), indexInfo(connection.getMetaData(), "t"));
    }
    try (var files = Files.list(dir.resolve("t"))) {
      assertFalse(files.anyMatch(f -> f.getFileName().toString().contains(".tmp-")), "no scratch left behind");
    }
  }

  private static void assertError(Statement statement, String sql, String sqlState, String message) {
    SQLException e = assertThrows(SQLException.class, () -> statement.executeUpdate(sql), sql);
    assertEquals(sqlState, e.getSQLState(), e.getMessage());
    assertTrue(e.getMessage().contains(message), e.getMessage());
  }

  /** "name kind column cardinality" of each index of the table, checking the columns every row shares. */
  private static List<String> indexInfo(DatabaseMetaData metadata, String table) throws SQLException {
    List<String> rows = new ArrayList<>();
    try (ResultSet rs = metadata.getIndexInfo(null, null, table, false, false)) {
      while (rs.next()) {
        assertEquals("spillway", rs.getString("TABLE_SCHEM"));
        assertEquals("t", rs.getString("TABLE_NAME"));
        assertFalse(rs.getBoolean("NON_UNIQUE"));
        assertEquals(DatabaseMetaData.tableIndexOther, rs.getShort("TYPE"));
        assertEquals(1, rs.getShort("ORDINAL_POSITION"));
        rows.add(rs.getString("INDEX_NAME") + " " + rs.getString("INDEX_KIND") + " " + rs.getString("COLUMN_NAME")
            + " " + rs.getLong("CARDINALITY"));
      }
    }
    return rows;
  }
}
