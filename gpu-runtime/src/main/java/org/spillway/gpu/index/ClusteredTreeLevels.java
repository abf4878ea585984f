package org.spillway.gpu.index;

/**
 * The shape of a clustered search tree (the B+-tree's and Harmonia's): the sorted column is cut into units of a
 * fixed number of rows, the leaves; inner nodes of {@code fanout} children sit above them, built bottom-up and
 * full (every node but the last of its level has all its children), numbered breadth-first from the root, units
 * numbered after the last inner node. Because every node is full, a node's subtree is known by arithmetic: the
 * levels are built on all cores at once, each node straight from the column.
 */
final class ClusteredTreeLevels {
  private final long rows;
  private final long unitRows;
  private final int fanout;
  private final long units;
  /** Nodes per level, root first. */
  private final long[] counts;
  /** The number of the first node of each level; one more entry, the number of the first unit. */
  private final long[] starts;
  /** Units under one node of each level; one more entry, 1 (a unit). */
  private final long[] unitsPerNode;

  ClusteredTreeLevels(long rows, long unitRows, int fanout) {
    this.rows = rows;
    this.unitRows = unitRows;
    this.fanout = fanout;
    this.units = (rows + unitRows - 1) / unitRows;
    int depth = 0;
    for (long level = units; rows > 0 && (depth == 0 || level > 1); level = (level + fanout - 1) / fanout) {
      depth++;
    }
    counts = new long[depth];
    unitsPerNode = new long[depth + 1];
    unitsPerNode[depth] = 1;
    long below = units;
    for (int level = depth - 1; level >= 0; level--) {
      counts[level] = (below + fanout - 1) / fanout;
      unitsPerNode[level] = unitsPerNode[level + 1] * fanout;
      below = counts[level];
    }
    starts = new long[depth + 1];
    for (int level = 0; level < depth; level++) {
      starts[level + 1] = starts[level] + counts[level];
    }
  }

  /** Inner levels (0 for an empty column, else at least 1: the root). */
  int depth() {
    return counts.length;
  }

  /** Inner nodes of all levels. */
  long nodes() {
    return starts[counts.length];
  }

  long units() {
    return units;
  }

  long unitRows() {
    return unitRows;
  }

  long count(int level) {
    return counts[level];
  }

  /** The number of the first node of {@code level}, or of the first unit for {@code depth()}. */
  long start(int level) {
    return starts[level];
  }

  /** The children of node {@code node} (0-based within its level) of {@code level}. */
  int children(int level, long node) {
    long below = level + 1 < counts.length ? counts[level + 1] : units;
    return (int) Math.min(fanout, below - node * fanout);
  }

  /**
   * The last row under child {@code child} of {@code level}'s nodes ({@code child} numbers the level below from
   * 0, units for the lowest inner level): the greatest key of that subtree, which the node keeps for it.
   */
  long lastRowOfChild(int level, long child) {
    return Math.min((child + 1) * unitsPerNode[level + 1] * unitRows, rows) - 1;
  }

  /**
   * Runs {@code task} over the nodes of {@code level} on {@code threads} threads, a stretch of nodes per task
   * that reads some 64 Ki keys.
   */
  void forEachNode(int level, int threads, ParallelRanges.RangeTask task) {
    long nodesPerTask = Math.max(1, (1 << 16) / fanout);
    ParallelRanges.run(counts[level], nodesPerTask, threads, task);
  }
}
