package org.spillway.adapter.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Types;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import org.apache.arrow.flight.FlightClient;
import org.apache.arrow.flight.FlightInfo;
import org.apache.arrow.flight.FlightStream;
import org.apache.arrow.flight.Location;
import org.apache.arrow.flight.sql.FlightSqlClient;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.spillway.tpch.TpchQueries;

/**
 * The unmodified Apache Arrow Flight SQL JDBC driver against the Flight SQL endpoint: TPC-H answers equal the
 * embedded driver's, DatabaseMetaData browses the catalog as BI tools do, prepared statements take parameters,
 * and the read-only default refuses writes.
 */
class FlightSqlJdbcDriverTest {
  private static final QueryLog QUERY_LOG = new QueryLog();
  private static FlightSqlEndpoint endpoint;

  @BeforeAll
  static void start() throws Exception {
    final ServerConfig config = ServerConfig.of(TpchTestData.dataDir());
    endpoint = FlightSqlEndpoint.start(config, 0, new AdmissionControl(config.maxConcurrent(),
        config.admissionWait()), QUERY_LOG);
  }

  @AfterAll
  static void stop() {
    endpoint.close();
  }

  private static Connection connect() throws SQLException {
    return DriverManager.getConnection(endpoint.jdbcUrl());
  }

  @Test
  void tpchQueriesGiveTheEmbeddedDriversRows() throws SQLException {
    try (Connection embedded = TpchTestData.embedded(); Connection flight = connect()) {
      // Aggregates over DECIMAL and DOUBLE, joins, DATE predicates, text columns, and Q14's quotient, which the
      // embedded driver returns with more digits than its declared scale.
      for (int q : new int[] {1, 3, 10, 14}) {
        final String sql = TpchQueries.sql(q);
        ResultRows.assertSameResult(ResultRows.queryAtDeclaredScale(embedded, sql), ResultRows.query(flight, sql),
            "Q" + q);
      }
      final String scan = "select * from orders where o_orderkey < 2000";
      final ResultRows rows = ResultRows.query(flight, scan);
      assertTrue(rows.rows().size() > 100, "rows: " + rows.rows().size());
      ResultRows.assertSameResult(ResultRows.query(embedded, scan), rows, scan);
    }
    assertEquals(0, endpoint.openStatements(), "statements left open on the server");
  }

  @Test
  void queryLogNamesThePathThatFilledTheBatches() throws SQLException {
    final List<QueryLog.Entry> entries = new CopyOnWriteArrayList<>();
    final Consumer<QueryLog.Entry> listener = entries::add;
    QUERY_LOG.addListener(listener);
    try (Connection flight = connect(); Statement statement = flight.createStatement()) {
      // A Spillway node on top: the engine's columns; UPPER is Calcite's code on top: the rows.
      for (String sql : new String[] {"select o_orderkey, o_comment from orders where o_orderkey < 100",
          "select upper(o_comment) from orders where o_orderkey < 100"}) {
        try (ResultSet resultSet = statement.executeQuery(sql)) {
          while (resultSet.next()) {
            assertTrue(resultSet.getString(resultSet.getMetaData().getColumnCount()).length() > 0);
          }
        }
      }
    } finally {
      QUERY_LOG.removeListener(listener);
    }
    assertEquals(List.of("columnar", "rows"), entries.stream().map(QueryLog.Entry::resultPath).toList(),
        entries.toString());
    assertTrue(entries.get(0).format().contains(" path=columnar "), entries.get(0).format());
  }

  @Test
  void resultsLargerThanOneRecordBatchArriveWhole() throws SQLException {
    try (Connection flight = connect(); Statement statement = flight.createStatement();
        ResultSet resultSet = statement.executeQuery(
            "select l_orderkey, l_linenumber from lineitem, region")) {
      long rows = 0;
      long keySum = 0;
      while (resultSet.next()) {
        rows++;
        keySum += resultSet.getLong(1) * 8 + resultSet.getInt(2);
      }
      try (Connection embedded = TpchTestData.embedded(); Statement expected = embedded.createStatement();
          ResultSet sums = expected.executeQuery(
              "select count(*), sum(l_orderkey * 8 + l_linenumber) from lineitem, region")) {
        sums.next();
        assertTrue(sums.getLong(1) > FlightSqlBatches.BATCH_ROWS, "too few rows for two batches");
        assertEquals(sums.getLong(1), rows);
        assertEquals(sums.getLong(2), keySum);
      }
    }
  }

  /**
   * A client that reads slower than the server fills batches gets them all promptly (at this scale it does with
   * either way of waiting for the client; FlightSqlBackpressureTest pins the wait itself).
   */
  @Test
  void aClientSlowerThanTheServerGetsEveryBatch() throws Exception {
    final String sql = "select * from lineitem, region";
    final long rows = assertTimeoutPreemptively(Duration.ofSeconds(60), () -> {
      long read = 0;
      try (BufferAllocator allocator = new RootAllocator();
          FlightSqlClient client = new FlightSqlClient(FlightClient.builder(allocator,
              Location.forGrpcInsecure("127.0.0.1", endpoint.port())).build())) {
        final FlightInfo info = client.execute(sql);
        try (FlightStream stream = client.getStream(info.getEndpoints().get(0).getTicket())) {
          while (stream.next()) {
            read += stream.getRoot().getRowCount();
            Thread.sleep(300);
          }
        }
      }
      return read;
    });
    try (Connection embedded = TpchTestData.embedded(); Statement statement = embedded.createStatement();
        ResultSet count = statement.executeQuery("select count(*) from lineitem, region")) {
      count.next();
      assertTrue(count.getLong(1) > 2L * FlightSqlBatches.BATCH_ROWS, "too few rows to fall behind");
      assertEquals(count.getLong(1), rows);
    }
  }

