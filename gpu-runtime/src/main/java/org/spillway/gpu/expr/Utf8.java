package org.spillway.gpu.expr;

/** Facts about UTF-8 and UTF-16 text that the byte-level text operators share. */
public final class Utf8 {
  private Utf8() {}

  /** Bytes of the UTF-8 character whose lead byte is {@code lead}. */
  public static int characterLength(byte lead) {
    int b = lead & 0xFF;
    return b < 0x80 ? 1 : b < 0xE0 ? 2 : b < 0xF0 ? 3 : 4;
  }

  /**
   * Whether a Java string has no lone surrogate, so that it has a UTF-8 form and two strings are equal exactly
   * when their UTF-8 bytes are.
   */
  public static boolean wellFormed(String s) {
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (Character.isHighSurrogate(c) && i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1))) {
        i++;
      } else if (Character.isSurrogate(c)) {
        return false;
      }
    }
    return true;
  }
}
