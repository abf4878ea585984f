package org.spillway.gpu.expr;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.apache.arrow.memory.util.MemoryUtil;

/**
 * A byte string (a LIKE pattern's literal piece in UTF-8) found in or compared with bytes in off-heap memory (an
 * Arrow VarChar data buffer), without copying them.
 *
 * <p>{@link #indexOf} is the "generic SIMD" substring search of Muła ("SIMD-friendly algorithms for substring
 * searching", 2016) with eight-byte words as the vectors (SWAR): each step tests eight candidate starts at once on
 * the needle's first and last bytes (two word loads, a zero-byte test of each XOR with the repeated byte) and
 * compares only the candidates that pass both whole. Testing two bytes spares most of the false starts that a
 * first-byte scan makes on text, where a word's first letter is common.
 */
public final class ByteSearch {
  private static final long ONES = 0x0101010101010101L;
  private static final long HIGHS = 0x8080808080808080L;
  private static final boolean LITTLE_ENDIAN = ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN;

  private final byte[] needle;
  /** The needle as native-order words (its last word zero-padded), compared with whole loads of the haystack. */
  private final long[] words;
  private final long firstLanes;
  private final long lastLanes;

  public ByteSearch(byte[] needle) {
    this.needle = needle.clone();
    int n = needle.length;
    ByteBuffer padded = ByteBuffer.allocate((n + 7) & ~7).order(ByteOrder.nativeOrder());
    padded.put(needle);
    words = new long[padded.capacity() / 8];
    for (int w = 0; w < words.length; w++) {
      words[w] = padded.getLong(w * 8);
    }
    firstLanes = n == 0 ? 0 : (needle[0] & 0xFFL) * ONES;
    lastLanes = n == 0 ? 0 : (needle[n - 1] & 0xFFL) * ONES;
  }

  /** Bytes in the needle. */
  public int length() {
    return needle.length;
  }

  /** Whether the {@link #length} bytes at {@code address} are the needle's. */
  public boolean at(long address) {
    int n = needle.length;
    int whole = n >>> 3;
    for (int w = 0; w < whole; w++) {
      if (MemoryUtil.getLong(address + ((long) w << 3)) != words[w]) {
        return false;
      }
    }
    for (int i = whole << 3; i < n; i++) {
      if (MemoryUtil.getByte(address + i) != needle[i]) {
        return false;
      }
    }
    return true;
  }

  /**
   * The address of the first occurrence of the needle that starts at or after {@code from} and ends at or before
   * {@code to}, or -1. Reads no byte outside {@code [from, to)}.
   */
  public long indexOf(long from, long to) {
    int n = needle.length;
    if (n == 0) {
      return from <= to ? from : -1;
    }
    long p = from;
    // eight candidate starts p .. p+7 per step; the last one's match ends at p + 7 + n, the load of its last
    // byte's word reads up to p + n + 6
    for (; p + 7 + n <= to; p += 8) {
      long candidates = zeroBytes(load(p) ^ firstLanes) & zeroBytes(load(p + n - 1) ^ lastLanes);
      while (candidates != 0) {
        long start = p + (Long.numberOfTrailingZeros(candidates) >>> 3);
        if (at(start)) {
          return start;
        }
        candidates &= candidates - 1;
      }
    }
    byte first = needle[0];
    for (; p + n <= to; p++) {
      if (MemoryUtil.getByte(p) == first && at(p)) {
        return p;
      }
    }
    return -1;
  }

  /** Eight bytes from {@code address}, the byte at the lowest address in the lowest bits. */
  private static long load(long address) {
    long word = MemoryUtil.getLong(address);
    return LITTLE_ENDIAN ? word : Long.reverseBytes(word);
  }

  /**
   * The high bit of every zero byte of {@code x} set (and possibly of bytes above a zero one, where the
   * subtraction borrows: such false candidates are compared and dropped); no zero byte is missed.
   */
  private static long zeroBytes(long x) {
    return (x - ONES) & ~x & HIGHS;
  }
}
