package org.spillway.storage.imports;

import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.parquet.bytes.ByteBufferAllocator;

/**
 * The heap arrays a thread reads a Parquet row group into, handed out again for the thread's next row group: the
 * column chunks' bytes (parquet-hadoop's {@link ByteBufferAllocator}, about 4 MB a row group of lineitem) and the
 * pages' decompressed bytes ({@link ParquetCodecs}, about 13 MB). New arrays of that size for every row group are
 * allocated outside the thread's buffers, cleared, and collected (500 MB an SF 1 import; each of a megabyte or more
 * a humongous G1 allocation, whose collections shrink and grow the heap, faulting its pages in again: most of a
 * warm import's page faults were the JVM clearing new arrays).
 *
 * <p>Arrays are taken only within a {@link #scope} (a row group's read); closing it makes every array taken in it
 * free for the next scope of the thread, so nothing read from them may outlive the scope (the decoders copy what
 * they keep into the batches). Outside a scope, and for small sizes, arrays are new as before. A request gets a free
 * array of its size class ({@link #sizeClass}: sizes rounded up by at most an eighth, so that the slightly
 * different sizes of the next row group's chunks and pages find the last one's arrays); at most {@link #KEPT_BYTES}
 * of free arrays stay with a thread (the import's pool threads end with the import).
 */
final class RowGroupBuffers {
  /** Below this, arrays are not pooled: the thread's allocation buffer makes them cheaply. */
  static final int POOLED_FROM = 64 << 10;
  static final long KEPT_BYTES = 64L << 20;

  private static final ThreadLocal<RowGroupBuffers> OF_THREAD = ThreadLocal.withInitial(RowGroupBuffers::new);

  /** Arrays handed out again, by all threads (for tests). */
  private static final AtomicLong REUSED = new AtomicLong();

  /** Free arrays by length. */
  private final TreeMap<Integer, ArrayDeque<byte[]>> free = new TreeMap<>();
  private long freeBytes;
  /** The arrays taken in the open scope; null while none is open. */
  private List<byte[]> taken;

  private RowGroupBuffers() {}

  /** Opens the calling thread's scope; arrays taken until it closes are free again after. One at a time. */
  static Scope scope() {
    RowGroupBuffers buffers = OF_THREAD.get();
    if (buffers.taken != null) {
      throw new IllegalStateException("a row group's buffers are already open on this thread");
    }
    buffers.taken = new ArrayList<>();
    return buffers::close;
  }

  /** A scope of the thread's arrays; closing it frees them for the thread's next scope. */
  interface Scope extends AutoCloseable {
    @Override
    void close();
  }

  /**
   * An array of at least {@code size} bytes: within a scope and from {@link #POOLED_FROM} bytes, a free one of its
   * size class or a new one of the class's size; else a new one of exactly {@code size}.
   */
  static byte[] take(int size) {
    RowGroupBuffers buffers = OF_THREAD.get();
    if (buffers.taken == null || size < POOLED_FROM) {
      return new byte[size];
    }
    int length = sizeClass(size);
    ArrayDeque<byte[]> ofLength = buffers.free.get(length);
    byte[] array;
    if (ofLength == null || ofLength.isEmpty()) {
      array = new byte[length];
    } else {
      array = ofLength.pop();
      buffers.freeBytes -= length;
      REUSED.incrementAndGet();
    }
    buffers.taken.add(array);
    return array;
  }

  /**
   * {@code size} rounded up to a multiple of an eighth of its highest power of two (at most {@code size / 8} more),
   * where that fits an array.
   */
  static int sizeClass(int size) {
    long step = Math.max(1, Integer.highestOneBit(size) >>> 3);
    long rounded = (size + step - 1) / step * step;
    return rounded <= Integer.MAX_VALUE - 8 ? (int) rounded : size;
  }

  /** Frees the arrays taken in the scope, keeping at most {@link #KEPT_BYTES} of free ones. */
  private void close() {
    for (byte[] array : taken) {
      if (freeBytes + array.length <= KEPT_BYTES) {
        free.computeIfAbsent(array.length, length -> new ArrayDeque<>()).push(array);
        freeBytes += array.length;
      }
    }
    taken = null;
  }

  /** How many arrays were handed out again so far, by all threads (for tests). */
  static long reusedArrays() {
    return REUSED.get();
  }

  /** Free bytes kept by the calling thread (for tests). */
  static long freeBytesOfThread() {
    return OF_THREAD.get().freeBytes;
  }

  /**
   * parquet-hadoop's allocator for the column chunks' bytes: heap buffers of {@link #take}n arrays, as many bytes as
   * asked for. Their release is the scope's close, not parquet-hadoop's {@code release}.
   */
  static final ByteBufferAllocator ALLOCATOR = new ByteBufferAllocator() {
    @Override
    public ByteBuffer allocate(int size) {
      return ByteBuffer.wrap(take(size), 0, size).slice();
    }

    @Override
    public void release(ByteBuffer buffer) {
    }

    @Override
    public boolean isDirect() {
      return false;
    }
  };
}
