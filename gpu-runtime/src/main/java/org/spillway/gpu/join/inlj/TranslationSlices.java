package org.spillway.gpu.join.inlj;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.spillway.gpu.device.DeviceAllocator;
import org.spillway.gpu.index.SortedKeyColumn;

/**
 * The slices a window's lookups run in on the GPU, one launch after another on the window's stream, so that at any
 * moment the lookups read a bounded region of the indexed column: at most the <em>translation reach</em> of bytes,
 * where the GPU's cached address translations of the host region stay warm. A window's radix partitions
 * ({@link WindowRadix}) are in key order, hence in the column's row order, so a slice is a run of consecutive
 * partitions whose rows span at most the reach (at least one partition, however many bytes it spans). The reason to
 * try it (issue #15, docs/bench/index-join sessions 13 and 16): from 32 to 64 GiB of R at 1% the probe keys double
 * and the GPU join's time grows 4.6x, as if each lookup waited on more translations over the link. One launch over all
 * partitions (the unlimited reach, the default) bounds its reads only as far as its blocks keep pace, walking the
 * partitions in order a grid's round at a time; slices bound them whatever the blocks do. Whether it helps is for the
 * GPU to say ({@code IndexJoinBenchmark --reaches}).
 *
 * <p>A slice ends where a partition's rows begin, found on the host: a binary search of the column and one key read
 * per slice (the window's own histogram stays on the GPU: the lookups read each slice's slots from its cursors). A
 * sliced window looks up its matchable keys only; the rejects after them get no row from window_restore either way.
 */
public final class TranslationSlices {
  /** The system property that sets the GPU join's translation reach: a byte count (e.g. 16g) or "unlimited". */
  public static final String PROPERTY = "spillway.inlj.translationReach";
  /** One launch over all of a window's partitions (no slices). */
  public static final long UNLIMITED = Long.MAX_VALUE;
  /**
   * The reach unless {@link #PROPERTY} sets one: on an H200 (TranslationReachProbe, session 16), random line reads over
   * 64 GiB cost as much as over 1 GiB when they run in 1 GiB slices, and three times more in one launch; the windowed
   * join at 1 % of 64 GiB ran 5x faster with it.
   */
  public static final long DEFAULT_REACH = 1L << 30;

  /** Slice s is partitions {@code bounds[s]} to {@code bounds[s + 1] - 1}. */
  private final int[] bounds;

  private TranslationSlices(int[] bounds) {
    this.bounds = bounds;
  }

  /**
   * The reach {@link #PROPERTY} sets, else {@link #DEFAULT_REACH}. Read per join, so that a benchmark or a session can
   * change it between joins.
   */
  public static long configuredReach() {
    String value = System.getProperty(PROPERTY);
    return value == null ? DEFAULT_REACH : parseReach(value);
  }

  /** A reach as a byte count with a k/m/g suffix (e.g. 16g), or "unlimited". */
  public static long parseReach(String text) {
    return text.trim().toLowerCase(Locale.ROOT).equals("unlimited") ? UNLIMITED
        : DeviceAllocator.parseBytes(PROPERTY, text);
  }

  /** How a reach reads: "unlimited" or its bytes in the largest unit that divides them (e.g. 16g). */
  public static String describe(long reachBytes) {
    if (reachBytes == UNLIMITED) {
      return "unlimited";
    }
    String[] units = {"g", "m", "k"};
    for (int i = 0; i < units.length; i++) {
      long unit = 1L << (30 - 10 * i);
      if (reachBytes % unit == 0) {
        return reachBytes / unit + units[i];
      }
    }
    return Long.toString(reachBytes);
  }

  /**
   * The slices of windows partitioned by {@code radix} over {@code column} for a reach of {@code reachBytes}; null
   * for the unlimited reach (one launch over every slot of the window, rejects included, as before slicing). Each
   * slice takes every partition whose rows end within the reach of its first partition's first row: the partition of
   * the row just past the reach ends it (a search of the column per slice, not one per partition).
   */
  static TranslationSlices of(SortedKeyColumn column, WindowRadix radix, long reachBytes) {
    if (reachBytes <= 0) {
      throw new IllegalArgumentException("a translation reach is positive bytes, got " + reachBytes);
    }
    if (reachBytes == UNLIMITED) {
      return null;
    }
    long rowsPerReach = reachBytes / column.width();  // 0: a slice per partition that holds rows
    List<Integer> bounds = new ArrayList<>(List.of(0));
    int start = 0;
    while (start < radix.fanout()) {
      long pastReach = firstRow(column, radix, start) + rowsPerReach;
      // partitions before the one holding row pastReach end at or before it: they fit, that one does not
      int end = pastReach >= column.rows() ? radix.fanout()
          : Math.max(start + 1, radix.partitionOf(column.key(pastReach)));
      bounds.add(end);
      start = end;
    }
    return new TranslationSlices(bounds.stream().mapToInt(Integer::intValue).toArray());
  }

  /**
   * The first row of partition {@code partition} of {@code radix} in {@code column} (the column's rows for the
   * partition after the last): the first row whose key's offset from the smallest key, shifted, reaches it.
   */
  static long firstRow(SortedKeyColumn column, WindowRadix radix, int partition) {
    if (radix.empty() || partition >= radix.fanout()) {
      return column.rows();
    }
    long lo = 0;
    long hi = column.rows();
    while (lo < hi) {  // partitionOf compares unsigned offsets: a key's offset may exceed Long.MAX_VALUE
      long mid = (lo + hi) >>> 1;
      if (radix.partitionOf(column.key(mid)) < partition) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return lo;
  }

  /** How many slices a window's lookups run in. */
  int count() {
    return bounds.length - 1;
  }

  /** The first partition of slice {@code s}. */
  int firstPartition(int s) {
    return bounds[s];
  }

  /** The partition after slice {@code s}'s last. */
  int endPartition(int s) {
    return bounds[s + 1];
  }
}
