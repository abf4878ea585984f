package org.spillway.gpu.exec;

/**
 * A join key as one long per row: one key column's long lane as it is, or two 32-bit key columns packed into one
 * long (high word the first); a row with a NULL key column has a NULL key. Both sides of a join pack the same way,
 * so equal tuples give equal longs.
 */
public final class JoinKeyPacking {
  private JoinKeyPacking() {
  }

  /** The keys of the first {@code rows} rows of one key column or two to pack; nulls is null without NULLs. */
  public record Keys(long[] keys, boolean[] nulls) {
  }

  public static Keys pack(ColumnVector[] columns, int rows) {
    ColumnVector first = columns[0];
    if (columns.length == 1) {
      return new Keys(first.longs, first.nulls);
    }
    if (columns.length != 2) {
      throw new IllegalArgumentException(columns.length + " key columns do not pack into one long");
    }
    ColumnVector second = columns[1];
    long[] keys = new long[rows];
    for (int r = 0; r < rows; r++) {
      keys[r] = first.longs[r] << 32 | (second.longs[r] & 0xFFFF_FFFFL);
    }
    boolean[] nulls = first.nulls == null ? second.nulls : first.nulls;
    if (first.nulls != null && second.nulls != null) {
      nulls = new boolean[rows];
      for (int r = 0; r < rows; r++) {
        nulls[r] = first.nulls[r] || second.nulls[r];
      }
    }
    return new Keys(keys, nulls);
  }
}
