package org.spillway.storage.imports;

import org.spillway.storage.StoredTable;

/** A finished import: the new table, the bytes of input read, how long it took and where that time went. */
public record ImportResult(StoredTable table, long inputBytes, long nanos, ImportPhases phases) {
  /** A result without a timeline of its phases. */
  public ImportResult(StoredTable table, long inputBytes, long nanos) {
    this(table, inputBytes, nanos, ImportPhases.UNKNOWN);
  }

  /** Rows of the new table. */
  public long rows() {
    return table.rowCount();
  }

  /** Input read per second, in MB (10^6 bytes). */
  public double megabytesPerSecond() {
    return nanos == 0 ? 0 : inputBytes / 1e6 / (nanos / 1e9);
  }
}
