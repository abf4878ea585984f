package org.spillway.adapter;

import org.apache.calcite.schema.impl.ScalarFunctionImpl;
import org.apache.calcite.sql.SqlFunction;
import org.apache.calcite.sql.SqlIdentifier;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.parser.SqlParserPos;
import org.apache.calcite.sql.type.ReturnTypes;
import org.apache.calcite.sql.validate.SqlUserDefinedFunction;

import java.time.DateTimeException;
import java.time.LocalDate;

/**
 * The range of SQL dates, 0001-01-01 to 9999-12-31 (as in the SQL standard and PostgreSQL's output), and the
 * operator that checks a result of date arithmetic against it. Calcite computes DATE +/- INTERVAL on day numbers
 * and prints day numbers outside the range as other dates (9999-12-31 + 1 day as 0000-01-01); wrapped in
 * {@link #CHECKED_DATE} by {@link SpillwayCheckedArithmetic}, such a result is an error instead, wherever Calcite
 * computes it: in generated code and in constant folding. The operator is a function Calcite generates a call of
 * ({@link #check}); Spillway's own evaluators have no date arithmetic, so expressions with it run in Calcite.
 */
public final class SpillwayDateRange {
  /** 0001-01-01 in days since 1970-01-01. */
  static final int MIN_DAY = (int) LocalDate.of(1, 1, 1).toEpochDay();
  /** 9999-12-31 in days since 1970-01-01. */
  static final int MAX_DAY = (int) LocalDate.of(9999, 12, 31).toEpochDay();

  /** CHECKED_DATE(d): d, a DATE, if it lies within the range; else a "date out of range" error. */
  static final SqlFunction CHECKED_DATE = new SqlUserDefinedFunction(
      new SqlIdentifier("CHECKED_DATE", SqlParserPos.ZERO), SqlKind.OTHER_FUNCTION, ReturnTypes.ARG0, null, null,
      ScalarFunctionImpl.create(SpillwayDateRange.class, "check"));

  private SpillwayDateRange() {}

  /**
   * A date (days since 1970-01-01, Calcite's representation of DATE) if it lies within the range. The error is a
   * DateTimeException whose message says "out of range": SQLSTATE 22008, datetime field overflow.
   */
  public static int check(int day) {
    if (day < MIN_DAY || day > MAX_DAY) {
      throw new DateTimeException("date out of range: " + LocalDate.ofEpochDay(day)
          + (day < MIN_DAY ? " is before 0001-01-01" : " is after 9999-12-31"));
    }
    return day;
  }
}
