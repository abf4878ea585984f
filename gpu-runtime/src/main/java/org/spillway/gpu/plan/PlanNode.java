package org.spillway.gpu.plan;

import org.spillway.gpu.vector.ExprType;

import java.util.BitSet;
import java.util.List;
import java.util.Optional;
import org.spillway.gpu.expr.Expr;

/**
 * A node of the runtime plan of a Spillway subtree: a bare scan, a fused pipeline over a scan or over another
 * node's output, or a join of two nodes. Running a node runs its inputs first; columns the node only passes
 * on are materialized when someone reads them ({@link NodeOutput}).
 */
public interface PlanNode {
  /** Types of the output columns. */
  List<ExprType> types();

  /** Runs the node and its inputs. */
  NodeOutput run(RunContext context);

  /**
   * Runs the node for a consumer that reads only the columns in {@code read}; a node may then compute less
   * (a join read by no column, under a COUNT(*), only counts its rows).
   */
  default NodeOutput run(RunContext context, BitSet read) {
    return run(context);
  }

  /**
   * This node narrowed to the output rows where {@code condition} (over its output columns) is TRUE, where the node
   * can drop them cheaper than a filter after it: a pipeline applies it as its last stage, so that a GPU aggregate
   * brings back only the groups it keeps. The node returned reports as this one. Empty where this node cannot.
   */
  default Optional<PlanNode> filteredBy(Expr condition) {
    return Optional.empty();
  }

  /** Whether this node's output is surely at most one row (a global aggregate's). */
  default boolean atMostOneRow() {
    return false;
  }

  /**
   * Whether running this node, its inputs included, surely uses no GPU: such parts of a plan may run side by side
   * ({@link IndependentRuns}) without two GPU runs contending for device memory. False where a node cannot tell.
   */
  default boolean cpuOnly() {
    return false;
  }
}
