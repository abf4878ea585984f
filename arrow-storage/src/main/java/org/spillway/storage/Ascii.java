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
