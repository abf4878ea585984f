package org.spillway.adapter.jdbc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.sql.SQLException;
import java.util.concurrent.CancellationException;
import org.apache.calcite.avatica.Meta;
import org.apache.calcite.avatica.MissingResultsException;
import org.apache.calcite.avatica.NoSuchConnectionException;
import org.apache.calcite.avatica.NoSuchStatementException;
import org.apache.calcite.sql.parser.SqlParseException;
import org.apache.calcite.sql.parser.SqlParser;
import org.junit.jupiter.api.Test;
import org.spillway.runtime.SqlStateException;

/** Each kind of failure gets the SQLSTATE of its class, however deep in the cause chain it sits. */
class SpillwaySqlErrorsTest {
  @Test
  void parseErrorsAreSyntaxErrors() {
    SqlParseException parse = assertThrows(SqlParseException.class,
        () -> SqlParser.create("select l_orderkey form lineitem").parseStmt());
    SQLException e = SpillwaySqlErrors.toSqlException(new RuntimeException("parse failed", parse));
    assertEquals(SpillwaySqlErrors.SYNTAX_ERROR, e.getSQLState());
    assertTrue(e.getMessage().contains("line 1, column 24"), e.getMessage());
  }

  /** Calcite's parser reports a stack overflow on deep nesting as a parse error that has no message. */
  @Test
  void parserStackOverflowIsTooComplex() throws InterruptedException {
    StringBuilder sql = new StringBuilder("select 1");
    for (int i = 0; i < 50_000; i++) {
      sql.append("+1");
    }
    // A thread with a small stack overflows quickly and whatever the test JVM's default stack size or how much of
    // the parser the JIT compiled (compiled frames are smaller: 5,000 levels sometimes fit 256 KiB).
    Throwable[] thrown = new Throwable[1];
    Thread parser = new Thread(null, () -> {
      try {
        SqlParser.create(sql.toString()).parseStmt();
      } catch (Throwable t) {
        thrown[0] = t;
      }
    }, "small-stack-parser", 256 * 1024);
    parser.start();
    parser.join();
    assertTrue(thrown[0] instanceof SqlParseException, String.valueOf(thrown[0]));
    assertEquals(SpillwaySqlErrors.STATEMENT_TOO_COMPLEX, SpillwaySqlErrors.toSqlException(thrown[0]).getSQLState());
  }

  @Test
  void arithmeticErrorsAreDataErrors() {
    assertState(SpillwaySqlErrors.DIVISION_BY_ZERO, new ArithmeticException("/ by zero"));
    assertState(SpillwaySqlErrors.NUMERIC_OUT_OF_RANGE, new ArithmeticException("INTEGER overflow (4294967294)"));
    assertState(SpillwaySqlErrors.INVALID_TEXT_REPRESENTATION, new NumberFormatException("For input string: \"abc\""));
    assertState(SpillwaySqlErrors.DATA_EXCEPTION, new java.sql.SQLDataException("cannot convert to long"));
    assertState(SpillwaySqlErrors.DATETIME_FIELD_OVERFLOW,
        new IllegalArgumentException("Value of DAY field is out of range in '2020-13-45'"));
    assertState(SpillwaySqlErrors.INVALID_DATETIME_FORMAT, new IllegalArgumentException("Invalid DATE value, 'x'"));
  }

  /** Calcite hoists constant expressions into static initializers of generated code: 1/0 fails there. */
  @Test
  void initializerErrorsAreClassifiedByTheirCause() {
    assertState(SpillwaySqlErrors.DIVISION_BY_ZERO,
        new SQLException("Error while executing SQL", new ExceptionInInitializerError(new ArithmeticException("/ by zero"))));
  }

  @Test
  void resourceAndLimitErrors() {
    assertState(SpillwaySqlErrors.STATEMENT_TOO_COMPLEX, new StackOverflowError());
    assertState(SpillwaySqlErrors.OUT_OF_MEMORY, new OutOfMemoryError("Java heap space"));
    assertState(SpillwaySqlErrors.QUERY_CANCELED, new RuntimeException(new CancellationException("query cancelled")));
  }

  /** The server's Avatica layer wraps these in plain RuntimeExceptions, which would otherwise be XX000. */
  @Test
  void staleHandlesAreNamed() {
    Meta.StatementHandle handle = new Meta.StatementHandle("c1", 7, null);
    assertState(SpillwaySqlErrors.INVALID_STATEMENT_NAME, new RuntimeException(new NoSuchStatementException(handle)));
    assertState(SpillwaySqlErrors.INVALID_CURSOR_STATE, new RuntimeException(new MissingResultsException(handle)));
    assertState(SpillwaySqlErrors.CONNECTION_DOES_NOT_EXIST, new NoSuchConnectionException("c1"));
  }

  @Test
  void exceptionsThatKnowTheirStateKeepIt() {
    class ResourceException extends RuntimeException implements SqlStateException {
      @Override public String getSqlState() {
        return "53200";
      }
    }
    assertState("53200", new RuntimeException(new ResourceException()));
    SQLException specific = new SQLException("no such data directory", "08001");
    assertSame(specific, SpillwaySqlErrors.toSqlException(specific));
  }

  /** An exception type that has getSqlState() without implementing the interface is still honoured. */
  @Test
  void reflectedSqlStateIsHonoured() {
    class Unaware extends RuntimeException {
      public String getSqlState() {
        return "53100";
      }
    }
    assertState("53100", new Unaware());
  }

  @Test
  void unknownFailuresAreInternalErrorsNotUnknownState() {
    SQLException e = SpillwaySqlErrors.toSqlException(
        new SQLException("Error while executing", null, new IllegalStateException("broken invariant")));
    assertEquals(SpillwaySqlErrors.INTERNAL_ERROR, e.getSQLState());
    assertTrue(e.getMessage().contains("broken invariant"), e.getMessage());
    assertEquals(SpillwaySqlErrors.INTERNAL_ERROR,
        SpillwaySqlErrors.toSqlException(new SQLException("x", "00000")).getSQLState());
  }

  private static void assertState(String expected, Throwable error) {
    SQLException e = SpillwaySqlErrors.toSqlException(error);
    assertEquals(expected, e.getSQLState(), e.getMessage());
    assertSame(error, e.getCause());
  }
}
