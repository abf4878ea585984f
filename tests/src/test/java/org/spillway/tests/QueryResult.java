package org.spillway.tests;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.sql.Date;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * A query result read fully into memory, with values normalised so that results of different JDBC drivers
 * can be compared: every exact number becomes a BigDecimal, every approximate one a Double, every date a
 * LocalDate; strings stay strings.
 */
public record QueryResult(List<String> labels, List<List<Object>> rows) {
  /** Reads all remaining rows of {@code resultSet}; column labels are lower-cased. */
  public static QueryResult read(ResultSet resultSet) throws SQLException {
    ResultSetMetaData metaData = resultSet.getMetaData();
    int columnCount = metaData.getColumnCount();
    List<String> labels = new ArrayList<>(columnCount);
    for (int i = 1; i <= columnCount; i++) {
      labels.add(metaData.getColumnLabel(i).toLowerCase(Locale.ROOT));
    }
    List<List<Object>> rows = new ArrayList<>();
    while (resultSet.next()) {
      Object[] row = new Object[columnCount];
      for (int i = 1; i <= columnCount; i++) {
        row[i - 1] = normalize(resultSet.getObject(i));
      }
      // Arrays.asList, not List.of: SQL results may contain NULL.
      rows.add(Arrays.asList(row));
    }
    return new QueryResult(List.copyOf(labels), rows);
  }

  /** Index of the column labelled {@code label} (case-insensitive), or -1. */
  public int indexOf(String label) {
    return labels.indexOf(label.toLowerCase(Locale.ROOT));
  }

  /** Maps a JDBC value to the comparable representation described on this class. */
  static Object normalize(Object value) {
    if (value instanceof Byte || value instanceof Short || value instanceof Integer || value instanceof Long) {
      return BigDecimal.valueOf(((Number) value).longValue());
    }
    if (value instanceof BigInteger bigInteger) {
      return new BigDecimal(bigInteger);
    }
    if (value instanceof Float || value instanceof Double) {
      return ((Number) value).doubleValue();
    }
    if (value instanceof Character character) {
      return character.toString();
    }
    if (value instanceof Date date) {
      return date.toLocalDate();
    }
    return value;
  }
}
