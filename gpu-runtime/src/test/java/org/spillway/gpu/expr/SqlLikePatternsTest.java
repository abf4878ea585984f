package org.spillway.gpu.expr;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.Random;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** The plain-text fast path of LIKE against the regular expression Calcite would use, on random patterns. */
class SqlLikePatternsTest {
  @Test void piecesMatchExactlyAsTheRegularExpression() {
    Random random = new Random(11);
    String alphabet = "ab%\n";
    for (int round = 0; round < 4000; round++) {
      String pattern = random(random, alphabet, 6);
      String[] pieces = SqlLikePatterns.pieces(pattern, null);
      assertNotNull(pieces, pattern);
      Pattern regex = SqlLikePatterns.compile(pattern, null);
      for (int s = 0; s < 20; s++) {
        String text = random(random, "ab\n", 8);
        assertEquals(regex.matcher(text).matches(), SqlLikePatterns.matchesPieces(pieces, text),
            "'" + text + "' LIKE '" + pattern + "'");
      }
    }
  }

  @Test void underscoresAndEscapesKeepTheRegularExpression() {
    assertNull(SqlLikePatterns.pieces("a_b%", null));
    assertNull(SqlLikePatterns.pieces("a!%b%", "!"));
    assertNotNull(SqlLikePatterns.pieces("a%b", "!"));
  }

  private static String random(Random random, String alphabet, int maxLength) {
    StringBuilder out = new StringBuilder();
    for (int i = random.nextInt(maxLength + 1); i > 0; i--) {
      out.append(alphabet.charAt(random.nextInt(alphabet.length())));
    }
    return out.toString();
  }
}
