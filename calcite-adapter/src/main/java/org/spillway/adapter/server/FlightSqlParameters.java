package org.spillway.adapter.server;

import java.sql.Date;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Time;
import java.sql.Timestamp;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.TimeMilliVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.util.Text;

/**
 * One row of parameter values a Flight SQL client bound to a prepared statement (sent with DoPut as an Arrow
 * batch), as the Java values JDBC's {@code setObject} takes.
 */
final class FlightSqlParameters {
  private FlightSqlParameters() {}

  /** The values of row {@code row} of {@code batch}, one per column, in column order. */
  static List<Object> row(VectorSchemaRoot batch, int row) {
    final List<Object> values = new ArrayList<>();
    for (FieldVector vector : batch.getFieldVectors()) {
      values.add(vector.isNull(row) ? null : value(vector, row));
    }
    return values;
  }

  /** Binds {@code values} to {@code statement}'s parameters 1, 2, ... */
  static void bind(PreparedStatement statement, List<Object> values) throws SQLException {
    final int expected = statement.getParameterMetaData().getParameterCount();
    if (values.size() != expected) {
      throw new SQLException("the statement has " + expected + " parameters but " + values.size()
          + " values were bound", "07001");
    }
    for (int p = 0; p < values.size(); p++) {
      statement.setObject(p + 1, values.get(p));
    }
  }

  private static Object value(FieldVector vector, int row) {
    // Arrow's getObject gives days and milliseconds as numbers or java.time values; JDBC wants its own types.
    if (vector instanceof DateDayVector dates) {
      return Date.valueOf(LocalDate.ofEpochDay(dates.get(row)));
    }
    if (vector instanceof TimeMilliVector times) {
      return Time.valueOf(LocalTime.ofNanoOfDay(times.get(row) * 1_000_000L));
    }
    final Object value = vector.getObject(row);
    if (value instanceof Text text) {
      return text.toString();
    }
    if (value instanceof LocalDateTime dateTime) {
      return Timestamp.valueOf(dateTime);
    }
    return value;
  }
}
