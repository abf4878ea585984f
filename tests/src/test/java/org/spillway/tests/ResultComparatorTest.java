package org.spillway.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigDecimal;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

/** The oracle comparison itself must catch differences, or the differential tests could not fail. */
class ResultComparatorTest {
  private static final List<String> LABELS = List.of("k", "v");

  private static QueryResult result(Object... cells) {
    List<List<Object>> rows = new ArrayList<>();
    for (int i = 0; i < cells.length; i += 2) {
      rows.add(Arrays.asList(QueryResult.normalize(cells[i]), QueryResult.normalize(cells[i + 1])));
    }
    return new QueryResult(LABELS, rows);
  }

  private static Optional<String> ordered(QueryResult actual, QueryResult expected) {
    return new ResultComparator("Q99", List.of("k"), OptionalLong.empty()).compare(actual, expected);
  }

  private static Optional<String> unordered(QueryResult actual, QueryResult expected) {
    return new ResultComparator("Q99", List.of(), OptionalLong.empty()).compare(actual, expected);
  }

  @Test
  void identicalResultsMatch() {
    assertEquals(Optional.empty(), ordered(result(1, "a", 2, "b"), result(1, "a", 2, "b")));
  }

  @Test
  void wrongOrderIsReportedWithQueryRowsAndColumn() {
    String message = ordered(result(2, "b", 1, "a"), result(1, "a", 2, "b")).orElseThrow();
    assertTrue(message.contains("Q99"), message);
    assertTrue(message.contains("column 'k'"), message);
    assertTrue(message.contains("[2, b]") && message.contains("[1, a]"), message);
  }

  @Test
  void tiedRowsMayComeInAnyOrderButNotAcrossTies() {
    QueryResult expected = result(1, "a", 1, "b", 2, "c");
    assertEquals(Optional.empty(), ordered(result(1, "b", 1, "a", 2, "c"), expected));
    assertTrue(ordered(result(1, "a", 2, "c", 1, "b"), expected).isPresent());
  }

  @Test
  void unorderedResultsCompareAsMultisets() {
    assertEquals(Optional.empty(), unordered(result(2, "b", 1, "a"), result(1, "a", 2, "b")));
    assertTrue(unordered(result(1, "a", 1, "a"), result(1, "a", 2, "b")).isPresent(), "duplicates count");
  }

  @Test
  void rowAndColumnCountsMustAgree() {
    assertTrue(unordered(result(1, "a"), result(1, "a", 2, "b")).orElseThrow().contains("1 rows, expected 2"));
    QueryResult oneColumn = new QueryResult(List.of("k"), List.of(List.of(BigDecimal.ONE)));
    assertTrue(unordered(oneColumn, result(1, "a")).isPresent());
  }

  @Test
  void tieCutByRowLimitComparesOnlyKeys() {
    ResultComparator limited = new ResultComparator("Q99", List.of("k"), OptionalLong.of(2));
    assertEquals(Optional.empty(), limited.compare(result(1, "a", 2, "x"), result(1, "a", 2, "y")));
    assertTrue(limited.compare(result(1, "z", 2, "x"), result(1, "a", 2, "y")).isPresent(), "earlier rows exact");
    assertTrue(limited.compare(result(1, "a", 3, "y"), result(1, "a", 2, "y")).isPresent(), "keys still exact");
  }

  /** ORDER BY k OFFSET 1 over k = 1, 1, 2: the engines may skip either of the tied rows. */
  @Test
  void tieCutByOffsetComparesOnlyKeys() {
    ResultComparator skipped = new ResultComparator("Q99", List.of("k"), OptionalLong.empty(), true);
    assertEquals(Optional.empty(), skipped.compare(result(1, "a", 2, "x"), result(1, "b", 2, "x")));
    assertTrue(skipped.compare(result(1, "a", 2, "x"), result(1, "b", 2, "y")).isPresent(), "later rows exact");
    assertTrue(skipped.compare(result(0, "a", 2, "x"), result(1, "a", 2, "x")).isPresent(), "keys still exact");
    ResultComparator notSkipped = new ResultComparator("Q99", List.of("k"), OptionalLong.empty(), false);
    assertTrue(notSkipped.compare(result(1, "a", 2, "x"), result(1, "b", 2, "x")).isPresent());
  }

  @Test
  void decimalsCompareExactlyAcrossScales() {
    assertTrue(ValueMatcher.matches(new BigDecimal("2.50"), new BigDecimal("2.5000")));
    assertFalse(ValueMatcher.matches(new BigDecimal("2.5001"), new BigDecimal("2.5000")));
    assertTrue(ValueMatcher.matches(new BigDecimal("2.51"), new BigDecimal("2.5149")), "rounded to scale 2");
    assertTrue(ValueMatcher.matches(new BigDecimal("2.51"), new BigDecimal("2.5199")), "truncated to scale 2");
    assertFalse(ValueMatcher.matches(new BigDecimal("2.51"), new BigDecimal("2.5200")));
    assertTrue(ValueMatcher.matches(BigDecimal.valueOf(7), QueryResult.normalize(7L)));
  }

  @Test
  void doublesUseTightRelativeTolerance() {
    assertTrue(ValueMatcher.matches(1e6, 1e6 * (1 + 1e-13)));
    assertTrue(ValueMatcher.matches(0.1 + 0.2, 0.3), "last bits of summation order");
    assertFalse(ValueMatcher.matches(1e6, 1e6 * (1 + 1e-8)));
    assertFalse(ValueMatcher.matches(1e6, 1e6 * (1 + 1e-10)));
    assertTrue(ValueMatcher.matches(0.0, 0.0));
    assertTrue(ValueMatcher.matches(new BigDecimal("25.57515461145469"), 25.575154611454693), "16 digits");
    assertTrue(ValueMatcher.matches(BigDecimal.ZERO, 0.0));
  }

  /** Issue #12: an AVG truncated or rounded to its argument's scale (Q1's avg_disc 0.04) is a wrong answer. */
  @Test void decimalsRoundedToAFewPlacesDoNotMatchDoubles() {
    assertFalse(ValueMatcher.matches(new BigDecimal("0.04"), 0.04998529583825443), "truncated AVG");
    assertFalse(ValueMatcher.matches(new BigDecimal("0.05"), 0.04998529583825443), "rounded AVG");
    assertFalse(ValueMatcher.matches(0.04998529583825443, new BigDecimal("0.05")), "either side");
    assertFalse(ValueMatcher.matches(new BigDecimal("25.58"), 25.575154611454693));
    QueryResult doubleAvg = new QueryResult(LABELS, List.of(Arrays.asList(BigDecimal.ONE, 0.04998529583825443)));
    QueryResult truncated = new QueryResult(LABELS, List.of(Arrays.asList(BigDecimal.ONE, new BigDecimal("0.04"))));
    assertTrue(unordered(truncated, doubleAvg).orElseThrow().contains("column 'v'"));
  }

  @Test
  void datesStringsAndNullsCompareExactly() {
    assertTrue(ValueMatcher.matches(QueryResult.normalize(java.sql.Date.valueOf("1995-03-15")),
        LocalDate.of(1995, 3, 15)));
    assertFalse(ValueMatcher.matches("BUILDING ", "BUILDING"), "no blank padding");
    assertTrue(ValueMatcher.matches(null, null));
    assertFalse(ValueMatcher.matches(null, BigDecimal.ZERO));
  }
}
