package org.spillway.gpu.expr;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.charset.StandardCharsets;
import java.util.Random;
import java.util.regex.Pattern;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@link Utf8LikeMatcher} on UTF-8 bytes against the regular expression Calcite matches on the decoded string
 * ({@link SqlLikePatterns}): random patterns of {@code %}, {@code _}, escapes and repeated pieces over text with
 * one- to four-byte characters and line terminators. Each value lies between bytes of the same alphabet, so a
 * read outside it would show as a wrong answer.
 */
public class Utf8LikeMatcherTest {
  /** Characters of one to four UTF-8 bytes, the line terminators {@code _} must not match, and LIKE's own. */
  private static final String[] TEXT = {"a", "b", "é", "中", "😀", "\n", "\r", "\u0085", "\u2028", "%", "_", "!"};

  private BufferAllocator allocator;

  @BeforeEach void open() {
    allocator = new RootAllocator();
  }

  @AfterEach void close() {
    allocator.close();
  }

  @Test void matchesAsTheRegularExpressionOnRandomPatterns() {
    long seed = System.nanoTime();
    Random random = new Random(seed);
    for (int round = 0; round < 1500; round++) {
      String escape = random.nextBoolean() ? "!" : null;
      String pattern = randomPattern(random, escape);
      Pattern regex = SqlLikePatterns.compile(pattern, escape);
      Utf8LikeMatcher bytes = Utf8LikeMatcher.compile(pattern, escape);
      for (int s = 0; s < 25; s++) {
        String text = s == 0 ? "" : randomText(random, random.nextInt(3) == 0 ? 20 : 7);
        assertMatchesAs(regex, bytes, text, "seed " + seed + ": '" + text + "' LIKE '" + pattern + "' ESCAPE "
            + escape);
      }
    }
  }

  /** Patterns that start with literal text (the selection tests their first bytes, not a search through all). */
  @Test void startsWithLiteralWhereNoWildcardLeads() {
    for (String pattern : new String[] {"forest%", "PROMO%", "abc", "a%b", "a_", "MEDIUM POLISHED%"}) {
      org.junit.jupiter.api.Assertions.assertTrue(Utf8LikeMatcher.compile(pattern, null).startsWithLiteral(), pattern);
    }
    for (String pattern : new String[] {"%green%", "%BRASS", "_a%", "", "%", "__"}) {
      org.junit.jupiter.api.Assertions.assertFalse(Utf8LikeMatcher.compile(pattern, null).startsWithLiteral(), pattern);
    }
    org.junit.jupiter.api.Assertions.assertTrue(Utf8LikeMatcher.compile("!%x%", "!").startsWithLiteral(),
        "an escaped % is literal text");
  }

  @Test void shapesAndCorners() {
    String[][] cases = {
        {"%aa%aa%", "aaa"}, {"%aa%aa%", "aaaa"}, {"%aa%aa%", "aabaa"}, {"", ""}, {"", "a"}, {"%", ""},
        {"%%", "ab"}, {"_", ""}, {"_", "😀"}, {"__", "😀"}, {"_", "\n"}, {"%_%", "\u2028"}, {"a_", "aé"},
        {"%😀", "a😀"}, {"😀%", "😀b"}, {"%中%", "x中y"}, {"abc%", "ab"}, {"%abc", "bc"}, {"%abc%", "xabcx"},
        {"%special%requests%", "quickly special deposits requests"}, {"%special%requests%", "requests special"},
        {"a%a", "a"}, {"a%a", "aa"}, {"_%_", "a"}, {"_%_", "ab"}, {"%a_b%", "xxaébyy"}, {"%a__b%", "aébaxyb"},
        {"%ab%b_", "abbé"}, {"%ab%b_", "abé"},
    };
    for (String[] c : cases) {
      assertMatchesAs(SqlLikePatterns.compile(c[0], null), Utf8LikeMatcher.compile(c[0], null), c[1],
          "'" + c[1] + "' LIKE '" + c[0] + "'");
    }
    for (String[] c : new String[][] {{"a!%", "a%"}, {"a!%", "ab"}, {"!_%", "_x"}, {"!_%", "ax"}, {"!!%", "!a"}}) {
      assertMatchesAs(SqlLikePatterns.compile(c[0], "!"), Utf8LikeMatcher.compile(c[0], "!"), c[1],
          "'" + c[1] + "' LIKE '" + c[0] + "' ESCAPE '!'");
    }
  }

  @Test void failsWhereTheRegularExpressionFailsAndLeavesLoneSurrogatesToIt() {
    assertThrows(IllegalArgumentException.class, () -> Utf8LikeMatcher.compile("ab!", "!"));
    assertThrows(IllegalArgumentException.class, () -> Utf8LikeMatcher.compile("a!b", "!"));
    assertThrows(IllegalArgumentException.class, () -> Utf8LikeMatcher.compile("a", "!!"));
    assertNull(Utf8LikeMatcher.compile("%\uD83D%", null));
    assertNull(Utf8LikeMatcher.compile("a\uDE00", null));
  }

  private void assertMatchesAs(Pattern regex, Utf8LikeMatcher matcher, String text, String where) {
    byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
    byte[] around = "a%中b".getBytes(StandardCharsets.UTF_8);
    try (ArrowBuf buf = allocator.buffer(bytes.length + 2L * around.length)) {
      buf.setBytes(0, around);
      buf.setBytes(around.length, bytes);
      buf.setBytes(around.length + bytes.length, around);
      assertEquals(regex.matcher(text).matches(), matcher.matches(buf.memoryAddress() + around.length, bytes.length),
          where);
    }
  }

  private static String randomPattern(Random random, String escape) {
    StringBuilder out = new StringBuilder();
    String piece = randomText(random, 2).replaceAll("[%_!]", "b");  // repeated pieces: '%ab%ab%'
    for (int i = random.nextInt(7); i > 0; i--) {
      switch (random.nextInt(6)) {
        case 0, 1 -> out.append('%');
        case 2 -> out.append('_');
        case 3 -> out.append(piece);
        case 4 -> out.append(escape != null ? escape + "%_!".charAt(random.nextInt(3)) : "a");
        default -> {
          String c = TEXT[random.nextInt(TEXT.length)];
          out.append(escape != null && c.equals(escape) || c.equals("%") || c.equals("_") ? "b" : c);
        }
      }
    }
    return out.toString();
  }

  public static String randomText(Random random, int maxCharacters) {
    StringBuilder out = new StringBuilder();
    for (int i = random.nextInt(maxCharacters + 1); i > 0; i--) {
      out.append(random.nextInt(3) == 0 ? TEXT[random.nextInt(TEXT.length)] : random.nextBoolean() ? "a" : "b");
    }
    return out.toString();
  }
}
