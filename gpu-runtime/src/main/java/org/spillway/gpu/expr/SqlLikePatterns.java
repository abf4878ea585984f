package org.spillway.gpu.expr;

import java.util.regex.Pattern;

/**
 * SQL LIKE patterns as Java regular expressions, written exactly as Calcite's runtime writes them
 * (Like.sqlToRegexLike, matched with Matcher.matches): {@code %} is {@code (?s:.*)}, {@code _} is {@code .} (which
 * does not match a line terminator), regex metacharacters are escaped, and the escape character may only
 * precede {@code %}, {@code _} or itself. So Spillway and Calcite accept the same strings.
 */
public final class SqlLikePatterns {
  private static final String JAVA_REGEX_SPECIALS = "[]()|^-+*?{}$\\.";

  private SqlLikePatterns() {}

  /** The compiled pattern; {@code escape} is null or one character. */
  public static Pattern compile(String pattern, String escape) {
    return Pattern.compile(toRegex(pattern, escape));
  }

  /**
   * The literal pieces between the {@code %}s of a pattern without {@code _} and without escapes (most analytic
   * LIKEs: 'PROMO%', '%BRASS', '%special%requests%'), which {@link #matchesPieces} matches with plain
   * {@code startsWith}/{@code indexOf}/{@code endsWith} as the regular expression would; null for other patterns.
   */
  public static String[] pieces(String pattern, String escape) {
    if (pattern.indexOf('_') >= 0 || escape != null && pattern.contains(escape)) {
      return null;
    }
    return pattern.split("%", -1);
  }

  /** Whether {@code s} matches the pattern of these {@link #pieces}: first a prefix, last a suffix, the rest in order. */
  public static boolean matchesPieces(String[] pieces, String s) {
    if (pieces.length == 1) {
      return s.equals(pieces[0]);
    }
    String first = pieces[0];
    String last = pieces[pieces.length - 1];
    if (s.length() < first.length() + last.length() || !s.startsWith(first) || !s.endsWith(last)) {
      return false;
    }
    int from = first.length();
    int end = s.length() - last.length();
    for (int p = 1; p < pieces.length - 1; p++) {
      int at = s.indexOf(pieces[p], from);
      if (at < 0 || at + pieces[p].length() > end) {
        return false;
      }
      from = at + pieces[p].length();
    }
    return true;
  }

  /** The regular expression of a LIKE pattern; throws IllegalArgumentException where Calcite's fails. */
  public static String toRegex(String pattern, String escape) {
    if (escape != null && escape.length() != 1) {
      throw new IllegalArgumentException("LIKE escape '" + escape + "' is not one character");
    }
    char escapeChar = escape == null ? 0 : escape.charAt(0);
    StringBuilder regex = new StringBuilder(pattern.length() + 8);
    for (int i = 0; i < pattern.length(); i++) {
      char c = pattern.charAt(i);
      if (JAVA_REGEX_SPECIALS.indexOf(c) >= 0) {
        regex.append('\\');
      }
      if (c == escapeChar) {
        if (i == pattern.length() - 1) {
          throw new IllegalArgumentException("LIKE pattern '" + pattern + "' ends with its escape character");
        }
        char next = pattern.charAt(i + 1);
        if (next != '_' && next != '%' && next != escapeChar) {
          throw new IllegalArgumentException("LIKE pattern '" + pattern + "' escapes '" + next + "'");
        }
        regex.append(next);
        i++;
      } else if (c == '_') {
        regex.append('.');
      } else if (c == '%') {
        regex.append("(?s:.*)");
      } else {
        regex.append(c);
      }
    }
    return regex.toString();
  }
}
