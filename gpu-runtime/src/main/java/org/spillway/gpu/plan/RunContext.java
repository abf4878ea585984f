package org.spillway.gpu.plan;

import java.util.concurrent.CancellationException;
import java.util.HashMap;
import java.util.Map;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * What every node of one run of a Spillway plan shares: worker threads, the query's cancel flag, and the outputs of
 * nodes the plan uses in several places.
 */
public record RunContext(int threads, BooleanSupplier cancelled, Map<PlanNode, NodeOutput> results) {
  public RunContext(int threads, BooleanSupplier cancelled) {
    this(threads, cancelled, new HashMap<>());
  }

  /** The output of a node used in several places of the plan, computed by {@code run} on its first use. */
  public NodeOutput shared(PlanNode node, Supplier<NodeOutput> run) {
    synchronized (results) {
      NodeOutput done = results.get(node);
      if (done == null) {
        done = run.get();
        results.put(node, done);
        trace("shared subtree computed once: %d rows", done.rows());
      }
      return done;
    }
  }

  /** System property: when true, each pipeline and join logs its backend and time to stderr (for benchmarks). */
  public static final String TRACE_PROPERTY = "spillway.trace";

  /** Fails if the query was cancelled, naming where it stopped. */
  public void checkCancelled(String where) {
    if (cancelled.getAsBoolean()) {
      throw new CancellationException("query cancelled " + where);
    }
  }

  /** Logs one node's run when {@link #TRACE_PROPERTY} is set. */
  public static void trace(String format, Object... args) {
    if (Boolean.getBoolean(TRACE_PROPERTY)) {
      System.err.printf("[spillway] " + format + "%n", args);
    }
  }
}