  @Test
  void preparedStatementTakesAParameter() throws SQLException {
    try (Connection flight = connect();
        PreparedStatement statement = flight.prepareStatement(
            "select n_name from nation where n_regionkey = ? order by n_name")) {
      for (int region : new int[] {1, 3}) {
        statement.setInt(1, region);
        final List<String> names = new ArrayList<>();
        try (ResultSet resultSet = statement.executeQuery()) {
          while (resultSet.next()) {
            names.add(resultSet.getString(1));
          }
        }
        assertEquals(embeddedNations(region), names, "region " + region);
      }
    }
  }

  private static List<String> embeddedNations(int region) throws SQLException {
    try (Connection embedded = TpchTestData.embedded();
        PreparedStatement statement = embedded.prepareStatement(
            "select n_name from nation where n_regionkey = ? order by n_name")) {
      statement.setInt(1, region);
      final List<String> names = new ArrayList<>();
      try (ResultSet resultSet = statement.executeQuery()) {
        while (resultSet.next()) {
          names.add(resultSet.getString(1));
        }
      }
      assertFalse(names.isEmpty());
      return names;
    }
  }

  @Test
  void metadataBrowsesTablesColumnsAndTypes() throws SQLException {
    try (Connection flight = connect(); Connection embedded = TpchTestData.embedded()) {
      final DatabaseMetaData remote = flight.getMetaData();
      assertEquals(tables(embedded.getMetaData()), tables(remote));
      assertTrue(tables(remote).contains("lineitem"), tables(remote).toString());
      assertEquals(columns(embedded.getMetaData(), "lineitem"), columns(remote, "lineitem"));
      assertEquals(Types.DECIMAL, columnType(remote, "lineitem", "l_extendedprice"));
      assertEquals(Types.DATE, columnType(remote, "lineitem", "l_shipdate"));
      assertEquals(Types.VARCHAR, columnType(remote, "nation", "n_name"));
      try (ResultSet keys = remote.getPrimaryKeys(null, null, "lineitem")) {
        assertFalse(keys.next(), "Spillway declares no primary keys");
      }
      final List<String> types = new ArrayList<>();
      try (ResultSet tableTypes = remote.getTableTypes()) {
        while (tableTypes.next()) {
          types.add(tableTypes.getString(1));
        }
      }
      assertTrue(types.contains("TABLE"), types.toString());
      final List<String> schemas = new ArrayList<>();
      try (ResultSet rs = remote.getSchemas()) {
        while (rs.next()) {
          schemas.add(rs.getString("TABLE_SCHEM"));
        }
      }
      final List<String> embeddedSchemas = new ArrayList<>();
      try (ResultSet rs = embedded.getMetaData().getSchemas()) {
        while (rs.next()) {
          embeddedSchemas.add(rs.getString("TABLE_SCHEM"));
        }
      }
      assertEquals(embeddedSchemas, schemas);
      assertEquals("Spillway", remote.getDatabaseProductName());
      assertTrue(remote.isReadOnly());
    }
  }

  private static List<String> tables(DatabaseMetaData metaData) throws SQLException {
    final List<String> names = new ArrayList<>();
    try (ResultSet tables = metaData.getTables(null, null, "%", new String[] {"TABLE"})) {
      while (tables.next()) {
        names.add(tables.getString("TABLE_SCHEM") + "." + tables.getString("TABLE_NAME"));
      }
    }
    names.sort(null);
    return names.stream().map(name -> name.substring(name.indexOf('.') + 1)).toList();
  }

  private static List<String> columns(DatabaseMetaData metaData, String table) throws SQLException {
    final List<String> columns = new ArrayList<>();
    try (ResultSet rs = metaData.getColumns(null, null, table, "%")) {
      while (rs.next()) {
        columns.add(rs.getString("COLUMN_NAME") + " " + rs.getInt("DATA_TYPE"));
      }
    }
    return columns;
  }

  private static int columnType(DatabaseMetaData metaData, String table, String column) throws SQLException {
    try (ResultSet rs = metaData.getColumns(null, null, table, column)) {
      assertTrue(rs.next(), table + "." + column + " not found");
      return rs.getInt("DATA_TYPE");
    }
  }

  @Test
  void readOnlyServerRefusesWrites() throws SQLException {
    try (Connection flight = connect(); Statement statement = flight.createStatement()) {
      final SQLException refused = assertThrows(SQLException.class,
          () -> statement.execute("create table copy_of_nation as select * from nation"));
      assertTrue(refused.getMessage().contains("Spillway server is read-only"), refused.getMessage());
      assertTrue(refused.getMessage().contains("25006"), refused.getMessage());
      final SQLException syntax = assertThrows(SQLException.class,
          () -> statement.executeQuery("selec 1"));
      assertTrue(syntax.getMessage().contains("42601"), syntax.getMessage());
    }
    try (Connection embedded = TpchTestData.embedded();
        ResultSet tables = embedded.getMetaData().getTables(null, null, "copy_of_nation", null)) {
      assertFalse(tables.next(), "the refused CREATE TABLE AS created a table");
    }
  }
}
