package org.spillway.gpu.aggregate;

import org.spillway.gpu.pipeline.Morsel;
import org.spillway.gpu.pipeline.scheduler.MorselScheduler;
import org.spillway.gpu.vector.ColumnVector;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.function.IntFunction;

/**
 * One worker's share of a morsel-driven hash aggregation (Leis et al., "Morsel-driven parallelism", SIGMOD 2014;
 * DuckDB's radix-partitioned hash table). The worker pre-aggregates its morsels into a {@link HashAggregator} of
 * its own; once that table passes a cache-sized number of groups it is flushed instead of grown: its groups are
 * reordered into radix partitions by the high bits of their key hashes and kept as a run, and the worker goes on
 * with its table emptied, so its probes keep hitting cache. A table that addresses dense integer keys directly
 * ({@link KeyDirectory}) is never flushed: its lookups cost one array read at any size. {@link #merge} then folds, one task per partition on all
 * cores, every run's groups of that partition into a table sized for them up front: no table ever rehashes, and
 * equal keys meet only in their own partition.
 */
public final class PartitionedAggregation {
  /** Groups (over all workers) from which the merge runs in partitions on all cores instead of on one thread. */
  public static final int PARTITIONED_MERGE_GROUPS = 1 << 15;
  /** Groups at which a worker's table is flushed, as long as pre-aggregation reduces its rows well. */
  public static final int FLUSH_GROUPS = 1 << 16;
  /** The flush limit grows (while pre-aggregation barely reduces the rows) up to this many groups. */
  private static final int MAX_FLUSH_GROUPS = 1 << 18;
  /** Radix partitions: enough for tasks to balance over the cores and for one partition's table to stay small. */
  static final int PARTITION_BITS = Math.max(6, 32 - Integer.numberOfLeadingZeros(MorselScheduler.THREADS * 4 - 1));

  private final IntFunction<HashAggregator> newTable;
  private final List<HashAggregator.Partitioned> runs = new ArrayList<>();
  private HashAggregator table;
  private int flushGroups;
  private long rowsSinceFlush;

  /**
   * @param newTable makes an empty aggregator of the stage sized for the given number of groups
   * @param flushGroups the first flush limit ({@link #FLUSH_GROUPS}; tests force flushes with less)
   */
  public PartitionedAggregation(IntFunction<HashAggregator> newTable, int flushGroups) {
    this.newTable = newTable;
    this.flushGroups = flushGroups;
    this.table = newTable.apply(16);
  }

  /** Adds the rows of a morsel (whose columns are the stage's input). */
  public void add(Morsel morsel) {
    rowsSinceFlush += morsel.rows();
    table.add(morsel);
    if (table.keyed() && table.groupCount() >= flushGroups && !table.directlyAddressed()) {
      flush();
    }
  }

  /**
   * Keeps the table as a run and starts an empty one. When its rows were hardly more than its groups, the keys
   * have little locality and flushing only moves the grouping to the merge, so the next table may grow larger.
   */
  private void flush() {
    int groups = table.groupCount();
    runs.add(table.partitioned(PARTITION_BITS));
    if (rowsSinceFlush < 2L * groups) {
      flushGroups = Math.min(MAX_FLUSH_GROUPS, flushGroups * 2);
    }
    rowsSinceFlush = 0;
    table.clear();
  }

  /** The number of groups in this worker's runs and table (keys in several of them counted in each). */
  private long groups() {
    long n = table.groupCount();
    for (HashAggregator.Partitioned run : runs) {
      n += run.groups().groupCount();
    }
    return n;
  }

  /**
   * The aggregate over all workers' rows: folded into the first worker's table on this thread when the groups are
   * few, else merged by partition on all cores and concatenated.
   */
  public static ColumnVector[] merge(PartitionedAggregation[] workers, BooleanSupplier cancelled) {
    long groups = 0;
    boolean flushed = false;
    for (PartitionedAggregation w : workers) {
      groups += w.groups();
      flushed |= !w.runs.isEmpty();
    }
    HashAggregator first = workers[0].table;
    if (!flushed && (workers.length == 1 || !first.keyed() || groups < PARTITIONED_MERGE_GROUPS)) {
      for (int w = 1; w < workers.length; w++) {
        first.merge(workers[w].table);
      }
      return first.result();
    }
    List<HashAggregator.Partitioned> all = new ArrayList<>();
    for (PartitionedAggregation w : workers) {
      all.addAll(w.runs);
      w.runs.clear();
    }
    HashAggregator.Partitioned[] last = new HashAggregator.Partitioned[workers.length];
    MorselScheduler.forEach(workers.length, MorselScheduler.THREADS, cancelled,
        (worker, w) -> last[w] = workers[w].table.partitioned(PARTITION_BITS));
    all.addAll(Arrays.asList(last));
    ColumnVector[][] parts = new ColumnVector[1 << PARTITION_BITS][];
    MorselScheduler.forEach(parts.length, MorselScheduler.THREADS, cancelled, (worker, partition) -> {
      int bound = 0;
      for (HashAggregator.Partitioned run : all) {
        bound += run.size(partition);
      }
      HashAggregator target = workers[0].newTable.apply(bound);
      for (HashAggregator.Partitioned run : all) {
        target.merge(run.groups(), run.starts()[partition], run.starts()[partition + 1]);
      }
      parts[partition] = target.result();
    });
    ColumnVector[] out = new ColumnVector[parts[0].length];
    for (int c = 0; c < out.length; c++) {
      List<ColumnVector> column = new ArrayList<>(parts.length);
      for (ColumnVector[] part : parts) {
        column.add(part[c]);
      }
      out[c] = ColumnVector.concat(parts[0][c].type, column);
    }
    return out;
  }
}
