package org.spillway.gpu.join.inlj;

import java.util.Arrays;
import java.util.function.BooleanSupplier;
import org.spillway.gpu.index.SortedKeyIndex;
import org.spillway.gpu.join.JoinType;
import org.spillway.gpu.pipeline.scheduler.MorselScheduler;

/**
 * The windowed index nested-loop join (Schmeißer, Lutz and Markl, EDBT 2025) on the CPU: joins probe keys with the
 * sorted unique build keys a {@link SortedKeyIndex} is over. The probe is cut into tumbling windows of at most
 * {@link #windowTuples()} keys, balanced over the threads ({@link TumblingWindows#balanced}); each window is radix-partitioned ({@link WindowPartitioner}), its keys looked up a
 * vector at a time (the index interleaves the searches), and its matches put back into the window's original order,
 * so the join index comes out in probe order and a pipeline continues over it. Windows run in parallel on the
 * engine's pool; the result does not depend on which worker ran which window. {@link GpuWindowedIndexJoin} is the
 * GPU one, and {@link #run} the entry point that picks either.
 *
 * <p>The build keys are unique, so a probe row has at most one match. A NULL probe key never matches.
 */
public final class WindowedIndexJoin {
  /** The paper's default window: 32 MiB of 8-byte keys. */
  public static final long DEFAULT_WINDOW_BYTES = 32L << 20;
  /** The largest window {@link #windowBytesFor} chooses: 2^26 keys, about 2 GiB of GPU buffers per window. */
  public static final long MAX_SIZED_WINDOW_BYTES = 512L << 20;
  /** A window sized by its index holds at least this share of the indexed keys' bytes (1/64). */
  static final int INDEXED_BYTES_PER_WINDOW_BYTE = 64;
  /** Partitions of a window on either device: the top bits of the indexed column's key range (WindowRadix). */
  public static final int WINDOW_PARTITIONS = 1 << WindowRadix.RADIX_BITS;

  private final SortedKeyIndex index;
  private final int windowTuples;
  private final int threads;
  private final WindowPartitioner partitioner;

  /** A join through {@code index} with windows of {@code windowBytes} of keys (at least one key) on {@code threads}. */
  public WindowedIndexJoin(SortedKeyIndex index, long windowBytes, int threads) {
    this.windowTuples = TumblingWindows.tuplesFor(windowBytes, Long.BYTES, 1);
    this.threads = new IndexJoinDevice.Cpu(threads).threads();
    this.index = index;
    this.partitioner = new WindowPartitioner(index.column());
  }

  /**
   * The window for an index over {@code indexedRows} keys: the paper's 32 MiB, or 1/64 of the indexed keys' bytes
   * where that is more, up to 512 MiB. A window's lookups read one line per key scattered over the whole index, so
   * the larger the index, the fewer of a window's lookups share a page and its translation; past the GPU's TLB
   * reach every lookup of a 32 MiB window missed it, and larger windows bring the lookups of a page back together.
   */
  public static long windowBytesFor(double indexedRows) {
    double share = indexedRows * Long.BYTES / INDEXED_BYTES_PER_WINDOW_BYTE;
    return Math.max(DEFAULT_WINDOW_BYTES, Math.min(MAX_SIZED_WINDOW_BYTES, (long) share));
  }

  public WindowedIndexJoin(SortedKeyIndex index, int threads) {
    this(index, DEFAULT_WINDOW_BYTES, threads);
  }

