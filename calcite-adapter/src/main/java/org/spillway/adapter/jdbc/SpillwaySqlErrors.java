package org.spillway.adapter.jdbc;

import org.apache.calcite.avatica.MissingResultsException;
import org.apache.calcite.avatica.NoSuchConnectionException;
import org.apache.calcite.avatica.NoSuchStatementException;
import org.apache.calcite.runtime.CalciteContextException;
import org.apache.calcite.sql.parser.SqlParseException;
import org.apache.calcite.sql.validate.SqlValidatorException;
import org.spillway.runtime.SqlStateException;

import java.lang.reflect.Method;
import java.sql.SQLException;
import java.time.DateTimeException;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.regex.Pattern;

/**
 * The one place that turns any failure of a statement into an {@link SQLException} with the SQLSTATE of its
 * class (PostgreSQL's codes), for the embedded driver and the server alike. The cause chain is searched from
 * the outside in for the first throwable whose kind is known: Avatica's and Calcite's wrappers say nothing,
 * the parse, validation, arithmetic or cast error inside them does.
 */
public final class SpillwaySqlErrors {
  public static final String SYNTAX_ERROR = "42601";
  public static final String UNDEFINED_TABLE = "42P01";
  public static final String UNDEFINED_COLUMN = "42703";
  public static final String UNDEFINED_FUNCTION = "42883";
  /** Any other statement the validator rejects (type mismatch, ambiguous name, ...). */
  public static final String INVALID_STATEMENT = "42000";
  public static final String DATA_EXCEPTION = "22000";
  public static final String NUMERIC_OUT_OF_RANGE = "22003";
  public static final String DIVISION_BY_ZERO = "22012";
  public static final String INVALID_TEXT_REPRESENTATION = "22P02";
  public static final String INVALID_DATETIME_FORMAT = "22007";
  public static final String DATETIME_FIELD_OVERFLOW = "22008";
  public static final String OUT_OF_MEMORY = "53200";
  public static final String PROGRAM_LIMIT_EXCEEDED = "54000";
  public static final String STATEMENT_TOO_COMPLEX = "54001";
  public static final String QUERY_CANCELED = "57014";
  public static final String FEATURE_NOT_SUPPORTED = "0A000";
  /** A statement handle the server no longer knows (closed, or its connection expired). */
  public static final String INVALID_STATEMENT_NAME = "26000";
  /** A fetch for results the statement no longer has. */
  public static final String INVALID_CURSOR_STATE = "24000";
  public static final String CONNECTION_DOES_NOT_EXIST = "08003";
  public static final String INTERNAL_ERROR = "XX000";

  /** States that say nothing about the failure: Avatica's "unknown" and ODBC's "general error". */
  private static final Set<String> UNSPECIFIC_STATES = Set.of("00000", "HY000");

  private static final Pattern UNDEFINED_TABLE_MESSAGE =
      Pattern.compile("(Object|Table) '.*' not found.*", Pattern.DOTALL);
  private static final Pattern UNDEFINED_COLUMN_MESSAGE =
      Pattern.compile("Column '.*' not found.*", Pattern.DOTALL);
  private static final Pattern UNDEFINED_FUNCTION_MESSAGE =
      Pattern.compile("(No match found for function signature|Cannot apply).*", Pattern.DOTALL);

  private static final String SPILLWAY_PACKAGE = "org.spillway.";

  private SpillwaySqlErrors() {}

  /** A failure's SQLSTATE and the message that names it. */
  public record Classified(String sqlState, String message) {}

  /** {@code error} as an SQLException with a specific SQLSTATE; {@code error} itself is kept as the cause. */
  public static SQLException toSqlException(Throwable error) {
    if (error instanceof SQLException sql && isSpecific(sql.getSQLState())) {
      return sql;
    }
    Classified classified = classify(error);
    return new SQLException(classified.message(), classified.sqlState(), error);
  }

  /** The SQLSTATE and message of the first throwable in {@code error}'s cause chain whose kind is known. */
  public static Classified classify(Throwable error) {
    Set<Throwable> seen = Collections.newSetFromMap(new IdentityHashMap<>());
    Throwable root = error;
    Throwable own = null;
    for (Throwable t = error; t != null && seen.add(t); t = t.getCause()) {
      Classified known = known(t);
      if (known != null) {
        return known;
      }
      if (own == null && t.getMessage() != null && t.getClass().getName().startsWith(SPILLWAY_PACKAGE)) {
        own = t;
      }
      root = t;
    }
    // Spillway's own messages say what failed and where; a library's root cause alone often does not.
    return new Classified(INTERNAL_ERROR, "Internal error: " + (own != null ? own.getMessage() : root));
  }

  /** Whether {@code sqlState} names a failure class (not null, "unknown" or "general error"). */
  public static boolean isSpecific(String sqlState) {
    return sqlState != null && sqlState.length() == 5 && !UNSPECIFIC_STATES.contains(sqlState);
  }

