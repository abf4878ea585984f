package org.spillway.gpu.join.inlj;

import java.util.Arrays;
import java.util.function.BooleanSupplier;
import org.spillway.gpu.index.SortedKeyIndex;
import org.spillway.gpu.join.JoinType;
import org.spillway.gpu.pipeline.scheduler.MorselScheduler;

/**
 * The windowed index nested-loop join (Schmeißer, Lutz and Markl, EDBT 2025) on the CPU: joins probe keys with the
 * sorted unique build keys a {@link SortedKeyIndex} is over. The probe is cut into tumbling windows of
 * {@link #windowTuples()} keys; each window is radix-partitioned ({@link WindowPartitioner}), its keys looked up a
 * vector at a time (the index interleaves the searches), and its matches put back into the window's original order,
 * so the join index comes out in probe order and a pipeline continues over it. Windows run in parallel on the
 * engine's pool; the result does not depend on which worker ran which window.
 *
 * <p>The build keys are unique, so a probe row has at most one match. A NULL probe key never matches.
 */
public final class WindowedIndexJoin {
  /** The paper's default window: 32 MiB of 8-byte keys. */
  public static final long DEFAULT_WINDOW_BYTES = 32L << 20;
  /** Caps a window so its buffers stay Java arrays. */
  private static final int MAX_WINDOW_TUPLES = 1 << 28;

  private final SortedKeyIndex index;
  private final int windowTuples;
  private final int threads;
  private final WindowPartitioner partitioner;

  /** A join through {@code index} with windows of {@code windowBytes} of keys (at least one key) on {@code threads}. */
  public WindowedIndexJoin(SortedKeyIndex index, long windowBytes, int threads) {
    if (windowBytes < 1) {
      throw new IllegalArgumentException("a window holds at least one key, got a budget of " + windowBytes
          + " bytes");
    }
    if (threads < 1) {
      throw new IllegalArgumentException("a join runs on at least one thread, got " + threads);
    }
    this.index = index;
    this.windowTuples = (int) Math.min(MAX_WINDOW_TUPLES, Math.max(1, windowBytes / Long.BYTES));
    this.threads = threads;
    this.partitioner = new WindowPartitioner(index.column());
  }

  public WindowedIndexJoin(SortedKeyIndex index, int threads) {
    this(index, DEFAULT_WINDOW_BYTES, threads);
  }

  /** Probe keys per window. */
  public int windowTuples() {
    return windowTuples;
  }

  /** Joins probe keys {@code keys} ({@code nulls[i]} true for a NULL key; {@code nulls} null when none is). */
  public JoinIndex join(long[] keys, boolean[] nulls, JoinType type) {
    return join(keys, nulls, type, () -> false);
  }

  /** As {@link #join(long[], boolean[], JoinType)}, stopping between windows once {@code cancelled} is true. */
  public JoinIndex join(long[] keys, boolean[] nulls, JoinType type, BooleanSupplier cancelled) {
    if (nulls != null && nulls.length < keys.length) {
      throw new IllegalArgumentException("probe keys need a NULL flag each, got " + nulls.length + " flags for "
          + keys.length + " keys");
    }
    int windows = (int) ((keys.length + (long) windowTuples - 1) / windowTuples);
    JoinIndex[] outputs = new JoinIndex[windows];
    PartitionedWindow[] buffers = new PartitionedWindow[MorselScheduler.workers(windows, threads)];
    int capacity = Math.min(windowTuples, keys.length);
    MorselScheduler.forEach(windows, threads, cancelled, (worker, window) -> {
      if (buffers[worker] == null) {
        buffers[worker] = new PartitionedWindow(capacity, partitioner.fanout());
      }
      int from = window * windowTuples;
      int count = Math.min(windowTuples, keys.length - from);
      outputs[window] = joinWindow(keys, nulls, from, count, type, buffers[worker]);
    });
    return JoinIndex.concat(outputs);
  }

  private JoinIndex joinWindow(long[] keys, boolean[] nulls, int from, int count, JoinType type,
      PartitionedWindow window) {
    int partitioned = partitioner.partition(keys, nulls, from, count, window);
    index.lookup(window.keys, partitioned, window.rows);
    long[] buildRowAt = window.buildRowAt;
    Arrays.fill(buildRowAt, 0, count, -1);
    for (int i = 0; i < partitioned; i++) {
      buildRowAt[window.positions[i]] = window.rows[i];
    }
    return emit(buildRowAt, from, count, type);
  }

  /** The window's pairs in window order: what {@code type} keeps of each probe row and its build row (or -1). */
  private static JoinIndex emit(long[] buildRowAt, int from, int count, JoinType type) {
    int size = 0;
    for (int i = 0; i < count; i++) {
      size += keeps(type, buildRowAt[i] >= 0) ? 1 : 0;
    }
    int[] probeRows = new int[size];
    long[] buildRows = new long[size];
    int at = 0;
    for (int i = 0; i < count; i++) {
      boolean matched = buildRowAt[i] >= 0;
      if (keeps(type, matched)) {
        probeRows[at] = from + i;
        buildRows[at++] = type.existenceOnly() ? -1 : buildRowAt[i];
      }
    }
    return new JoinIndex(probeRows, buildRows);
  }

  private static boolean keeps(JoinType type, boolean matched) {
    return switch (type) {
      case INNER, SEMI -> matched;
      case ANTI -> !matched;
      case LEFT_OUTER -> true;
    };
  }
}
