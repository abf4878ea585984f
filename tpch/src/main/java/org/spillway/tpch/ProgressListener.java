package org.spillway.tpch;

/** Receives progress of a long-running load; may be called from several threads at once. */
public interface ProgressListener {
  /** A listener that ignores progress. */
  ProgressListener NONE = (table, rowsDone, rowsTotal) -> { };

  /** Rows of {@code table} written so far out of (an estimate of) its total. */
  void onProgress(String table, long rowsDone, long rowsTotal);

  /** Called once when the whole load has finished successfully. */
  default void onComplete() {
  }
}
