package org.spillway.gpu.plan;

import java.util.concurrent.CancellationException;
import java.util.HashMap;
import java.util.Map;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * What every node of one run of a Spillway plan shares: worker threads, the query's cancel flag, the outputs of
 * nodes the plan uses in several places, what the planner said about the nodes ({@code planned}, by node; read
 * only while the plan runs) and the collector of the nodes' reports (for EXPLAIN ANALYZE and the trace).
 */
public record RunContext(int threads, BooleanSupplier cancelled, Map<PlanNode, NodeOutput> results,
    Map<PlanNode, PlannedOperator> planned, OperatorReports reports) {
  public RunContext(int threads, BooleanSupplier cancelled) {
    this(threads, cancelled, Map.of(), new OperatorReports());
  }

  /** A run of a plan whose nodes the planner described in {@code planned}, reporting into {@code reports}. */
  public RunContext(int threads, BooleanSupplier cancelled, Map<PlanNode, PlannedOperator> planned,
      OperatorReports reports) {
    this(threads, cancelled, new HashMap<>(), planned, reports);
  }

  /** The output of a node used in several places of the plan, computed by {@code run} on its first use. */
  public NodeOutput shared(PlanNode node, Supplier<NodeOutput> run) {
    synchronized (results) {
      NodeOutput done = results.get(node);
      if (done == null) {
        done = run.get();
        results.put(node, done);
        trace("shared subtree computed once: %d rows", done.rows());
      } else {
        report(node, OperatorReport.Execution.SHARED, done.rows(), System.nanoTime());
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

  /**
   * Reports that {@code node}, whose own work began at {@code startNanos} ({@link System#nanoTime}), finished
   * on {@code execution} with {@code rows} rows; the trace shows the report too.
   */
  public void report(PlanNode node, OperatorReport.Execution execution, long rows, long startNanos) {
    PlannedOperator described = planned.get(node);
    OperatorReport report = new OperatorReport(described != null ? described : PlannedOperator.unnamed(node),
        execution, rows, Math.max(0, System.nanoTime() - startNanos));
    reports.add(report);
    trace("report: %s", report);
  }

  /** Logs one node's run when {@link #TRACE_PROPERTY} is set. */
  public static void trace(String format, Object... args) {
    if (Boolean.getBoolean(TRACE_PROPERTY)) {
      System.err.printf("[spillway] " + format + "%n", args);
    }
  }
}
