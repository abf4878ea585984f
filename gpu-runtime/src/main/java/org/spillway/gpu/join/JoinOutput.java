package org.spillway.gpu.join;

/** How a join delivers its result: materialized row-index pairs, or fused into a count-and-sum aggregate. */
public enum JoinOutput {
  /** Columnar pairs of (build row index, probe row index), as late materialization needs. */
  MATERIALIZED,
  /**
   * Count of output rows and sums of build and probe payloads over them, as the papers' join-aggregate
   * workloads compute; no pair is stored.
   */
  AGGREGATED
}
