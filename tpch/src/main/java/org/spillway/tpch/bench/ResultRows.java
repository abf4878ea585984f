package org.spillway.tpch.bench;

import java.math.BigDecimal;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/** The rows of a query result as text, compared exactly between Spillway runs and with a tolerance with DuckDB. */
record ResultRows(List<List<String>> rows) {
  /** Reads every row of {@code rs} (and closes it). */
  static ResultRows read(ResultSet rs) throws SQLException {
    try (rs) {
      int columns = rs.getMetaData().getColumnCount();
      List<List<String>> rows = new ArrayList<>();
      while (rs.next()) {
        List<String> row = new ArrayList<>(columns);
        for (int c = 1; c <= columns; c++) {
          row.add(rs.getString(c));
        }
        rows.add(row);
      }
      return new ResultRows(rows);
    }
  }

  /**
   * Why {@code other} differs from these rows, or null when they match: text must be equal, numbers closer than
   * 0.01 (Spillway cuts averages to their DECIMAL(15,2) column's two decimals where DuckDB returns a double).
   */
  String differenceFrom(ResultRows other) {
    if (rows.size() != other.rows.size()) {
      return rows.size() + " rows vs " + other.rows.size();
    }
    for (int r = 0; r < rows.size(); r++) {
      List<String> a = rows.get(r);
      List<String> b = other.rows.get(r);
      if (a.size() != b.size()) {
        return "row " + r + " has " + a.size() + " vs " + b.size() + " columns";
      }
      for (int c = 0; c < a.size(); c++) {
        if (!same(a.get(c), b.get(c))) {
          return "row " + r + " column " + (c + 1) + ": " + a.get(c) + " vs " + b.get(c);
        }
      }
    }
    return null;
  }

  private static boolean same(String a, String b) {
    if (a == null || b == null) {
      return a == null && b == null;
    }
    if (a.equals(b)) {
      return true;
    }
    try {
      BigDecimal x = new BigDecimal(a.trim());
      BigDecimal y = new BigDecimal(b.trim());
      BigDecimal diff = x.subtract(y).abs();
      return diff.compareTo(new BigDecimal("0.01")) < 0;
    } catch (NumberFormatException e) {
      return a.trim().equals(b.trim());
    }
  }
}
