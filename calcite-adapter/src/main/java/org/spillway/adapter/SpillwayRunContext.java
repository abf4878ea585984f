package org.spillway.adapter;

import java.util.concurrent.CancellationException;
import java.util.function.BooleanSupplier;

/** What every node of one run of a Spillway plan shares: worker threads and the query's cancel flag. */
record SpillwayRunContext(int threads, BooleanSupplier cancelled) {
  /** System property: when true, each pipeline and join logs its backend and time to stderr (for benchmarks). */
  static final String TRACE_PROPERTY = "spillway.trace";

  /** Fails if the query was cancelled, naming where it stopped. */
  void checkCancelled(String where) {
    if (cancelled.getAsBoolean()) {
      throw new CancellationException("query cancelled " + where);
    }
  }

  /** Logs one node's run when {@link #TRACE_PROPERTY} is set. */
  static void trace(String format, Object... args) {
    if (Boolean.getBoolean(TRACE_PROPERTY)) {
      System.err.printf("[spillway] " + format + "%n", args);
    }
  }
}
