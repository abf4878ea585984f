package org.spillway.adapter.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.spillway.adapter.CatalogRegistry;
import org.spillway.adapter.SpillwayColumnarCapture;
import org.spillway.adapter.SpillwayColumnarResult;
import org.spillway.adapter.jdbc.SpillwayDriver;
import org.spillway.storage.BatchBuilder;
import org.spillway.storage.Catalog;
import org.spillway.storage.ColumnDef;
import org.spillway.storage.TableSchema;
import org.spillway.storage.TableWriter;
import org.spillway.tpch.TpchQueries;

/**
 * The Flight SQL stream's two ways of filling record batches give identical batches: copied from the engine's
 * or the stored table's columns where a Spillway node is on top of the plan, read row by row from the JDBC
 * result set otherwise. Each query runs twice on the embedded driver, once per path, and every batch of one is
 * compared with the other's; batch sizes that are not a multiple of 8 put copied slices at any bit of the
 * validity, and chunks of several sizes make batches span them.
 */
class FlightSqlColumnarBatchesTest {
  /** Two stored batches of uneven sizes: record batches span both. */
  private static final int FIRST_BATCH = 700;
  private static final int SECOND_BATCH = 1300;

  @TempDir static Path dir;

  private static BufferAllocator allocator;

  @BeforeAll
  static void createTableWithEveryTypeAndNulls() {
    allocator = new RootAllocator();
    final TableSchema schema = TableSchema.of(ColumnDef.of("i", "INTEGER"), ColumnDef.of("b", "BIGINT"),
        ColumnDef.of("x", "DOUBLE"), ColumnDef.of("d", "DECIMAL(12,2)"), ColumnDef.of("dt", "DATE"),
        ColumnDef.of("c", "CHAR(1)"), ColumnDef.of("v", "VARCHAR(40)"));
    try (Catalog catalog = Catalog.create(dir); TableWriter writer = catalog.createTable("t", schema)) {
      int row = 0;
      for (int size : new int[] {FIRST_BATCH, SECOND_BATCH}) {
        final BatchBuilder batch = writer.newBatch(size);
        for (int r = 0; r < size; r++, row++) {
          // Every column NULL in a pattern of its own, so that no two columns share their validity.
          final int i = row;
          final int at = r;
          if (i % 7 == 3) {
            batch.setNull(0, at);
          } else {
            batch.setInt(0, at, i - 1000);
          }
          if (i % 5 == 1) {
            batch.setNull(1, at);
          } else {
            batch.setLong(1, at, (long) i * 3_000_000_007L);
          }
          if (i % 11 == 0) {
            batch.setNull(2, at);
          } else {
            batch.setDouble(2, at, i / 8.0 - 40);
          }
          if (i % 13 == 2) {
            batch.setNull(3, at);
          } else {
            batch.setDecimal(3, at, i * 101L - 50_000);
          }
          if (i % 9 == 4) {
            batch.setNull(4, at);
          } else {
            batch.setDate(4, at, 9_000 + i % 400);
          }
          if (i % 6 == 5) {
            batch.setNull(5, at);
          } else {
            batch.setString(5, at, i % 3 == 0 ? "A" : "é");
          }
          if (i % 4 == 2) {
            batch.setNull(6, at);
          } else {
            batch.setString(6, at, "row " + i + " ünïcödé " + Integer.toHexString(i * 7919));
          }
        }
        batch.setRowCount(size);
        writer.append(batch);
      }
      writer.commit();
    }
  }

  @AfterAll
  static void close() {
    CatalogRegistry.close(dir);
    allocator.close();
  }

  @Test
  void everyTypeWithNullsGivesTheRowPathsBatches() throws SQLException {
    try (Connection connection = DriverManager.getConnection(SpillwayDriver.CONNECT_STRING_PREFIX + "dataDir="
        + dir + ";device=cpu")) {
      assertSameBatches(connection, "select * from t", 333, "columnar");
      assertSameBatches(connection, "select * from t", 1024, "columnar");
      // The engine's output: a pipeline over the scan (dictionary and plain text), with computed values of
      // other kinds (BOOLEAN, decimals of other scales, a quotient).
      assertSameBatches(connection, "select i, b, x, d, dt, c, v, i + 1 as i1, b - 1 as b1, x * 2 as x2,"
          + " d * 3 as d3, d / 7 as q, i * 1.5 as i15, x > 0 as positive from t where b is null or b >= 0", 333,
          "columnar");
      // Calcite's code computes a TIMESTAMP, or UPPER, above the Spillway plan: the rows path.
      assertSameBatches(connection, "select cast(dt as timestamp) as ts, i from t", 333, "rows");
      assertSameBatches(connection, "select upper(v) as u, c from t", 333, "rows");
    }
  }

