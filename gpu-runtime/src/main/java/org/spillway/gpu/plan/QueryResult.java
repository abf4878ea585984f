package org.spillway.gpu.plan;

import java.math.BigDecimal;
import java.util.List;
import java.util.Optional;
import org.apache.arrow.vector.FieldVector;
import org.spillway.gpu.device.SpillwayResourceException;
import org.spillway.gpu.pipeline.ColumnBatch;
import org.spillway.gpu.vector.ColumnVector;

/**
 * The output of a plan's root, read row by row as Java values: the one place where the engine's columns become
 * rows (for JDBC). The columns are computed once; each {@link Cursor} walks them from the start, converting only
 * the values asked for. A client that takes columns (the Flight SQL endpoint) copies them batch by batch into
 * Arrow vectors instead ({@link #arrowCopier}).
 */
public final class QueryResult {
  private final List<ColumnBatch> batches;

  private QueryResult(List<ColumnBatch> batches) {
    this.batches = batches;
  }

  /**
   * Runs {@code root}. An {@link OutOfMemoryError} (the last resort behind {@code MemoryGuard}) fails this query
   * as a {@link SpillwayResourceException}, so the shell or server that ran it goes on.
   */
  public static QueryResult run(PlanNode root, RunContext context) {
    try {
      return new QueryResult(root.run(context).batches());
    } catch (OutOfMemoryError e) {
      throw SpillwayResourceException.of(e, "the query");
    }
  }

  /**
   * A cursor before the first row; {@code dictionaries} has, per output column, the dictionary of its
   * dictionary-encoded text (null for other columns).
   */
  public Cursor cursor(List<List<String>> dictionaries) {
    return new Cursor(dictionaries);
  }

  /** The number of batches the result's rows come in. */
  public int batchCount() {
    return batches.size();
  }

  /** The number of rows of batch {@code batch}. */
  public int batchRows(int batch) {
    return batches.get(batch).rows();
  }

  /** The number of output columns; 0 for a result without batches. */
  public int columnCount() {
    return batches.isEmpty() ? 0 : batches.get(0).columns().length;
  }

  /**
   * A copier of output column {@code column} into {@code target}, whose Arrow type is the one the column's JDBC
   * type maps to; {@code dictionary} as for {@link #cursor}. Empty where the column's values cannot be copied
   * without going through Java values (then read rows with a cursor); a result without batches copies nothing.
   */
  public Optional<ArrowColumnCopier> arrowCopier(int column, List<String> dictionary, FieldVector target) {
    if (batches.isEmpty()) {
      return Optional.of(ArrowColumnCopier.none());
    }
    return ArrowColumnCopier.of(b -> batches.get(b).columns()[column], batches.get(0).columns()[column].type,
        dictionary, target);
  }

  /** One walk over the rows. */
  public final class Cursor {
    private final List<List<String>> dictionaries;
    private int batch;
    private int row = -1;

    private Cursor(List<List<String>> dictionaries) {
      this.dictionaries = dictionaries;
    }

    /** Moves to the next row; false after the last. */
    public boolean next() {
      row++;
      while (batch < batches.size() && row >= batches.get(batch).rows()) {
        batch++;
        row = 0;
      }
      return batch < batches.size();
    }

    /** The number of columns of the current row. */
    public int columns() {
      return batches.get(batch).columns().length;
    }

    /** The Java value of column {@code column} of the current row (null for SQL's NULL). */
    public Object value(int column) {
      return QueryResult.value(batches.get(batch).columns()[column], row, dictionaries.get(column));
    }

    /** Moves back before the first row. */
    public void reset() {
      batch = 0;
      row = -1;
    }
  }

  /** The Java value of one row of a column: the JDBC type's (a date as its day number, text as a string). */
  static Object value(ColumnVector v, int row, List<String> dictionary) {
    if (v.isNull(row)) {
      return null;
    }
    return switch (v.type.kind()) {
      case INT32, DATE -> (int) v.longs[row];
      case INT64 -> v.longs[row];
      case DECIMAL -> BigDecimal.valueOf(v.longs[row], v.type.scale());
      case FLOAT64 -> v.doubles[row];
      case BOOLEAN -> v.longs[row] != 0;
      case STRING -> dictionary.get((int) v.longs[row]);
      case TEXT, BIG_DECIMAL -> v.objects[row];
    };
  }
}
