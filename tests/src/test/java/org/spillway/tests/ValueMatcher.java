package org.spillway.tests;

import java.math.BigDecimal;
import java.math.MathContext;

/**
 * Decides whether two normalised result values (see {@link QueryResult}) are equal: exact numbers exactly,
 * approximate numbers within a relative tolerance of 1e-12, dates and strings exactly.
 */
public final class ValueMatcher {
  /**
   * Relative tolerance for DOUBLE results, which differ in the last bits with summation order and the rounding of
   * one engine's 16-digit decimal quotient: about 1e-16 each, so 1e-12 leaves room and still fails an AVG or a
   * quotient computed at a decimal's scale (0.04 for 0.0499852958...).
   */
  static final double RELATIVE_TOLERANCE = 1e-12;

  private ValueMatcher() {
  }

  /** Whether {@code actual} and {@code expected} denote the same SQL value. */
  public static boolean matches(Object actual, Object expected) {
    if (actual == null || expected == null) {
      return actual == expected;
    }
    if (actual instanceof BigDecimal a && expected instanceof BigDecimal e) {
      return decimalsMatch(a, e);
    }
    if (actual instanceof BigDecimal a && expected instanceof Double e) {
      return decimalMatchesDouble(a, e);
    }
    if (actual instanceof Double a && expected instanceof BigDecimal e) {
      return decimalMatchesDouble(e, a);
    }
    if (actual instanceof Double a && expected instanceof Double e) {
      return doublesMatch(a, e);
    }
    return actual.equals(expected);
  }

  /** Renders a value with its Java type, so that a failure shows e.g. a scale or type difference. */
  public static String describe(Object value) {
    if (value == null) {
      return "NULL";
    }
    if (value instanceof String) {
      return "'" + value + "'";
    }
    return value + " (" + value.getClass().getSimpleName() + ")";
  }

  /**
   * Exact numbers must be numerically equal, whatever their scale. Where the scales differ the engines
   * derived different result types (Calcite sizes quotients differently from DuckDB), so the longer value is rounded to the shorter scale: the values then match when
   * they differ by less than one unit in the last place of the shorter scale, which accepts rounding as well
   * as truncation and nothing beyond.
   */
  private static boolean decimalsMatch(BigDecimal a, BigDecimal e) {
    if (a.compareTo(e) == 0) {
      return true;
    }
    int scale = Math.min(a.scale(), e.scale());
    return a.scale() != e.scale() && a.subtract(e).abs().compareTo(BigDecimal.ONE.movePointLeft(scale)) < 0;
  }

  /**
   * One engine returned an exact number where the other returned DOUBLE (DuckDB types AVG and decimal division as
   * DOUBLE; Spillway's decimal quotients carry 16 significant digits): they match within the relative tolerance,
   * whatever the decimal's scale, so a value truncated or rounded to a few decimal places does not.
   */
  private static boolean decimalMatchesDouble(BigDecimal exact, double approximate) {
    if (!Double.isFinite(approximate)) {
      return false;
    }
    BigDecimal other = new BigDecimal(approximate);
    BigDecimal difference = exact.subtract(other).abs();
    BigDecimal bound = exact.abs().max(other.abs()).multiply(BigDecimal.valueOf(RELATIVE_TOLERANCE),
        MathContext.DECIMAL64);
    return difference.compareTo(bound) <= 0;
  }

  private static boolean doublesMatch(double a, double e) {
    if (Double.isNaN(a) || Double.isNaN(e)) {
      return Double.isNaN(a) && Double.isNaN(e);
    }
    return a == e || Math.abs(a - e) <= RELATIVE_TOLERANCE * Math.max(Math.abs(a), Math.abs(e));
  }
}
