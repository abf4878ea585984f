package org.spillway.gpu.vector;

import java.util.List;

/**
 * Materialized rows whose columns are read whole or at row ids: a pipeline breaker's output (a join's build side,
 * say) read by the pipelines after it. Reading is thread-safe: every worker of a probing pipeline gathers from it.
 */
public interface IndexedColumns {
  /** Number of rows. */
  int rows();

  /** Types of the columns. */
  List<ExprType> types();

  /** Every row of column {@code c}. */
  ColumnVector column(int c);

  /** Column {@code c} at rows {@code ids[0 .. count-1]}, in that order; id -1 gives NULL. */
  ColumnVector gather(int c, int[] ids, int count);

  /**
   * A writer of column {@code c}'s values as 64-bit integers straight into native memory, where the rows have it in
   * native memory already without NULLs (a table's Arrow batches), so a GPU build side need not become a Java array
   * first; null otherwise.
   */
  default LongWriter longWriter(int c) {
    return null;
  }

  /**
   * Column {@code c} as its table holds it, where {@link #longWriter} writes it from a table's batches: per batch, in
   * row order, the region of fixed-width values that the GPU column cache may hold; null otherwise.
   */
  default List<HeldValues> heldValues(int c) {
    return null;
  }

  /**
   * One batch's values of a column: {@code rows} values of {@code width} bytes (4 or 8, read as signed integers) at
   * {@code address}, in the buffer {@code owner} (what a cache tells regions apart by, compared by identity).
   */
  record HeldValues(Object owner, long address, int width, long rows) {}

  /** Writes rows {@code from .. from+n-1} of one column as 64-bit integers at {@code address}; thread-safe. */
  interface LongWriter {
    void write(int from, int n, long address);
  }
}
