package org.spillway.gpu.expr;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Random;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.Test;

/** {@link ByteSearch} against a naive search, on random bytes of a small alphabet (many partial matches). */
class ByteSearchTest {
  @Test void findsTheFirstOccurrenceInsideTheRange() {
    long seed = System.nanoTime();
    Random random = new Random(seed);
    try (BufferAllocator allocator = new RootAllocator(); ArrowBuf buf = allocator.buffer(256)) {
      long base = buf.memoryAddress();
      for (int round = 0; round < 20000; round++) {
        // up to several steps of sixteen starts, then the last starts of the range in one step or byte by byte
        byte[] haystack = randomBytes(random, random.nextInt(random.nextBoolean() ? 40 : 200));
        byte[] needle = randomBytes(random, 1 + random.nextInt(random.nextBoolean() ? 3 : 12));
        buf.setBytes(0, haystack);
        int from = haystack.length == 0 ? 0 : random.nextInt(haystack.length + 1);
        int to = from + random.nextInt(haystack.length - from + 1);
        ByteSearch search = new ByteSearch(needle);
        long found = search.indexOf(base + from, base + to);
        int expected = naive(haystack, needle, from, to);
        String where = "seed " + seed + ", round " + round;
        assertEquals(expected, found < 0 ? -1 : (int) (found - base), where);
        int at = random.nextInt(haystack.length + 1);
        boolean fits = at + needle.length <= haystack.length;
        if (fits) {
          assertEquals(naive(haystack, needle, at, at + needle.length) == at, search.at(base + at), where);
        }
      }
    }
  }

  /**
   * A needle of up to 8 bytes is one word: the bytes at an address equal the needle, for the same length, exactly
   * where their word equals the needle's (high bytes included, and for any length from 0 to 8).
   */
  @Test void wordsOfShortValuesMatchWhereTheBytesDo() {
    long seed = System.nanoTime();
    Random random = new Random(seed);
    try (BufferAllocator allocator = new RootAllocator(); ArrowBuf buf = allocator.buffer(64)) {
      long base = buf.memoryAddress();
      for (int round = 0; round < 20000; round++) {
        byte[] value = randomBytes(random, random.nextInt(9));
        byte[] needle = random.nextBoolean() ? value.clone() : randomBytes(random, value.length);
        buf.setBytes(0, value);
        ByteSearch search = new ByteSearch(needle);
        String where = "seed " + seed + ", round " + round;
        assertEquals(java.util.Arrays.equals(value, needle), search.word() == ByteSearch.wordAt(base, value.length),
            where);
        assertEquals(search.at(base), search.word() == ByteSearch.wordAt(base, value.length), where);
      }
    }
  }

  /**
   * Each step tests the needle's rarest byte and the rarest one not beside it (where the needle has one), so that
   * few places of text pass by chance; ties go to the later byte, and a short needle tests what it has.
   */
  @Test void testsTheRarestBytesApart() {
    assertArrayEquals(new int[] {0, 2}, anchors("requests"));  // the q, and the r rather than the u beside it
    assertArrayEquals(new int[] {1, 3}, anchors("special"));  // p, c
    assertArrayEquals(new int[] {0, 1}, anchors("ab"));
    assertArrayEquals(new int[] {0, 0}, anchors("e"));
    assertArrayEquals(new int[] {0, 2}, anchors("xyz"));
    assertArrayEquals(new int[] {1, 2}, anchors("eze"));  // only neighbours of the z: the later e
  }

  private static int[] anchors(String needle) {
    return new ByteSearch(needle.getBytes(java.nio.charset.StandardCharsets.UTF_8)).anchors();
  }

  private static int naive(byte[] haystack, byte[] needle, int from, int to) {
    outer:
    for (int p = from; p + needle.length <= to; p++) {
      for (int i = 0; i < needle.length; i++) {
        if (haystack[p + i] != needle[i]) {
          continue outer;
        }
      }
      return p;
    }
    return -1;
  }

  private static byte[] randomBytes(Random random, int n) {
    byte[] out = new byte[n];
    for (int i = 0; i < n; i++) {
      out[i] = (byte) (random.nextInt(4) == 0 ? 0x80 + random.nextInt(3) : 'a' + random.nextInt(3));
    }
    return out;
  }
}
