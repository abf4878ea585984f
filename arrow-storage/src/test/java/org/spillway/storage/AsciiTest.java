package org.spillway.storage;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/**
 * The ASCII check (64 bytes at a time, then 8, then one) finds a byte at or above 0x80 wherever it is, and looks at
 * no byte outside.
 */
class AsciiTest {
  @Test
  void findsEveryNonAsciiByteAndOnlyInsideTheRange() {
    for (int from = 0; from < 9; from++) {
      for (int length = 0; length < 140; length++) {
        byte[] bytes = new byte[from + length + 9];
        java.util.Arrays.fill(bytes, (byte) 'a');
        bytes[from > 0 ? from - 1 : bytes.length - 1] = (byte) 0xC3;  // just outside: before or far after
        bytes[from + length] = (byte) 0x80;  // just after the range
        assertEquals(true, Ascii.isAscii(bytes, from, length), "from " + from + ", length " + length);
        for (int at = from; at < from + length; at++) {
          byte[] one = bytes.clone();
          one[at] = (byte) (at % 2 == 0 ? 0x80 : 0xFF);
          assertEquals(false, Ascii.isAscii(one, from, length), "from " + from + ", length " + length + ", at " + at);
        }
      }
    }
  }
}