  @Test
  void tpchQueriesGiveTheRowPathsBatches() throws SQLException {
    try (Connection connection = TpchTestData.embedded()) {
      assertSameBatches(connection, "select * from lineitem", 4096, "columnar");
      assertSameBatches(connection, "select * from orders where o_orderkey < 20000", 999, "columnar");
      final List<String> paths = new ArrayList<>();
      for (int q : new int[] {1, 3, 5, 6, 10, 13, 14, 18}) {
        paths.add("Q" + q + " " + assertSameBatches(connection, TpchQueries.sql(q), 999, null));
      }
      assertTrue(paths.contains("Q1 columnar"), paths.toString());
    }
  }

  @Test
  void aCancelledStatementStopsItsColumnarStream() throws SQLException {
    try (Connection connection = TpchTestData.embedded();
        PreparedStatement statement = connection.prepareStatement("select * from lineitem")) {
      final ResultSet resultSet;
      final Optional<SpillwayColumnarResult> columns;
      try (SpillwayColumnarCapture capture = SpillwayColumnarCapture.start()) {
        resultSet = statement.executeQuery();
        columns = capture.result();
      }
      try (resultSet; VectorSchemaRoot root = VectorSchemaRoot.create(
          FlightSqlTypes.schema(resultSet.getMetaData()), allocator)) {
        final FlightSqlBatches batches = FlightSqlBatches.of(columns, resultSet, root);
        assertEquals("columnar", batches.path());
        assertEquals(1000, batches.next(1000));
        statement.cancel();
        assertThrows(CancellationException.class, () -> batches.next(1000));
      }
    }
  }

  /**
   * Runs {@code sql} through both paths, compares their batches of {@code batchRows} rows, and returns the path
   * a Flight SQL stream takes (which must be {@code expectedPath} unless that is null).
   */
  private static String assertSameBatches(Connection connection, String sql, int batchRows, String expectedPath)
      throws SQLException {
    try (PreparedStatement columnarStatement = connection.prepareStatement(sql);
        PreparedStatement rowStatement = connection.prepareStatement(sql)) {
      final ResultSet columnarRows;
      final Optional<SpillwayColumnarResult> columns;
      try (SpillwayColumnarCapture capture = SpillwayColumnarCapture.start()) {
        columnarRows = columnarStatement.executeQuery();
        columns = capture.result();
      }
      try (ResultSet columnarSet = columnarRows; ResultSet rowSet = rowStatement.executeQuery();
          VectorSchemaRoot columnarRoot = VectorSchemaRoot.create(FlightSqlTypes.schema(columnarSet.getMetaData()),
              allocator);
          VectorSchemaRoot rowRoot = VectorSchemaRoot.create(FlightSqlTypes.schema(rowSet.getMetaData()),
              allocator)) {
        final FlightSqlBatches columnar = FlightSqlBatches.of(columns, columnarSet, columnarRoot);
        final FlightSqlBatches rows = new FlightSqlResultBatches(rowSet, rowRoot);
        if (expectedPath != null) {
          assertEquals(expectedPath, columnar.path(), sql);
        }
        int batch = 0;
        int count;
        do {
          count = columnar.next(batchRows);
          final int number = batch;
          assertEquals(rows.next(batchRows), count, "rows of batch " + number + " of " + sql);
          assertTrue(columnarRoot.equals(rowRoot), () -> "batch " + number + " of " + sql + "\ncolumnar:\n"
              + columnarRoot.contentToTSVString() + "\nrows:\n" + rowRoot.contentToTSVString());
          batch++;
        } while (count > 0);
        return columnar.path();
      }
    }
  }
}
