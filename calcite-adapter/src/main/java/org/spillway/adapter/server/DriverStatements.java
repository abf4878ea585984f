package org.spillway.adapter.server;

import java.lang.reflect.Field;
import java.sql.Statement;
import org.apache.calcite.avatica.jdbc.StatementInfo;

/**
 * Reaches the driver's {@link Statement} inside Avatica's {@link StatementInfo}.
 *
 * <p>JdbcMeta keeps that statement private to its package; the server needs it to set the query
 * timeout and to cancel. The field is plain Java on the class path, so reflection is enough.
 */
final class DriverStatements {
  private static final Field STATEMENT_FIELD = statementField();

  private DriverStatements() {}

  private static Field statementField() {
    try {
      final Field field = StatementInfo.class.getDeclaredField("statement");
      field.setAccessible(true);
      return field;
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError("Avatica's StatementInfo has no 'statement' field;"
          + " DriverStatements must be adapted to this Avatica version: " + e);
    }
  }

  static Statement of(StatementInfo info) {
    try {
      return (Statement) STATEMENT_FIELD.get(info);
    } catch (IllegalAccessException e) {
      throw new IllegalStateException("cannot read the driver statement of Avatica's StatementInfo", e);
    }
  }

  /** The message of the innermost cause: the one that names what went wrong. */
  static String rootMessage(Throwable e) {
    Throwable cause = e;
    while (cause.getCause() != null && cause.getCause() != cause) {
      cause = cause.getCause();
    }
    return String.valueOf(cause.getMessage());
  }
}
