package org.spillway.storage.imports;

/** Receives the progress of an import; called from the import's threads, possibly at once. */
@FunctionalInterface
public interface ImportProgress {
  /** A listener that ignores progress. */
  ImportProgress NONE = (rowsDone, rowsTotal) -> { };

  /** Rows written so far out of the total (exact for Parquet, an estimate from bytes read for other formats). */
  void onRows(long rowsDone, long rowsTotal);
}
