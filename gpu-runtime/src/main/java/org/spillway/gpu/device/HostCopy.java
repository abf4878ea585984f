package org.spillway.gpu.device;

import org.apache.arrow.memory.util.MemoryUtil;

import java.nio.ByteOrder;
import java.nio.LongBuffer;
import java.util.stream.IntStream;

/**
 * Bulk copies between Java long arrays and native (pinned) host memory: one memcpy per 8 MiB through a direct
 * buffer view, on all cores for large copies, instead of a put or get per value (a loop of MemoryUtil.putLong
 * moved 32 M join keys at a fraction of the host's memory bandwidth in TPC-H Q3 at SF 10).
 */
public final class HostCopy {
  /** Longs per view and task: 8 MiB, so that a join's key column (256 MB in TPC-H Q3 at SF 10) copies on all cores. */
  private static final int CHUNK = 1 << 20;

  private HostCopy() {}

  /** Copies {@code count} values of {@code src} from index {@code from} to native memory at {@code address}. */
  public static void put(long address, long[] src, int from, int count) {
    inChunks(address, count, (view, done, n) -> view.put(src, from + done, n));
  }

  /** Copies {@code count} values from native memory at {@code address} into {@code dst} from index {@code at}. */
  public static void get(long address, long[] dst, int at, int count) {
    inChunks(address, count, (view, done, n) -> view.get(dst, at + done, n));
  }

  /** Copies {@code count} 32-bit values from native memory at {@code address} into {@code dst} from index {@code at}. */
  public static void getInts(long address, int[] dst, int at, int count) {
    MemoryUtil.directBuffer(address, 4 * count).order(ByteOrder.LITTLE_ENDIAN).asIntBuffer().get(dst, at, count);
  }

  /** One chunk's copy: {@code n} longs between the view and the array, {@code done} longs into the whole. */
  private interface ChunkCopy {
    void copy(LongBuffer view, int done, int n);
  }

  /** Runs {@code copy} over a view of each chunk of {@code count} longs at {@code address}, on all cores when many. */
  private static void inChunks(long address, int count, ChunkCopy copy) {
    if (count <= CHUNK) {  // the common small copy (a tile of GPU output rows) builds no stream
      copy.copy(view(address, count), 0, count);
      return;
    }
    IntStream.range(0, (count + CHUNK - 1) / CHUNK).parallel().forEach(c -> {
      int done = c * CHUNK;
      int n = Math.min(CHUNK, count - done);
      copy.copy(view(address + 8L * done, n), done, n);
    });
  }

  private static LongBuffer view(long address, int longs) {
    return MemoryUtil.directBuffer(address, 8 * longs).order(ByteOrder.LITTLE_ENDIAN).asLongBuffer();
  }
}
