package org.spillway.adapter.server;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Optional;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.spillway.adapter.SpillwayColumnarResult;

/**
 * The record batches of a Flight SQL query's result, filled into one root: copied column by column from the
 * engine's output where the plan has a Spillway node on top ({@link FlightSqlColumnarBatches}), else read row
 * by row from the JDBC result set ({@link FlightSqlResultBatches}).
 */
interface FlightSqlBatches {
  /** Rows per record batch: large enough to amortize a message, small enough to stream early. */
  int BATCH_ROWS = 64 * 1024;
  /**
   * The system property that, set to {@code false}, makes every result take the row path: to compare the two (the
   * Flight SQL benchmark), or to step around a fault of the columnar one. Read for each result.
   */
  String COLUMNAR_PROPERTY = "spillway.flightSql.columnar";

  /**
   * Fills the root with up to {@code maxRows} next rows; returns the number of rows, 0 once the result is
   * exhausted.
   */
  int next(int maxRows) throws SQLException;

  /** Which path fills the batches, as the query log names it: {@code columnar} or {@code rows}. */
  String path();

  /**
   * The columnar batches of {@code columns} where every column has a copier (and {@link #COLUMNAR_PROPERTY} is
   * not false), else the rows of the result set.
   */
  static FlightSqlBatches of(Optional<SpillwayColumnarResult> columns, ResultSet resultSet, VectorSchemaRoot root) {
    final boolean columnar = Boolean.parseBoolean(System.getProperty(COLUMNAR_PROPERTY, "true"));
    return columns.filter(result -> columnar).flatMap(result -> FlightSqlColumnarBatches.of(result, root))
        .map(FlightSqlBatches.class::cast)
        .orElseGet(() -> new FlightSqlResultBatches(resultSet, root));
  }
}
