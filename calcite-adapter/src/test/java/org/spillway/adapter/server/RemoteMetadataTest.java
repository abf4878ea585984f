package org.spillway.adapter.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Types;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** DatabaseMetaData over the remote driver shows what BI tools probe: every table, column and type. */
class RemoteMetadataTest {
  private static final List<String> TPCH_TABLES = List.of("customer", "lineitem", "nation",
      "orders", "part", "partsupp", "region", "supplier");

  @RegisterExtension
  static final TpchServerExtension SERVER = new TpchServerExtension();

  @Test
  void remoteTablesAndColumnsEqualEmbeddedOnes() throws SQLException {
    try (Connection embedded = TpchTestData.embedded();
        Connection remote = DriverManager.getConnection(SERVER.jdbcUrl())) {
      final Map<String, List<String>> expected = columnsByTable(embedded.getMetaData());
      final Map<String, List<String>> actual = columnsByTable(remote.getMetaData());
      assertTrue(expected.keySet().containsAll(TPCH_TABLES), "embedded tables: " + expected.keySet());
      assertEquals(expected, actual);
      assertEquals(16, actual.get("lineitem").size(), actual.get("lineitem").toString());
    }
  }

  @Test
  void tpchColumnTypesAreReportedAsTheContractSays() throws SQLException {
    try (Connection remote = DriverManager.getConnection(SERVER.jdbcUrl())) {
      final DatabaseMetaData metaData = remote.getMetaData();
      assertEquals(Types.DATE, columnType(metaData, "lineitem", "l_shipdate"));
      assertEquals(Types.DECIMAL, columnType(metaData, "lineitem", "l_extendedprice"));
      assertEquals(Types.VARCHAR, columnType(metaData, "lineitem", "l_returnflag"));
      assertEquals(Types.VARCHAR, columnType(metaData, "nation", "n_name"));
    }
  }

  @Test
  void remoteTablesListsTheTpchTablesAsTables() throws SQLException {
    try (Connection remote = DriverManager.getConnection(SERVER.jdbcUrl());
        ResultSet tables = remote.getMetaData().getTables(null, null, "%", new String[] {"TABLE"})) {
      final List<String> names = new ArrayList<>();
      while (tables.next()) {
        names.add(tables.getString("TABLE_NAME"));
      }
      assertTrue(names.containsAll(TPCH_TABLES), names.toString());
    }
  }

  @Test
  void upperCasedNamesFromRemoteToolsStillFindTheLowerCaseTables() throws SQLException {
    try (Connection remote = DriverManager.getConnection(SERVER.jdbcUrl())) {
      final DatabaseMetaData metaData = remote.getMetaData();
      // The remote driver claims upper-case storage, which is why tools upper-case names.
      assertTrue(metaData.storesUpperCaseIdentifiers());
      assertEquals(16, count(metaData.getColumns(null, null, "LINEITEM", "%")));
      assertEquals(1, count(metaData.getColumns(null, "SPILLWAY", "NATION", "N_NAME")));
      assertEquals(1, count(metaData.getTables(null, null, "ORDERS", null)));
      assertEquals(0, count(metaData.getTables(null, null, "NO_SUCH_TABLE", null)));
      // Exact lower-case names keep working as before.
      assertEquals(16, count(metaData.getColumns(null, null, "lineitem", "%")));
    }
  }

  private static int count(ResultSet resultSet) throws SQLException {
    try (resultSet) {
      int rows = 0;
      while (resultSet.next()) {
        rows++;
      }
      return rows;
    }
  }

  /** Table name to "column:type name:JDBC type:nullable" entries in ordinal order. */
  private static Map<String, List<String>> columnsByTable(DatabaseMetaData metaData)
      throws SQLException {
    final Map<String, List<String>> columns = new TreeMap<>();
    try (ResultSet resultSet = metaData.getColumns(null, null, "%", "%")) {
      while (resultSet.next()) {
        final String table = resultSet.getString("TABLE_SCHEM") + "." + resultSet.getString("TABLE_NAME");
        if (table.startsWith("metadata.")) {
          continue;  // Calcite's own catalog views, not part of the data
        }
        columns.computeIfAbsent(resultSet.getString("TABLE_NAME"), t -> new ArrayList<>())
            .add(resultSet.getInt("ORDINAL_POSITION") + ":" + resultSet.getString("COLUMN_NAME")
                + ":" + resultSet.getString("TYPE_NAME") + ":" + resultSet.getInt("DATA_TYPE")
                + ":" + resultSet.getInt("COLUMN_SIZE") + ":" + resultSet.getInt("DECIMAL_DIGITS")
                + ":" + resultSet.getString("IS_NULLABLE"));
      }
    }
    return columns;
  }

  private static int columnType(DatabaseMetaData metaData, String table, String column)
      throws SQLException {
    try (ResultSet resultSet = metaData.getColumns(null, null, table, column)) {
      assertTrue(resultSet.next(), "no column " + table + "." + column);
      return resultSet.getInt("DATA_TYPE");
    }
  }

  /**
   * The server, read-only, refuses CREATE INDEX and DROP INDEX as writes. (Remote clients see no indexes in
   * getIndexInfo: Avatica's protocol has no request for them, so its remote driver answers with no rows.)
   */
  @Test
  void theServerRefusesIndexStatements() throws SQLException {
    try (Connection remote = DriverManager.getConnection(SERVER.jdbcUrl());
        Statement statement = remote.createStatement()) {
      for (String sql : List.of("CREATE INDEX nation_key ON nation (n_nationkey) USING BTREE",
          "DROP INDEX nation_key")) {
        final SQLException refused = assertThrows(SQLException.class, () -> statement.executeUpdate(sql));
        assertEquals(StatementClassifier.READ_ONLY_SQLSTATE, refused.getSQLState(), refused.getMessage());
      }
    }
    try (Connection embedded = TpchTestData.embedded();
        ResultSet indexes = embedded.getMetaData().getIndexInfo(null, null, "nation", false, true)) {
      assertTrue(!indexes.next(), "the refused statement recorded no index");
    }
  }
}
