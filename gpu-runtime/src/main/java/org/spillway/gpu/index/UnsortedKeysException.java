package org.spillway.gpu.index;

/**
 * The column an index is built over is not sorted ascending with unique keys (the order every index here reads
 * positions from). Names the first offending row and both keys, so that CREATE INDEX can say which row breaks it.
 */
public final class UnsortedKeysException extends IllegalArgumentException {
  private final long row;

  UnsortedKeysException(long row, long previous, long key) {
    super(String.format("an index needs sorted, unique keys, but row %d has key %d after key %d (%s)", row, key,
        previous, key == previous ? "a duplicate" : "descending"));
    this.row = row;
  }

  /** The first row whose key is not greater than the key before it. */
  public long row() {
    return row;
  }
}
