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

  /** R: {@code rows} keys off-heap, its indexes built on first use, and a Java copy for the CPU hash joins. */
  static final class Relation implements AutoCloseable {
    final long rows;
    final ArrowBuf keys;
    final SortedKeyColumn column;
    private final Map<IndexKind, SortedKeyIndex> indexes = new EnumMap<>(IndexKind.class);
    private final BufferAllocator allocator;
    private final int threads;
    private long[] javaKeys;

    Relation(BufferAllocator allocator, long rows, int threads) {
      this.allocator = allocator;
      this.rows = rows;
      this.threads = threads;
      long start = System.nanoTime();
      this.keys = allocator.buffer(rows * Long.BYTES);
      long allocated = System.nanoTime();
      SortedKeys.fill(keys.memoryAddress(), rows);
      this.column = SortedKeyColumn.ofLongs(keys.memoryAddress(), rows);
      System.out.printf(Locale.ROOT, "R: %d keys (%.2f GiB), allocated in %.1f s, written in %.1f s%n", rows,
          rows * 8.0 / (1L << 30), (allocated - start) / 1e9, (System.nanoTime() - allocated) / 1e9);
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
      keys.close();
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
