package org.spillway.storage;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/** Whether UTF-8 bytes are ASCII, eight at a time: text that is ASCII is stored and compared as it is. */
public final class Ascii {
  private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
  private static final long HIGH_BITS = 0x8080808080808080L;

  private Ascii() {}

  /** Whether the {@code length} bytes of {@code bytes} from {@code from} on are all below 0x80. */
  public static boolean isAscii(byte[] bytes, int from, int length) {
    int i = from;
    int end = from + length;
    // 64 bytes at a time, their high bits or-ed before one test: no branch per word, the usual case being all ASCII
    for (; i + 8 * Long.BYTES <= end; i += 8 * Long.BYTES) {
      long high = (long) LONGS.get(bytes, i) | (long) LONGS.get(bytes, i + 8) | (long) LONGS.get(bytes, i + 16)
          | (long) LONGS.get(bytes, i + 24) | (long) LONGS.get(bytes, i + 32) | (long) LONGS.get(bytes, i + 40)
          | (long) LONGS.get(bytes, i + 48) | (long) LONGS.get(bytes, i + 56);
      if ((high & HIGH_BITS) != 0) {
        return false;
      }
    }
    for (; i + Long.BYTES <= end; i += Long.BYTES) {
      if (((long) LONGS.get(bytes, i) & HIGH_BITS) != 0) {
        return false;
      }
    }
    for (; i < end; i++) {
      if (bytes[i] < 0) {
        return false;
      }
    }
    return true;
  }
}
