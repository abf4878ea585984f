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
 * two of the needle's bytes (two word loads, a zero-byte test of each XOR with the repeated byte) and compares only
 * the candidates that pass both whole. Muła tests the first and last bytes; here the two tested are the needle's
 * rarest in text ({@link #commonness}): in {@code requests} the {@code q}, which few places of English text hold,
 * where an {@code r} followed by an {@code s} seven bytes on is frequent, and every false start costs a comparison.
 */
public final class ByteSearch {
  private static final long ONES = 0x0101010101010101L;
  private static final long HIGHS = 0x8080808080808080L;
  private static final boolean LITTLE_ENDIAN = ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN;

  private final byte[] needle;
  /** The needle as native-order words (its last word zero-padded), compared with whole loads of the haystack. */
  private final long[] words;
  /** The offsets in the needle of the two bytes each step tests (the same one for a one-byte needle). */
  private final int firstAnchor;
  private final int secondAnchor;
  private final long firstLanes;
  private final long secondLanes;
  /** Bytes of text from the most common to the least (letters in either case, after the space). */
  private static final String COMMON_TO_RARE = " etaoinsrhldcumfpgwybvkxjqz";

  public ByteSearch(byte[] needle) {
    this.needle = needle.clone();
    int n = needle.length;
    ByteBuffer padded = ByteBuffer.allocate((n + 7) & ~7).order(ByteOrder.nativeOrder());
    padded.put(needle);
    words = new long[padded.capacity() / 8];
    for (int w = 0; w < words.length; w++) {
      words[w] = padded.getLong(w * 8);
    }
    int rarest = 0;
    for (int i = 1; i < n; i++) {
      rarest = commonness(needle[i]) < commonness(needle[rarest]) ? i : rarest;
    }
    // the second byte apart from the first where the needle allows: neighbours go together ("qu")
    int second = rarest;
    for (int i = n - 1; i >= 0; i--) {
      if (i != rarest && (second == rarest || anchorScore(i, rarest) < anchorScore(second, rarest))) {
        second = i;
      }
    }
    firstAnchor = Math.min(rarest, second);
    secondAnchor = Math.max(rarest, second);
    firstLanes = n == 0 ? 0 : (needle[firstAnchor] & 0xFFL) * ONES;
    secondLanes = n == 0 ? 0 : (needle[secondAnchor] & 0xFFL) * ONES;
  }

  /**
   * How common a byte is in text, higher for more common: letters (either case) and the space by their rank in
   * English text; UTF-8's lead and continuation bytes as common as the commonest letters (non-Latin text is made of
   * them); digits, punctuation and control bytes in between.
   */
  static int commonness(byte b) {
    int c = b & 0xFF;
    int rank = COMMON_TO_RARE.indexOf(c >= 'A' && c <= 'Z' ? c + ('a' - 'A') : c);
    if (rank >= 0) {
      return COMMON_TO_RARE.length() - rank;
    }
    return c >= 0x80 ? COMMON_TO_RARE.length() - 1 : COMMON_TO_RARE.length() / 2;
  }

  /** How good a second anchor byte {@code i} is beside the first at {@code first}, lower for better. */
  private int anchorScore(int i, int first) {
    return commonness(needle[i]) + (Math.abs(i - first) <= 1 ? 1 << 10 : 0);
  }

  /** The offsets of the two needle bytes each step of {@link #indexOf} tests, in order. */
  int[] anchors() {
    return new int[] {firstAnchor, secondAnchor};
  }

  /** Bytes in the needle. */
  public int length() {
    return needle.length;
  }

  /** Whether the needle fits one word ({@link #word}): at most 8 bytes. */
  public boolean fitsWord() {
    return needle.length <= 8;
  }

  /** A needle of at most 8 bytes as {@link #wordAt} reads it; compared along with the length. */
  public long word() {
    return words.length == 0 ? 0 : words[0];
  }

  /**
   * The {@code n <= 8} bytes at {@code address} as one native-order word, zero-padded: what {@link #word} is for a
   * needle of those bytes. Reads no byte past them (a value may end its buffer).
   */
  public static long wordAt(long address, int n) {
    long word = 0;
    for (int i = 0; i < n; i++) {
      long b = MemoryUtil.getByte(address + i) & 0xffL;
      word |= LITTLE_ENDIAN ? b << (i << 3) : b << (56 - (i << 3));
    }
    return word;
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
    // sixteen candidate starts p .. p+15 per step, two words per anchor, one branch for both: the last start's
    // match ends at p + 15 + n, an anchor's second word reads up to p + n + 14 (an anchor is at most n - 1 in)
    for (; p + 15 + n <= to; p += 16) {
      long low = candidates(p);
      long high = candidates(p + 8);
      if ((low | high) != 0) {
        long found = first(p, low);
        if (found >= 0) {
          return found;
        }
        found = first(p + 8, high);
        if (found >= 0) {
          return found;
        }
      }
    }
    if (p + 7 + n <= to) {
      long found = first(p, candidates(p));
      if (found >= 0) {
        return found;
      }
      p += 8;
    }
    // fewer than eight starts are left, p .. to - n: one more step over the eight starts that end at to - n, its
    // lanes of the starts below p (tested already) cleared, where the range is long enough to hold that step
    long last = to - n - 7;
    if (p + n <= to && last >= from) {
      return first(last, candidates(last) & (-1L << ((p - last) << 3)));
    }
    byte lead = needle[0];
    for (; p + n <= to; p++) {
      if (MemoryUtil.getByte(p) == lead && at(p)) {
        return p;
      }
    }
    return -1;
  }

  /**
   * The eight starts {@code p .. p+7} that pass both anchors, as the high bit of their bytes; the loads read
   * {@code [p + firstAnchor, p + secondAnchor + 8)}.
   */
  private long candidates(long p) {
    return zeroBytes(load(p + firstAnchor) ^ firstLanes) & zeroBytes(load(p + secondAnchor) ^ secondLanes);
  }

  /** The first of the candidate starts (from {@link #candidates} of {@code p}) where the needle is; or -1. */
  private long first(long p, long candidates) {
    while (candidates != 0) {
      long start = p + (Long.numberOfTrailingZeros(candidates) >>> 3);
      if (at(start)) {
        return start;
      }
      candidates &= candidates - 1;
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