  /**
   * Joins probe keys {@code keys} ({@code nulls[i]} true for a NULL key; {@code nulls} null when none is) through
   * {@code index} on {@code device}, with windows of {@code windowBytes} of keys: the engine's entry point to the
   * windowed index join. Both devices return the same join index. On the GPU, index and column must lie in pinned
   * host memory (see {@link GpuWindowedIndexJoin}); the keys are copied there for the transfer, and a window's
   * lookups run in the translation slices that {@link TranslationSlices#PROPERTY} sets (unset: one launch). Stops
   * between windows with a {@link java.util.concurrent.CancellationException} once {@code cancelled} is true.
   */
  public static JoinIndex run(IndexJoinDevice device, long[] keys, boolean[] nulls, SortedKeyIndex index,
      JoinType type, long windowBytes, BooleanSupplier cancelled) {
    if (device instanceof IndexJoinDevice.Gpu gpu) {
      try (GpuWindowedIndexJoin join = new GpuWindowedIndexJoin(gpu.device(), index, windowBytes)) {
        return join.join(keys, nulls, type, cancelled);
      }
    }
    int threads = ((IndexJoinDevice.Cpu) device).threads();
    return new WindowedIndexJoin(index, windowBytes, threads).join(keys, nulls, type, cancelled);
  }

  /** Probe keys per window at most (the budget's). */
  public int windowTuples() {
    return windowTuples;
  }

  /** Joins probe keys {@code keys} ({@code nulls[i]} true for a NULL key; {@code nulls} null when none is). */
  public JoinIndex join(long[] keys, boolean[] nulls, JoinType type) {
    return join(keys, nulls, type, () -> false);
  }

  /** As {@link #join(long[], boolean[], JoinType)}, stopping between windows once {@code cancelled} is true. */
  public JoinIndex join(long[] keys, boolean[] nulls, JoinType type, BooleanSupplier cancelled) {
    requireFlags(keys.length, nulls);
    TumblingWindows windows = windows(keys.length);
    long[] buildRowAt = new long[keys.length];
    PartitionedWindow[] buffers = new PartitionedWindow[MorselScheduler.workers(windows.count(), threads)];
    int capacity = Math.min(windows.tuples(), keys.length);
    MorselScheduler.forEach(windows.count(), threads, cancelled, (worker, window) -> {
      if (buffers[worker] == null) {
        buffers[worker] = new PartitionedWindow(capacity, partitioner.fanout());
      }
      joinWindow(keys, nulls, (int) windows.first(window), windows.size(window), buffers[worker], buildRowAt);
    });
    return JoinIndex.inProbeOrder(buildRowAt, keys.length, type, threads);
  }

  /**
   * The windows a probe of {@code keys} keys is cut into: of at most {@link #windowTuples()} keys, balanced over the
   * threads ({@link TumblingWindows#balanced}).
   */
  TumblingWindows windows(int keys) {
    return TumblingWindows.balanced(keys, windowTuples, threads);
  }

  /** How many windows a probe of {@code keys} keys is cut into. */
  public int windowCount(int keys) {
    return windows(keys).count();
  }

  /**
   * How many windows the CPU join on {@code threads} threads cuts a probe of {@code keys} keys into, with windows of
   * at most {@code windowBytes} of keys: what the cost model charges rounds of lookups by.
   */
  public static long windowCount(long keys, long windowBytes, int threads) {
    return TumblingWindows.balanced(keys, TumblingWindows.tuplesFor(windowBytes, Long.BYTES, 1), threads).count();
  }

  /** Checks that every key has its NULL flag, when there are flags. */
  static void requireFlags(int keys, boolean[] nulls) {
    if (nulls != null && nulls.length < keys) {
      throw new IllegalArgumentException("probe keys need a NULL flag each, got " + nulls.length + " flags for "
          + keys + " keys");
    }
  }

  /** Joins one window: its build rows land in {@code buildRowAt} at the window's probe rows (-1 for none). */
  private void joinWindow(long[] keys, boolean[] nulls, int from, int count, PartitionedWindow window,
      long[] buildRowAt) {
    int partitioned = partitioner.partition(keys, nulls, from, count, window);
    index.lookup(window.keys, partitioned, window.rows);
    Arrays.fill(buildRowAt, from, from + count, -1);
    for (int i = 0; i < partitioned; i++) {
      buildRowAt[from + window.positions[i]] = window.rows[i];
    }
  }
}
