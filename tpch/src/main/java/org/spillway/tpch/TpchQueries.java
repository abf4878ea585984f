package org.spillway.tpch;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.OptionalLong;

/**
 * The 22 TPC-H queries with the specification's validation parameters, as SQL that both Apache Calcite
 * (default conformance) and DuckDB accept, plus what their text says about result order and row limits.
 */
public final class TpchQueries {
  /** Number of TPC-H queries; they are numbered 1 to {@code COUNT}. */
  public static final int COUNT = 22;

  private static final String RESOURCE_DIR = "queries/";

  private TpchQueries() {
  }

  /** Returns the SQL text of query {@code n} (one statement, no trailing semicolon or whitespace). */
  public static String sql(int n) {
    String resource = RESOURCE_DIR + String.format(Locale.ROOT, "q%02d.sql", checkNumber(n));
    try (InputStream in = TpchQueries.class.getResourceAsStream(resource)) {
      if (in == null) {
        throw new IllegalStateException("TPC-H query " + n + ": resource " + resource
            + " is missing from the classpath next to " + TpchQueries.class.getName());
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8).strip();
    } catch (IOException e) {
      throw new UncheckedIOException("TPC-H query " + n + ": cannot read resource " + resource, e);
    }
  }

  /** Q11's FRACTION in {@link #sql(int)}: the specification's value for scale factor 1. */
  private static final String Q11_FRACTION_SF1 = "0.0001";

  /**
   * Returns the SQL text of query {@code n} at scale factor {@code sf}: as {@link #sql(int)}, except that Q11's
   * FRACTION is 0.0001 / SF, as the specification scales it (at SF 10 the SF 1 value keeps no part of partsupp).
   */
  public static String sql(int n, double sf) {
    String sql = sql(n);
    if (n != 11 || sf == 1) {
      return sql;
    }
    if (!(sf > 0)) {
      throw new IllegalArgumentException("the scale factor must be positive, got " + sf);
    }
    // ten decimals: 0.00001 at SF 10, 0.0000033333 at SF 30
    String fraction = new BigDecimal(Q11_FRACTION_SF1).divide(BigDecimal.valueOf(sf), 10, RoundingMode.HALF_UP)
        .stripTrailingZeros().toPlainString();
    return sql.replace("* " + Q11_FRACTION_SF1, "* " + fraction);
  }

  /** Whether query {@code n} has an ORDER BY at the outermost level, so that its row order is defined. */
  public static boolean isOrdered(int n) {
    return !orderByColumns(n).isEmpty();
  }

  /**
   * Returns the outermost ORDER BY keys of query {@code n} as result column labels (unquoted names in lower
   * case, quoted names as written), without ASC/DESC; empty when the query does not order its result.
   */
  public static List<String> orderByColumns(int n) {
    List<String> tokens = topLevelTokens(sql(n));
    int start = indexOfPair(tokens, "order", "by");
    List<String> columns = new ArrayList<>();
    if (start < 0) {
      return columns;
    }
    boolean expectKey = true;
    for (int i = start + 2; i < tokens.size(); i++) {
      String token = tokens.get(i);
      if (isClauseAfterOrderBy(token)) {
        break;
      }
      if (token.equals(",")) {
        expectKey = true;
      } else if (expectKey) {
        columns.add(token);
        expectKey = false;
      }
    }
    return columns;
  }

  /** Returns the outermost row limit of query {@code n} ({@code LIMIT n} or {@code FETCH FIRST n ROWS ONLY}). */
  public static OptionalLong rowLimit(int n) {
    List<String> tokens = topLevelTokens(sql(n));
    int limit = tokens.indexOf("limit");
    if (limit >= 0 && limit + 1 < tokens.size()) {
      return OptionalLong.of(Long.parseLong(tokens.get(limit + 1)));
    }
    int fetch = tokens.indexOf("fetch");
    if (fetch >= 0 && fetch + 2 < tokens.size()) {
      return OptionalLong.of(Long.parseLong(tokens.get(fetch + 2)));
    }
    return OptionalLong.empty();
  }

  private static int checkNumber(int n) {
    if (n < 1 || n > COUNT) {
      throw new IllegalArgumentException("TPC-H query number " + n + " is out of range 1.." + COUNT);
    }
    return n;
  }

  private static boolean isClauseAfterOrderBy(String token) {
    return token.equals("limit") || token.equals("fetch") || token.equals("offset");
  }

  private static int indexOfPair(List<String> tokens, String first, String second) {
    for (int i = 0; i + 1 < tokens.size(); i++) {
      if (tokens.get(i).equals(first) && tokens.get(i + 1).equals(second)) {
        return i;
      }
    }
    return -1;
  }

  /**
   * Splits SQL into the tokens that lie outside every parenthesis: words (lower-cased unless double-quoted),
   * numbers and commas. String literals and nested parts are skipped, which is all the order and limit
   * analysis needs because TPC-H puts ORDER BY and LIMIT only on the outermost query.
   */
  private static List<String> topLevelTokens(String sql) {
    List<String> tokens = new ArrayList<>();
    int depth = 0;
    int i = 0;
    while (i < sql.length()) {
      char c = sql.charAt(i);
      if (c == '\'') {
        i = sql.indexOf('\'', i + 1) + 1;
        if (i == 0) {
          throw new IllegalArgumentException("unterminated string literal in SQL: " + sql);
        }
      } else if (c == '(') {
        depth++;
        i++;
      } else if (c == ')') {
        depth--;
        i++;
      } else if (c == '"') {
        int end = sql.indexOf('"', i + 1);
        if (end < 0) {
          throw new IllegalArgumentException("unterminated quoted identifier in SQL: " + sql);
        }
        addIfTopLevel(tokens, depth, sql.substring(i + 1, end));
        i = end + 1;
      } else if (Character.isLetterOrDigit(c) || c == '_') {
        int end = i;
        while (end < sql.length()
            && (Character.isLetterOrDigit(sql.charAt(end)) || sql.charAt(end) == '_' || sql.charAt(end) == '.')) {
          end++;
        }
        addIfTopLevel(tokens, depth, sql.substring(i, end).toLowerCase(Locale.ROOT));
        i = end;
      } else {
        if (c == ',') {
          addIfTopLevel(tokens, depth, ",");
        }
        i++;
      }
    }
    return tokens;
  }

  private static void addIfTopLevel(List<String> tokens, int depth, String token) {
    if (depth == 0) {
      tokens.add(token);
    }
  }
}