  private static Classified known(Throwable t) {
    String message = String.valueOf(t.getMessage());
    if (t instanceof SqlStateException s && isSpecific(s.getSqlState())) {
      return new Classified(s.getSqlState(), message);
    }
    if (t instanceof SQLException s && isSpecific(s.getSQLState())) {
      return new Classified(s.getSQLState(), message);
    }
    if (t instanceof java.sql.SQLDataException) {  // class 22 without its state: Avatica's "cannot convert to long"
      return new Classified(DATA_EXCEPTION, message);
    }
    String reflected = reflectedSqlState(t);
    if (reflected != null) {
      return new Classified(reflected, message);
    }
    if (t instanceof SqlParseException && t.getCause() instanceof StackOverflowError overflow) {
      return known(overflow);  // the parser reports its own stack overflow as a parse error without a message
    }
    if (t instanceof SqlParseException) {
      return new Classified(SYNTAX_ERROR, "SQL parse error: " + firstLine(message));
    }
    if (t instanceof CalciteContextException || t instanceof SqlValidatorException) {
      return new Classified(validationState(t), message);
    }
    if (t instanceof ArithmeticException) {
      return new Classified(arithmeticState(message), "Arithmetic error: " + message);
    }
    if (t instanceof NumberFormatException) {
      return new Classified(INVALID_TEXT_REPRESENTATION, "Invalid number: " + message);
    }
    if (t instanceof DateTimeException || t instanceof IllegalArgumentException && isDateMessage(message)) {
      return new Classified(dateState(message), "Invalid date or time: " + message);
    }
    if (t instanceof StackOverflowError || isCodeTooLarge(t)) {
      return new Classified(STATEMENT_TOO_COMPLEX, "Statement too complex: its expressions are nested too"
          + " deeply or are too many to parse, plan or run (simplify it or split it into several statements)");
    }
    if (t instanceof OutOfMemoryError) {
      return new Classified(OUT_OF_MEMORY, "Out of memory while running the statement: " + message);
    }
    if (t instanceof CancellationException || t instanceof InterruptedException) {
      return new Classified(QUERY_CANCELED, "Query cancelled: " + message);
    }
    if (t instanceof NoSuchStatementException) {
      return new Classified(INVALID_STATEMENT_NAME, "No such statement on the server (closed or expired)");
    }
    if (t instanceof MissingResultsException) {
      return new Classified(INVALID_CURSOR_STATE, "The statement has no results to fetch (closed or expired)");
    }
    if (t instanceof NoSuchConnectionException) {
      return new Classified(CONNECTION_DOES_NOT_EXIST, "No such connection on the server (closed or expired)");
    }
    if (t instanceof UnsupportedOperationException) {
      return new Classified(FEATURE_NOT_SUPPORTED, "Not supported: " + message);
    }
    return null;
  }

  /** Janino refuses generated methods over the JVM's 64 KB limit, e.g. for an IN list of many thousand values. */
  private static boolean isCodeTooLarge(Throwable t) {
    return t.getClass().getName().startsWith("org.codehaus.commons.compiler.")
        && String.valueOf(t.getMessage()).contains("grows beyond 64 KB");
  }

  /**
   * The SQLSTATE of a throwable with a public {@code getSqlState()} that does not implement
   * {@link SqlStateException} (an exception type added without knowing of the interface), else null.
   */
  private static String reflectedSqlState(Throwable t) {
    try {
      Method method = t.getClass().getMethod("getSqlState");
      Object state = method.getReturnType() == String.class ? method.invoke(t) : null;
      return state instanceof String s && isSpecific(s) ? s : null;
    } catch (ReflectiveOperationException | RuntimeException e) {
      return null;
    }
  }

  /** The validator's messages are its only record of what it found wrong. */
  private static String validationState(Throwable t) {
    String message = t instanceof CalciteContextException c && c.getCause() != null
        ? String.valueOf(c.getCause().getMessage()) : String.valueOf(t.getMessage());
    if (UNDEFINED_COLUMN_MESSAGE.matcher(message).matches()) {
      return UNDEFINED_COLUMN;
    }
    if (UNDEFINED_TABLE_MESSAGE.matcher(message).matches()) {
      return UNDEFINED_TABLE;
    }
    if (UNDEFINED_FUNCTION_MESSAGE.matcher(message).matches()) {
      return UNDEFINED_FUNCTION;
    }
    if (isDateMessage(message)) {
      return dateState(message);
    }
    if (message.contains("out of range")) {
      return NUMERIC_OUT_OF_RANGE;
    }
    return INVALID_STATEMENT;
  }

  private static String arithmeticState(String message) {
    String lower = message.toLowerCase(Locale.ROOT);
    if (lower.contains("by zero")) {
      return DIVISION_BY_ZERO;
    }
    if (lower.contains("overflow") || lower.contains("out of range")) {
      return NUMERIC_OUT_OF_RANGE;
    }
    return DATA_EXCEPTION;
  }

  /** Calcite and Avatica report bad date, time and timestamp strings as plain IllegalArgumentExceptions. */
  private static boolean isDateMessage(String message) {
    String lower = message.toLowerCase(Locale.ROOT);
    boolean temporal = lower.contains("date") || lower.contains("time") && !lower.contains("timeout")
        || lower.matches("(?s).*value of (year|month|day|hour|minute|second) field.*");
    return temporal && (lower.contains("invalid") || lower.contains("illegal") || lower.contains("unparseable")
        || lower.contains("out of range") || lower.contains("value of"));
  }

  private static String dateState(String message) {
    return message.toLowerCase(Locale.ROOT).contains("out of range") ? DATETIME_FIELD_OVERFLOW
        : INVALID_DATETIME_FORMAT;
  }

  private static String firstLine(String message) {
    int newline = message.indexOf('\n');
    return newline < 0 ? message : message.substring(0, newline);
  }
}
