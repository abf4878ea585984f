package org.spillway.gpu.expr;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.util.MemoryUtil;

/**
 * A SQL LIKE pattern matched over UTF-8 bytes in off-heap memory (an Arrow VarChar value) with the result of
 * the regular expression Calcite matches on the decoded string ({@link SqlLikePatterns}): {@code %} is any
 * sequence, {@code _} one character (a code point, as Java's {@code .}; not a line terminator: {@code \n},
 * {@code \r}, U+0085, U+2028, U+2029), everything else itself, the escape character making the next one literal.
 *
 * <p>The pattern is cut at its {@code %}s into segments of literal bytes and {@code _}s. Each segment matches a
 * fixed number of characters, so the first is matched forward from the start, the last backward from the end,
 * and the ones between at their leftmost place in order (the leftmost match ends earliest and leaves the most
 * for the rest): {@code 'abc%'} is one comparison at the start, {@code '%abc'} one at the end, {@code '%abc%'}
 * and {@code '%a%b%'} byte searches ({@link ByteSearch}); {@code _} walks characters by their lead bytes.
 * Nothing is decoded and no string is made.
 */
public final class Utf8LikeMatcher {
  /** Pieces between the {@code %}s (one when there is none); the first and last are anchored. */
  private final Segment[] segments;

  private Utf8LikeMatcher(Segment[] segments) {
    this.segments = segments;
  }

  /**
   * The matcher of a pattern and escape (null or one character); null when the pattern or escape holds a
   * lone UTF-16 surrogate, which has no UTF-8 form (the regular expression decides those). Fails as
   * {@link SqlLikePatterns#toRegex} does on a bad escape.
   */
  public static Utf8LikeMatcher compile(String pattern, String escape) {
    if (escape != null && escape.length() != 1) {
      throw new IllegalArgumentException("LIKE escape '" + escape + "' is not one character");
    }
    if (!Utf8.wellFormed(pattern) || escape != null && Character.isSurrogate(escape.charAt(0))) {
      return null;
    }
    char escapeChar = escape == null ? 0 : escape.charAt(0);
    List<Segment> segments = new ArrayList<>();
    SegmentBuilder segment = new SegmentBuilder();
    for (int i = 0; i < pattern.length(); i++) {
      char c = pattern.charAt(i);
      if (c == escapeChar) {  // without an escape, NUL: as Calcite's Like.sqlToRegexLike
        if (i == pattern.length() - 1) {
          throw new IllegalArgumentException("LIKE pattern '" + pattern + "' ends with its escape character");
        }
        char next = pattern.charAt(++i);
        if (next != '_' && next != '%' && next != escapeChar) {
          throw new IllegalArgumentException("LIKE pattern '" + pattern + "' escapes '" + next + "'");
        }
        segment.literal.append(next);
      } else if (c == '_') {
        segment.underscore();
      } else if (c == '%') {
        segments.add(segment.build());
        segment = new SegmentBuilder();
      } else {
        segment.literal.append(c);
      }
    }
    segments.add(segment.build());
    return new Utf8LikeMatcher(segments.toArray(new Segment[0]));
  }

  /**
   * The longest literal piece of the pattern, which every matching value contains (each piece must occur, in its
   * place); null when the pattern has none (only {@code %} and {@code _}). A caller may search a run of values'
   * bytes for it at once and match only the values that hold it.
   */
  public ByteSearch requiredLiteral() {
    ByteSearch longest = null;
    for (Segment segment : segments) {
      for (ByteSearch literal : segment.literals()) {
        if (longest == null || literal.length() > longest.length()) {
          longest = literal;
        }
      }
    }
    return longest;
  }

  /**
   * Whether the pattern starts with literal text (no leading {@code %} or {@code _}), as {@code 'forest%'} and
   * {@code 'PROMO%'} do: a value's first bytes settle most mismatches, so matching each value costs less than
   * searching all the values' bytes for {@link #requiredLiteral} first.
   */
  public boolean startsWithLiteral() {
    Segment first = segments[0];
    return first.skips()[0] == 0 && first.literals().length > 0;
  }

  /** Whether the {@code length} UTF-8 bytes at {@code address} match. */
  public boolean matches(long address, int length) {
    long end = address + length;
    Segment[] s = segments;
    long headEnd = s[0].forward(address, end);
    if (s.length == 1) {
      return headEnd == end;
    }
    if (headEnd < 0) {
      return false;
    }
    long tailStart = s[s.length - 1].backward(headEnd, end);
    if (tailStart < 0) {
      return false;
    }
    long from = headEnd;
    for (int i = 1; i < s.length - 1 && from >= 0; i++) {
      from = s[i].leftmost(from, tailStart);
    }
    return from >= 0;
  }

