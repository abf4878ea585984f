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
public record RunContext(int threads, BooleanSupplier cancelled, Map<PlanNode, SharedOutput> results,
    Map<PlanNode, PlannedOperator> planned, OperatorReports reports) {
  public RunContext(int threads, BooleanSupplier cancelled) {
    this(threads, cancelled, Map.of(), new OperatorReports());
  }

  /** A run of a plan whose nodes the planner described in {@code planned}, reporting into {@code reports}. */
  public RunContext(int threads, BooleanSupplier cancelled, Map<PlanNode, PlannedOperator> planned,
      OperatorReports reports) {
    this(threads, cancelled, new HashMap<>(), planned, reports);
  }

  /**
   * The output of a node used in several places of the plan, computed by {@code run} on its first use. Parts of a
   * plan run side by side, so a second use waits for the first; only for that node, since the first's run may
   * itself wait for parts that need another shared node.
   */
  public NodeOutput shared(PlanNode node, Supplier<NodeOutput> run) {
    SharedOutput slot;
    synchronized (results) {
      slot = results.computeIfAbsent(node, n -> new SharedOutput());
    }
    synchronized (slot) {
      if (slot.output == null) {
        slot.output = run.get();
        trace("shared subtree computed once: %d rows", slot.output.rows());
      } else {
        report(node, OperatorReport.Execution.SHARED, slot.output.rows(), System.nanoTime());
      }
      return slot.output;
    }
  }

  /** The output of a shared node once computed (guarded by itself). */
  public static final class SharedOutput {
    private NodeOutput output;
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
