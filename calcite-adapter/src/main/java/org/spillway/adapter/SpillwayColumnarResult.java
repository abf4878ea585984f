package org.spillway.adapter;

import org.apache.arrow.vector.FieldVector;

import java.util.Optional;

/**
 * The rows of a statement whose plan has a Spillway node on top, as the columns they are made of: the engine's
 * output batches ({@link SpillwayQueryPlan}) or, for a bare scan, the stored table's Arrow batches
 * ({@link SpillwayTable}). A client that takes columns (the Flight SQL endpoint) copies them into Arrow vectors
 * instead of reading the JDBC result set row by row; {@link SpillwayColumnarCapture} hands it the result of the
 * statement it executes. Chunks are the batches the rows come in, of any size.
 */
public interface SpillwayColumnarResult {
  int chunkCount();

  int chunkRows(int chunk);

  int columnCount();

  /**
   * A copier of output column {@code column} into {@code target}, a vector of the Arrow type the column's JDBC
   * type maps to; empty where the values it would write might differ from the JDBC getters' (then read rows).
   */
  Optional<ColumnCopier> copier(int column, FieldVector target);

  /** Whether the statement was cancelled: a client copying its columns stops. */
  boolean cancelled();

  /** Copies a slice of one chunk of a column into the target vector. */
  @FunctionalInterface
  interface ColumnCopier {
    /**
     * Rows {@code [fromRow, fromRow + rows)} of chunk {@code chunk} into rows {@code [targetRow, ...)} of the
     * target, which holds them (fixed width) or grows (text), its rows NULL until copied.
     */
    void copy(int chunk, int fromRow, int rows, int targetRow);
  }
}
