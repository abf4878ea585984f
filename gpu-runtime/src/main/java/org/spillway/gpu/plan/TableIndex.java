package org.spillway.gpu.plan;

import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.spillway.gpu.index.IndexKind;
import org.spillway.gpu.index.SortedKeyColumn;
import org.spillway.gpu.index.SortedKeyIndex;
import org.spillway.gpu.index.UnsortedKeysException;
import org.spillway.gpu.pipeline.scheduler.MorselScheduler;

/**
 * An index of the windowed index join built over one key column of a table: the column's keys copied, batch by batch
 * on all cores, into one buffer of 8-byte keys in stored order (the index's leaf level, so that a key's position is
 * its row in the table), and the index of its kind over them, both from the allocator the build is handed (pinned
 * memory where the process allocates pinned host memory, which the GPU lookup reads zero-copy). The index owns that
 * allocator and closes it when freed.
 *
 * <p>Queries {@link #acquire} it while they join through it and {@link #release} it after; {@link #close} (its
 * definition or its table dropped, its catalog closed) frees the memory once the last query released it, so that a
 * drop never pulls the memory from under a running join.
 */
public final class TableIndex implements AutoCloseable {
  private static final System.Logger LOG = System.getLogger(TableIndex.class.getName());

  private final String name;
  private final BufferAllocator allocator;
  private final ArrowBuf keys;
  private final SortedKeyIndex index;
  private final long buildNanos;
  private int users;
  private boolean closed;
  private boolean freed;

  private TableIndex(String name, BufferAllocator allocator, ArrowBuf keys, SortedKeyIndex index, long buildNanos) {
    this.name = name;
    this.allocator = allocator;
    this.keys = keys;
    this.index = index;
    this.buildNanos = buildNanos;
  }

  /** The kinds of index by the names {@code CREATE INDEX ... USING} gives them. */
  public static List<String> kinds() {
    return Arrays.stream(IndexKind.values()).map(Enum::name).toList();
  }

  /**
   * Builds the index {@code name} of kind {@code kind} (one of {@link #kinds}) over column {@code column} of
   * {@code batches} (4- or 8-byte integral values) on {@code threads} threads, taking over {@code allocator}; on a
   * failure the allocator is closed and {@link BadKeysException} says which row breaks the order (or is NULL).
   */
  public static TableIndex build(String name, List<VectorSchemaRoot> batches, int column, String kind,
      BufferAllocator allocator, int threads) {
    long start = System.nanoTime();
    IndexKind indexKind = IndexKind.valueOf(kind);
    ArrowBuf keys = null;
    try {
      long[] firstRow = new long[batches.size() + 1];
      for (int b = 0; b < batches.size(); b++) {
        firstRow[b + 1] = firstRow[b] + batches.get(b).getRowCount();
      }
      long rows = firstRow[batches.size()];
      keys = allocator.buffer(Math.max(1, rows * Long.BYTES));
      copyKeys(batches, column, keys, firstRow, threads);
      SortedKeyColumn keyColumn = SortedKeyColumn.ofLongs(rows == 0 ? 0 : keys.memoryAddress(), rows);
      SortedKeyIndex index;
      try {
        index = indexKind.build(keyColumn, allocator, threads);
      } catch (UnsortedKeysException e) {
        boolean duplicate = keyColumn.key(e.row()) == keyColumn.key(e.row() - 1);
        throw new BadKeysException(e.row(), duplicate ? BadKeysException.Problem.DUPLICATE
            : BadKeysException.Problem.UNSORTED, e.getMessage(), e);
      }
      TableIndex built = new TableIndex(name, allocator, keys, index, System.nanoTime() - start);
      LOG.log(System.Logger.Level.INFO, () -> "built index " + built.describe());
      return built;
    } catch (RuntimeException | Error e) {
      if (keys != null) {
        keys.close();
      }
      allocator.close();
      throw e;
    }
  }

  /** Copies each batch's keys to its rows' place in {@code keys}, a batch per task. */
  private static void copyKeys(List<VectorSchemaRoot> batches, int column, ArrowBuf keys, long[] firstRow,
      int threads) {
    MorselScheduler.forEach(batches.size(), threads, () -> false, (worker, b) -> {
      FieldVector vector = batches.get(b).getVector(column);
      if (!(vector instanceof BaseFixedWidthVector fixed) || fixed.getTypeWidth() != 4 && fixed.getTypeWidth() != 8) {
        throw new IllegalArgumentException("an index takes 4- or 8-byte integral keys, but column "
            + vector.getName() + " is " + vector.getField().getType());
      }
      ArrowBuf data = fixed.getDataBuffer();
      boolean wide = fixed.getTypeWidth() == 8;
      int count = vector.getValueCount();
      for (int i = 0; i < count; i++) {
        if (vector.isNull(i)) {
          throw new BadKeysException(firstRow[b] + i, BadKeysException.Problem.NULL, "row " + (firstRow[b] + i)
              + " is NULL, an index needs a key in every row", null);
        }
        keys.setLong((firstRow[b] + i) * Long.BYTES, wide ? data.getLong((long) i * 8) : data.getInt((long) i * 4));
      }
    });
  }

  /**
   * Takes the index for one join; fails once it was closed (dropped): the caller looks it up again. Every acquire
   * is paired with one {@link #release}.
   */
  public synchronized TableIndex acquire() {
    if (closed) {
      throw new IllegalStateException("index " + name + " was dropped");
    }
    users++;
    return this;
  }

  /** Ends one join's use; frees the memory if the index was closed meanwhile and this was its last user. */
  public synchronized void release() {
    if (users <= 0) {
      throw new IllegalStateException("index " + name + " released more often than acquired");
    }
    users--;
    freeIfUnused();
  }

  /** Frees the memory now, or when the last join that acquired the index releases it. */
  @Override public synchronized void close() {
    closed = true;
    freeIfUnused();
  }

  private void freeIfUnused() {
    if (closed && users == 0 && !freed) {
      freed = true;
      index.close();
      keys.close();
      allocator.close();
    }
  }

  /** The index's own structure for the join (valid while acquired). */
  SortedKeyIndex index() {
    return index;
  }

  public String name() {
    return name;
  }

  /** The kind, as {@link #kinds} names it. */
  public String kind() {
    return index.kind().name();
  }

  /** Keys (the table's rows). */
  public long rows() {
    return index.column().rows();
  }

  /** Bytes the index holds: its copy of the keys and its structure. */
  public long sizeBytes() {
    return rows() * Long.BYTES + index.sizeBytes();
  }

  /** Milliseconds the build took: copying the keys, checking their order and building the structure. */
  public double buildMillis() {
    return buildNanos / 1e6;
  }

  /** E.g. {@code orders_key (RADIXSPLINE): 1500000 keys, 12.3 MiB, built in 45.6 ms}. */
  public String describe() {
    return String.format(Locale.ROOT, "%s (%s): %d keys, %.1f MiB, built in %.1f ms", name, kind(), rows(),
        sizeBytes() / (double) (1 << 20), buildMillis());
  }

  /** Keys an index cannot be built over: the row that is NULL, or the first one not above the key before it. */
  public static final class BadKeysException extends RuntimeException {
    /** What is wrong with the row. */
    public enum Problem { NULL, DUPLICATE, UNSORTED }

    private final long row;
    private final Problem problem;

    BadKeysException(long row, Problem problem, String message, Throwable cause) {
      super(message, cause);
      this.row = row;
      this.problem = problem;
    }

    /** The row, counted from 0 in stored order. */
    public long row() {
      return row;
    }

    public Problem problem() {
      return problem;
    }
  }
}