  /** Collects one segment: literal text, each run ended by the {@code _}s after it. */
  private static final class SegmentBuilder {
    final StringBuilder literal = new StringBuilder();
    final List<ByteSearch> literals = new ArrayList<>();
    final List<Integer> skips = new ArrayList<>(List.of(0));

    void underscore() {
      endLiteral();
      skips.set(skips.size() - 1, skips.get(skips.size() - 1) + 1);
    }

    private void endLiteral() {
      if (literal.length() > 0) {
        literals.add(new ByteSearch(literal.toString().getBytes(StandardCharsets.UTF_8)));
        skips.add(0);
        literal.setLength(0);
      }
    }

    Segment build() {
      endLiteral();
      return new Segment(literals.toArray(new ByteSearch[0]), skips.stream().mapToInt(Integer::intValue).toArray());
    }
  }

  /**
   * A piece of the pattern between two {@code %}s: {@code skips[0]} characters, {@code literals[0]},
   * {@code skips[1]} characters, ..., {@code literals[n-1]}, {@code skips[n]} characters.
   */
  private record Segment(ByteSearch[] literals, int[] skips) {
    /** The end of the segment matched at {@code at}, within {@code [at, limit)}; -1 if it does not match there. */
    long forward(long at, long limit) {
      long p = skipForward(at, limit, skips[0]);
      for (int i = 0; i < literals.length && p >= 0; i++) {
        ByteSearch literal = literals[i];
        if (p + literal.length() > limit || !literal.at(p)) {
          return -1;
        }
        p = skipForward(p + literal.length(), limit, skips[i + 1]);
      }
      return p;
    }

    /** The start of the segment matched so that it ends at {@code end}, within {@code [limit, end)}; or -1. */
    long backward(long limit, long end) {
      long q = skipBackward(limit, end, skips[literals.length]);
      for (int i = literals.length - 1; i >= 0 && q >= 0; i--) {
        ByteSearch literal = literals[i];
        long start = q - literal.length();
        if (start < limit || !literal.at(start)) {
          return -1;
        }
        q = skipBackward(limit, start, skips[i]);
      }
      return q;
    }

    /** The end of the leftmost match that starts at or after {@code from} and ends by {@code limit}; or -1. */
    long leftmost(long from, long limit) {
      if (skips[0] > 0 || literals.length == 0) {
        // starts with _ (or is only _s): try each character start in turn
        for (long p = from; p <= limit; ) {
          long end = forward(p, limit);
          if (end >= 0) {
            return end;
          }
          if (p == limit) {
            return -1;
          }
          p += Utf8.characterLength(MemoryUtil.getByte(p));
        }
        return -1;
      }
      // starts with literal bytes: a byte search finds each place it could start (a UTF-8 character's bytes
      // never occur inside another's, so a found place is a character start)
      ByteSearch first = literals[0];
      for (long at = first.indexOf(from, limit); at >= 0; at = first.indexOf(at + 1, limit)) {
        long end = forward(at, limit);
        if (end >= 0) {
          return end;
        }
      }
      return -1;
    }
  }

  /** The address after {@code n} characters from {@code p}, none a line terminator, inside {@code limit}; or -1. */
  private static long skipForward(long p, long limit, int n) {
    for (int i = 0; i < n; i++) {
      if (p >= limit) {
        return -1;
      }
      int length = Utf8.characterLength(MemoryUtil.getByte(p));
      if (p + length > limit || isLineTerminator(p, length)) {
        return -1;
      }
      p += length;
    }
    return p;
  }

  /** The address {@code n} characters before {@code q}, none a line terminator, not below {@code limit}; or -1. */
  private static long skipBackward(long limit, long q, int n) {
    for (int i = 0; i < n; i++) {
      long p = q - 1;
      while (p > limit && (MemoryUtil.getByte(p) & 0xC0) == 0x80) {
        p--;  // back over continuation bytes to the character's lead byte
      }
      if (p < limit || isLineTerminator(p, (int) (q - p))) {
        return -1;
      }
      q = p;
    }
    return q;
  }

  /** Whether the character of {@code length} bytes at {@code p} is one Java's {@code .} does not match. */
  private static boolean isLineTerminator(long p, int length) {
    byte b = MemoryUtil.getByte(p);
    return switch (length) {
      case 1 -> b == '\n' || b == '\r';
      case 2 -> b == (byte) 0xC2 && MemoryUtil.getByte(p + 1) == (byte) 0x85;
      case 3 -> b == (byte) 0xE2 && MemoryUtil.getByte(p + 1) == (byte) 0x80
          && (MemoryUtil.getByte(p + 2) == (byte) 0xA8 || MemoryUtil.getByte(p + 2) == (byte) 0xA9);
      default -> false;
    };
  }
}
