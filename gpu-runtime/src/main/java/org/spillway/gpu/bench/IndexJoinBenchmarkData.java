package org.spillway.gpu.bench;

import java.util.Arrays;
import java.util.EnumMap;
import java.util.Locale;
import java.util.Map;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.spillway.gpu.device.HostCopy;
import org.spillway.gpu.index.IndexKind;
import org.spillway.gpu.index.SortedKeyColumn;
import org.spillway.gpu.index.SortedKeyIndex;
import org.spillway.gpu.transfer.ColumnType;
import org.spillway.gpu.transfer.HostColumn;

/**
 * The relations of {@link IndexJoinBenchmark}: R, sorted unique keys with gaps ({@link SortedKeys}) off-heap (pinned
 * where a GPU runs) with its indexes, and S, probe keys drawn among R's keys with a share of misses. Generating and
 * indexing run on all cores and say how long they took, as the target run's R of 32 GiB must be ready in seconds.
 */
final class IndexJoinBenchmarkData {
  private IndexJoinBenchmarkData() {}

  /**
   * R: {@code rows} keys off-heap, its indexes built on first use, and a Java copy for the CPU hash joins. A smaller R
   * is a prefix of a larger one ({@link #prefix}: row r holds 4r whatever the size), so a sweep over sizes allocates
   * and writes its largest R once.
   */
  static final class Relation implements AutoCloseable {
    final long rows;
    final ArrowBuf keys;
    final SortedKeyColumn column;
    private final Map<IndexKind, SortedKeyIndex> indexes = new EnumMap<>(IndexKind.class);
    private final BufferAllocator allocator;
    private final int threads;
    /** Whether closing frees the keys (false for a prefix, whose keys are its whole relation's). */
    private final boolean owner;
    private long[] javaKeys;

    Relation(BufferAllocator allocator, long rows, int threads) {
      this.allocator = allocator;
      this.rows = rows;
      this.threads = threads;
      this.owner = true;
      long start = System.nanoTime();
      this.keys = allocator.buffer(rows * Long.BYTES);
      long allocated = System.nanoTime();
      SortedKeys.fill(keys.memoryAddress(), rows);
      this.column = SortedKeyColumn.ofLongs(keys.memoryAddress(), rows);
      System.out.printf(Locale.ROOT, "R: %d keys (%.2f GiB), allocated in %.1f s, written in %.1f s%n", rows,
          rows * 8.0 / (1L << 30), (allocated - start) / 1e9, (System.nanoTime() - allocated) / 1e9);
    }

    private Relation(Relation whole, long rows) {
      this.allocator = whole.allocator;
      this.rows = rows;
      this.threads = whole.threads;
      this.owner = false;
      this.keys = whole.keys;
      this.column = SortedKeyColumn.ofLongs(keys.memoryAddress(), rows);
    }

    /**
     * The R of the first {@code rows} rows, over this one's keys, with indexes of its own; closing it frees those
     * and leaves the keys to this one.
     */
    Relation prefix(long rows) {
      if (rows < 1 || rows > this.rows) {
        throw new IllegalArgumentException("a prefix of R's " + this.rows + " rows has 1 to " + this.rows
            + " rows, not " + rows);
      }
      return new Relation(this, rows);
    }

    SortedKeyIndex index(IndexKind kind) {
      return indexes.computeIfAbsent(kind, k -> {
        SortedKeyIndex index = k.build(column, allocator, threads);
        System.out.printf(Locale.ROOT, "index %s over R: %.1f MiB, built in %.1f s on %d threads%n", k,
            index.sizeBytes() / 1048576.0, index.buildNanos() / 1e9, threads);
        return index;
      });
    }

    HostColumn hostColumn() {
      return new HostColumn("R keys", ColumnType.INT64, keys.memoryAddress(), rows);
    }

    /** The keys as a Java array for the CPU hash joins, or null beyond an array's size. */
    long[] javaKeys() {
      if (javaKeys == null && rows < Integer.MAX_VALUE - 8) {
        javaKeys = new long[(int) rows];
        Arrays.parallelSetAll(javaKeys, SortedKeys::key);
      }
      return javaKeys;
    }

    @Override
    public void close() {
      indexes.values().forEach(SortedKeyIndex::close);
      if (owner) {
        keys.close();
      }
    }
  }

  /**
   * One case's probe: |S| keys on the heap and off-heap, how many of them R holds ({@code matches}), and the sums a
   * correct join reproduces: of the keys that match, and of the rows of R they match.
   */
  record Probe(long[] keys, ArrowBuf offHeap, long matches, long matchedKeySum, long matchedRowSum)
      implements AutoCloseable {
    static Probe draw(BufferAllocator allocator, long rRows, int rows, double missShare, long seed) {
      long start = System.nanoTime();
      long[] keys = SortedKeys.probes(rRows, rows, missShare, seed);
      ArrowBuf offHeap = allocator.buffer((long) rows * Long.BYTES);
      HostCopy.put(offHeap.memoryAddress(), keys, 0, rows);
      long matches = Arrays.stream(keys).parallel().filter(k -> SortedKeys.rowOf(k, rRows) >= 0).count();
      long keySum = Arrays.stream(keys).parallel().filter(k -> SortedKeys.rowOf(k, rRows) >= 0).sum();
      long rowSum = Arrays.stream(keys).parallel().map(k -> SortedKeys.rowOf(k, rRows)).filter(r -> r >= 0).sum();
      if (rows >= 1 << 24) {
        System.out.printf(Locale.ROOT, "S: %d keys (%d match) drawn in %.1f s%n", rows, matches,
            (System.nanoTime() - start) / 1e9);
      }
      return new Probe(keys, offHeap, matches, keySum, rowSum);
    }

    HostColumn hostColumn() {
      return new HostColumn("S keys", ColumnType.INT64, offHeap.memoryAddress(), keys.length);
    }

    @Override
    public void close() {
      offHeap.close();
    }
  }
}
