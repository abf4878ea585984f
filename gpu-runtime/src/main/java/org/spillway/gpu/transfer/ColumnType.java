package org.spillway.gpu.transfer;

import java.util.List;

/**
 * Fixed-width column types the GPU operators read, with their element width in bytes. VALIDITY is an Arrow
 * validity bitmap (bit {@code row % 8} of byte {@code row / 8} set when the row is not NULL): eight rows per
 * byte, so chunks of it must start at a multiple of eight rows.
 */
public enum ColumnType {
  INT32(4),
  INT64(8),
  FLOAT64(8),
  VALIDITY(1);

  /** The types of values (all but VALIDITY), which value kernels such as column_sum read. */
  public static final List<ColumnType> VALUES = List.of(INT32, INT64, FLOAT64);

  /** The widest element of any type, in bytes: what a chunk buffer for any column is sized by. */
  public static final int MAX_WIDTH = 8;

  private final int width;

  ColumnType(int width) {
    this.width = width;
  }

  /** Bytes of one element (one byte, holding eight rows, for VALIDITY). */
  public int width() {
    return width;
  }

  /** Bytes that {@code rows} rows occupy. */
  public long bytes(long rows) {
    return this == VALIDITY ? (rows + 7) / 8 : rows * width;
  }

  /** Byte offset of row {@code row}, which must be a multiple of eight for VALIDITY. */
  public long offset(long row) {
    if (this == VALIDITY) {
      if (row % 8 != 0) {
        throw new IllegalArgumentException("a validity bitmap chunk must start at a multiple of 8 rows, not " + row);
      }
      return row / 8;
    }
    return row * width;
  }
}
