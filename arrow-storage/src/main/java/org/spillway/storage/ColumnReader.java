package org.spillway.storage;

import java.util.List;
import java.util.Optional;

/** Reads one column of one batch as plain Java values, hiding the physical layout. */
public interface ColumnReader {
  /** The SQL type of the column. */
  ColumnType type();

  /** Number of rows in the batch. */
  int size();

  boolean isNull(int row);

  /**
   * The value, or null for SQL NULL: INTEGER Integer, BIGINT Long, DOUBLE Double, DECIMAL BigDecimal with
   * the column's scale, DATE Integer days since 1970-01-01, CHAR/VARCHAR String.
   */
  Object get(int row);

  /** INTEGER, BIGINT and DATE values, DECIMAL unscaled values; without boxing. */
  long getLong(int row);

  /** INTEGER and DATE values. */
  int getInt(int row);

  /** DOUBLE values, and the numeric value of INTEGER, BIGINT and DECIMAL columns. */
  double getDouble(int row);

  /** The sorted dictionary of a dictionary-encoded text column; codes index into it. */
  default Optional<List<String>> dictionary() {
    return Optional.empty();
  }

  /** The dictionary code of a row of a dictionary-encoded column. */
  default int code(int row) {
    throw new StorageException("column of type " + type() + " is not dictionary-encoded");
  }
}
