package org.spillway.gpu.pipeline.gpu;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.spillway.gpu.expr.Expr;
import org.spillway.gpu.vector.ExprType;

/**
 * The constants of the GPU's LIKE_TEXT and the search the kernel runs over them (like_pieces in
 * pipeline_chunks.cuh, followed step by step below, with no GPU) against the regular expression Calcite matches:
 * random UTF-8 text (multi-byte characters, line terminators, empty strings) and random '%' patterns, anchored or
 * not, with overlapping and empty pieces. The kernel itself is compared with the CPU backend in
 * {@link GpuLikePipelineTest}.
 */
class GpuLikePatternTest {
  private static final Expr TEXT = new Expr.Column(0, ExprType.TEXT);
  private static final String[] ALPHABET = {"a", "a", "b", "é", "€", "\uD834\uDD1E", "\n", " ", "aa"};

  @Test void constantsHoldPieceCountLengthsAndBytes() {
    long[] c = GpuLikePattern.constants(Expr.Like.of(TEXT, "%spé%ab", null));
    assertEquals(List.of(3L, 0L, 4L, 2L), Arrays.stream(c, 0, 4).boxed().toList());
    byte[] bytes = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putLong(c[4]).array();
    assertEquals("spéab", new String(bytes, 0, 6, StandardCharsets.UTF_8));
    assertEquals(5, c.length, "six bytes fit one word");
    assertEquals(List.of(1L, 0L), Arrays.stream(GpuLikePattern.constants(Expr.Like.of(TEXT, "", null))).boxed()
        .toList(), "the empty pattern: one empty piece, no byte");
  }

  @Test void refusesUnderscoresEscapesAndNul() {
    for (String[] p : new String[][] {{"a_", null}, {"%a\\%", "\\"}, {"a\0%", null}}) {
      assertThrows(GpuProgram.Unsupported.class, () -> GpuLikePattern.constants(Expr.Like.of(TEXT, p[0], p[1])),
          p[0]);
    }
  }

  @Test void searchMatchesCalcitesRegularExpression() {
    long seed = System.nanoTime();
    Random random = new Random(seed);
    List<String> fixed = List.of("%aa%aa%", "%", "%%", "", "a%", "%a", "aa", "é%€", "%\uD834\uDD1E", "%a%a%a%a%",
        "%\n%", "a%a", "%a%%b%");
    int matched = 0;
    for (int round = 0; round < 400; round++) {
      String pattern = round < fixed.size() ? fixed.get(round) : pattern(random);
      long[] constants = GpuLikePattern.constants(Expr.Like.of(TEXT, pattern, null));
      Expr.Like like = Expr.Like.of(TEXT, pattern, null);
      for (int k = 0; k < 50; k++) {
        String s = text(random, random.nextInt(8) == 0 ? 0 : random.nextInt(12));
        boolean expected = like.regex().matcher(s).matches();
        matched += expected ? 1 : 0;
        assertEquals(expected, likePieces(s.getBytes(StandardCharsets.UTF_8), constants),
            "seed " + seed + ": '" + s + "' LIKE '" + pattern + "'");
      }
    }
    assertTrue(matched > 1000, "matches seen: " + matched);
  }

  /** like_pieces of pipeline_chunks.cuh over the bytes of one row. */
  private static boolean likePieces(byte[] s, long[] pattern) {
    int n = (int) pattern[0];
    ByteBuffer words = ByteBuffer.allocate(8 * (pattern.length - 1 - n)).order(ByteOrder.LITTLE_ENDIAN);
    for (int w = 1 + n; w < pattern.length; w++) {
      words.putLong(pattern[w]);
    }
    byte[] bytes = words.array();
    int length = s.length;
    if (n == 1) {
      return length == pattern[1] && equal(s, 0, bytes, 0, length);
    }
    int head = (int) pattern[1];
    int tail = (int) pattern[n];
    if (length < head + tail || !equal(s, 0, bytes, 0, head)) {
      return false;
    }
    int from = head;
    int end = length - tail;
    int piece = head;
    for (int k = 1; k < n - 1; k++) {
      int m = (int) pattern[1 + k];
      int at = from;
      while (at + m <= end && !equal(s, at, bytes, piece, m)) {
        at++;
      }
      if (at + m > end) {
        return false;
      }
      from = at + m;
      piece += m;
    }
    return equal(s, end, bytes, piece, tail);
  }

  private static boolean equal(byte[] s, int at, byte[] p, int from, int n) {
    return Arrays.equals(s, at, at + n, p, from, from + n);
  }

  private static String text(Random random, int characters) {
    StringBuilder s = new StringBuilder();
    for (int i = 0; i < characters; i++) {
      s.append(ALPHABET[random.nextInt(ALPHABET.length)]);
    }
    return s.toString();
  }

  private static String pattern(Random random) {
    StringBuilder p = new StringBuilder(random.nextInt(4) > 0 ? "%" : "");
    for (int pieces = 1 + random.nextInt(3); pieces > 0; pieces--) {
      p.append(text(random, random.nextInt(3)));
      if (pieces > 1) {
        p.append('%');
      }
    }
    return p.append(random.nextInt(4) > 0 ? "%" : "").toString();
  }
}
