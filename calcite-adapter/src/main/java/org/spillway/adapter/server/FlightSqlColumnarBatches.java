package org.spillway.adapter.server;

import java.util.List;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.spillway.adapter.SpillwayColumnarResult;

/**
 * Fills record batches straight from the columns of a statement whose plan has a Spillway node on top: each
 * batch takes the next rows of the result's chunks, whatever their size, and each column is copied slice by
 * slice by the copier the result has for its vector (no Java value per row). The vectors are those
 * {@link FlightSqlTypes} made from the JDBC metadata, so a client gets the same batches as from the row path.
 */
final class FlightSqlColumnarBatches implements FlightSqlBatches {
  private final SpillwayColumnarResult result;
  private final VectorSchemaRoot root;
  private final SpillwayColumnarResult.ColumnCopier[] copiers;
  private int chunk;
  private int row;

  private FlightSqlColumnarBatches(SpillwayColumnarResult result, VectorSchemaRoot root,
      SpillwayColumnarResult.ColumnCopier[] copiers) {
    this.result = result;
    this.root = root;
    this.copiers = copiers;
  }

  /** Batches of {@code result} into {@code root}; empty where a column has no copier for its vector. */
  static Optional<FlightSqlColumnarBatches> of(SpillwayColumnarResult result, VectorSchemaRoot root) {
    final List<FieldVector> vectors = root.getFieldVectors();
    if (result.columnCount() != vectors.size()) {
      return Optional.empty();
    }
    final SpillwayColumnarResult.ColumnCopier[] copiers = new SpillwayColumnarResult.ColumnCopier[vectors.size()];
    for (int c = 0; c < copiers.length; c++) {
      final Optional<SpillwayColumnarResult.ColumnCopier> copier = result.copier(c, vectors.get(c));
      if (copier.isEmpty()) {
        return Optional.empty();
      }
      copiers[c] = copier.get();
    }
    return Optional.of(new FlightSqlColumnarBatches(result, root, copiers));
  }

  @Override
  public int next(int maxRows) {
    if (result.cancelled()) {
      throw new CancellationException("query cancelled while its result was streamed");
    }
    final int rows = rowsOfNextBatch(maxRows);
    if (rows == 0) {
      root.setRowCount(0);
      return 0;
    }
    for (FieldVector vector : root.getFieldVectors()) {
      // Fixed-width vectors at their exact size, so that slices are copied without growing them.
      vector.setInitialCapacity(rows);
      vector.allocateNew();
    }
    int filled = 0;
    while (filled < rows) {
      final int take = Math.min(rows - filled, result.chunkRows(chunk) - row);
      for (SpillwayColumnarResult.ColumnCopier copier : copiers) {
        copier.copy(chunk, row, take, filled);
      }
      filled += take;
      row += take;
      skipFinishedChunks();
    }
    root.setRowCount(rows);
    return rows;
  }

  /** How many rows the next batch has: up to {@code maxRows} of those left. */
  private int rowsOfNextBatch(int maxRows) {
    skipFinishedChunks();
    long rows = 0;
    for (int c = chunk; c < result.chunkCount() && rows < maxRows; c++) {
      rows += result.chunkRows(c) - (c == chunk ? row : 0);
    }
    return (int) Math.min(rows, maxRows);
  }

  private void skipFinishedChunks() {
    while (chunk < result.chunkCount() && row >= result.chunkRows(chunk)) {
      chunk++;
      row = 0;
    }
  }

  @Override
  public String path() {
    return "columnar";
  }
}
