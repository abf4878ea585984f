package org.spillway.gpu.memory;

import org.apache.arrow.memory.util.MemoryUtil;

import java.nio.ByteOrder;

/**
 * Bulk copies between Java long arrays and native (pinned) host memory: one memcpy per call through a direct
 * buffer view instead of a put or get per value (a loop of MemoryUtil.putLong moved 32 M join keys at a fraction of
 * the host's memory bandwidth in TPC-H Q3 at SF 10).
 */
public final class HostCopy {
  /** Longs per view: a direct buffer's capacity is an int of bytes. */
  private static final int CHUNK = 1 << 27;

  private HostCopy() {}

  /** Copies {@code count} values of {@code src} from index {@code from} to native memory at {@code address}. */
  public static void put(long address, long[] src, int from, int count) {
    for (int done = 0; done < count; done += CHUNK) {
      int n = Math.min(CHUNK, count - done);
      MemoryUtil.directBuffer(address + 8L * done, 8 * n).order(ByteOrder.LITTLE_ENDIAN).asLongBuffer()
          .put(src, from + done, n);
    }
  }

  /** Copies {@code count} values from native memory at {@code address} into {@code dst} from index {@code at}. */
  public static void get(long address, long[] dst, int at, int count) {
    for (int done = 0; done < count; done += CHUNK) {
      int n = Math.min(CHUNK, count - done);
      MemoryUtil.directBuffer(address + 8L * done, 8 * n).order(ByteOrder.LITTLE_ENDIAN).asLongBuffer()
          .get(dst, at + done, n);
    }
  }
}
