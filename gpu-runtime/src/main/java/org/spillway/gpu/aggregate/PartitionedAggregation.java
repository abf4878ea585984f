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
    this(newTable.apply(16), newTable, flushGroups);
  }

  /**
   * @param table the worker's empty table (made by the caller where it knows more than a size, such as the rows the
   *     worker is expected to take)
   * @param newTable makes an empty aggregator of the stage sized for the given number of groups (for the merge)
   * @param flushGroups the first flush limit
   */
  public PartitionedAggregation(HashAggregator table, IntFunction<HashAggregator> newTable, int flushGroups) {
    this.newTable = newTable;
    this.flushGroups = flushGroups;
    this.table = table;
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
   * few, else merged by key range (tables that address their keys directly) or by partition on all cores and
   * concatenated.
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
    if (mergesByKeyRange(workers)) {
      return mergeByKeyRange(workers, cancelled);
    }
    return mergeByPartition(workers, cancelled);
  }

  /**
   * The merge of radix-partitioned runs: every worker's table joins its runs in partition order, then one task per
   * partition on all cores folds that partition of every run into a table sized for them up front.
   */
  private static ColumnVector[] mergeByPartition(PartitionedAggregation[] workers, BooleanSupplier cancelled) {
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
    return concat(parts);
  }

  /** Whether the workers' tables can merge by key range: none flushed, all address their keys directly. */
  static boolean mergesByKeyRange(PartitionedAggregation[] workers) {
    for (PartitionedAggregation w : workers) {
      if (!w.runs.isEmpty() || !w.table.mergesByKeyRange()) {
        return false;
      }
    }
    return true;
  }

  /**
   * The merge of workers whose tables all address their one key directly: the range of the key words is cut into
   * slices, one task per slice on all cores, each folding every worker's groups of its slice (read off the worker's
   * directory, in key order) into a table of its own. No group is first copied into partition order, equal keys meet
   * only in their slice, and a slice's keys are dense, so its table addresses them directly too and finds each
   * worker's group of a key by the key's place in both directories, reading no key words. The NULL key's
   * groups go to the last slice. Falls back to the partitioned merge where the workers' ranges lie too far apart.
   */
  private static ColumnVector[] mergeByKeyRange(PartitionedAggregation[] workers, BooleanSupplier cancelled) {
    long low = Long.MAX_VALUE;
    long high = Long.MIN_VALUE;
    for (PartitionedAggregation w : workers) {
      long[] range = w.table.keyRange();
      if (range != null) {
        low = Math.min(low, range[0]);
        high = Math.max(high, range[1]);
      }
    }
    // every directory covers at most KeyDirectory.MAX_SPAN keys; a union much wider is mostly gaps
    long span = low > high ? 0 : high - low + 1;
    if (span < 0 || span > KeyDirectory.MAX_SPAN * workers.length) {
      return mergeByPartition(workers, cancelled);
    }
    int slices = 1 << PARTITION_BITS;
    long width = span / slices + 1;
    long first = low;
    ColumnVector[][] parts = new ColumnVector[slices][];
    MorselScheduler.forEach(slices, MorselScheduler.THREADS, cancelled, (worker, slice) -> {
      long from = Math.min(span, slice * width);
      long to = Math.min(span, from + width);  // keys first + from .. first + to - 1
      boolean nullKey = slice == slices - 1;
      int bound = 0;
      for (PartitionedAggregation w : workers) {
        bound += w.table.groupCountOfKeys(first + from, first + to - 1, nullKey);
      }
      HashAggregator target = workers[0].newTable.apply(bound);
      target.reserveKeyRange(first + from, first + to - 1);
      for (PartitionedAggregation w : workers) {
        target.mergeKeyRange(w.table, first + from, first + to - 1, nullKey);
      }
      parts[slice] = target.result();
    });
    return concat(parts);
  }

  /** The slices' or partitions' results, one after the other. */
  private static ColumnVector[] concat(ColumnVector[][] parts) {
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
