package org.spillway.adapter.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Types;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * A query result read into plain values (by declared column type), so that results of the embedded
 * and the remote driver can be compared although their Java classes may differ.
 */
record ResultRows(List<String> labels, List<Integer> types, List<List<Object>> rows) {
  /** Relative tolerance for DOUBLE columns: sums may be added up in another order. */
  private static final double DOUBLE_TOLERANCE = 1e-9;

  static ResultRows query(Connection connection, String sql) throws SQLException {
    try (Statement statement = connection.createStatement();
        ResultSet resultSet = statement.executeQuery(sql)) {
      return read(resultSet);
    }
  }

  /**
   * The result with every DECIMAL value rounded half up to its column's declared scale, as a protocol with
   * typed columns (Flight SQL's Arrow decimals) carries it.
   */
  static ResultRows queryAtDeclaredScale(Connection connection, String sql) throws SQLException {
    try (Statement statement = connection.createStatement();
        ResultSet resultSet = statement.executeQuery(sql)) {
      final ResultRows rows = read(resultSet);
      final ResultSetMetaData metaData = resultSet.getMetaData();
      for (List<Object> row : rows.rows) {
        for (int c = 0; c < row.size(); c++) {
          if (row.get(c) != null && (rows.types.get(c) == Types.DECIMAL || rows.types.get(c) == Types.NUMERIC)) {
            row.set(c, new BigDecimal((String) row.get(c)).setScale(metaData.getScale(c + 1),
                java.math.RoundingMode.HALF_UP).stripTrailingZeros().toPlainString());
          }
        }
      }
      return rows;
    }
  }

  static ResultRows read(ResultSet resultSet) throws SQLException {
    final ResultSetMetaData metaData = resultSet.getMetaData();
    final int columns = metaData.getColumnCount();
    final List<String> labels = new ArrayList<>();
    final List<Integer> types = new ArrayList<>();
    for (int i = 1; i <= columns; i++) {
      labels.add(metaData.getColumnLabel(i));
      types.add(metaData.getColumnType(i));
    }
    final List<List<Object>> rows = new ArrayList<>();
    while (resultSet.next()) {
      final List<Object> row = new ArrayList<>(columns);
      for (int i = 1; i <= columns; i++) {
        row.add(value(resultSet, i, types.get(i - 1)));
      }
      rows.add(row);
    }
    return new ResultRows(labels, types, rows);
  }

  private static Object value(ResultSet resultSet, int column, int type) throws SQLException {
    final Object value = switch (type) {
      case Types.DECIMAL, Types.NUMERIC -> {
        final BigDecimal decimal = resultSet.getBigDecimal(column);
        yield decimal == null ? null : decimal.stripTrailingZeros().toPlainString();
      }
      case Types.DOUBLE, Types.FLOAT, Types.REAL -> resultSet.getDouble(column);
      case Types.TINYINT, Types.SMALLINT, Types.INTEGER, Types.BIGINT -> resultSet.getLong(column);
      case Types.DATE -> String.valueOf(resultSet.getDate(column));
      default -> resultSet.getString(column);
    };
    return resultSet.wasNull() ? null : value;
  }

  /** Asserts same labels, types and rows; rows compared as a sorted multiset. */
  static void assertSameResult(ResultRows expected, ResultRows actual, String context) {
    assertEquals(expected.labels, actual.labels, context + ": column labels");
    assertEquals(expected.types, actual.types, context + ": column types");
    assertEquals(expected.rows.size(), actual.rows.size(), context + ": row count");
    final List<List<Object>> want = sorted(expected.rows);
    final List<List<Object>> got = sorted(actual.rows);
    for (int r = 0; r < want.size(); r++) {
      for (int c = 0; c < expected.labels.size(); c++) {
        final Object w = want.get(r).get(c);
        final Object g = got.get(r).get(c);
        final String where = context + ": row " + r + " column " + expected.labels.get(c);
        if (w instanceof Double && g instanceof Double) {
          final double wd = (Double) w;
          final double gd = (Double) g;
          assertTrue(Math.abs(wd - gd) <= DOUBLE_TOLERANCE * Math.max(1, Math.abs(wd)),
              () -> where + ": expected " + wd + " but was " + gd);
        } else {
          assertEquals(w, g, where);
        }
      }
    }
  }

  private static List<List<Object>> sorted(List<List<Object>> rows) {
    final List<List<Object>> copy = new ArrayList<>(rows);
    copy.sort(Comparator.comparing(row -> row.toString()));
    return copy;
  }
}
