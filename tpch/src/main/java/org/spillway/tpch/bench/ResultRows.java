package org.spillway.tpch.bench;

import java.math.BigDecimal;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;

/**
 * The rows of a query result as text (and its column labels, where known), compared exactly between Spillway runs
 * and with a tolerance with DuckDB.
 */
record ResultRows(List<String> labels, List<List<String>> rows) {
  /** Rows without column labels. */
  ResultRows(List<List<String>> rows) {
    this(List.of(), rows);
  }

  /** Rows are equal when their text is: the labels (their case differs between engines) do not count. */
  @Override public boolean equals(Object o) {
    return o instanceof ResultRows other && rows.equals(other.rows);
  }

  @Override public int hashCode() {
    return rows.hashCode();
  }

  /** Reads every row of {@code rs} (and closes it). */
  static ResultRows read(ResultSet rs) throws SQLException {
    try (rs) {
      int columns = rs.getMetaData().getColumnCount();
      List<String> labels = new ArrayList<>(columns);
      for (int c = 1; c <= columns; c++) {
        labels.add(rs.getMetaData().getColumnLabel(c));
      }
      List<List<String>> rows = new ArrayList<>();
      while (rs.next()) {
        List<String> row = new ArrayList<>(columns);
        for (int c = 1; c <= columns; c++) {
          row.add(rs.getString(c));
        }
        rows.add(row);
      }
      return new ResultRows(labels, rows);
    }
  }

  /**
   * As {@link #differenceFrom(ResultRows)} for a result ordered by the columns labelled {@code orderBy} (any case):
   * rows whose ORDER BY values are equal may come in any order (TPC-H Q11's equal values, say), so each run of them
   * is compared as a set. Without labels, or without an ORDER BY, the rows compare in order.
   */
  String differenceFrom(ResultRows other, List<String> orderBy) {
    int[] keys = columns(orderBy);
    if (keys == null || rows.size() != other.rows.size()) {
      return differenceFrom(other);
    }
    for (int r = 0, end; r < rows.size(); r = end) {
      end = r + 1;
      while (end < rows.size() && sameAt(rows.get(r), rows.get(end), keys)) {
        end++;
      }
      String difference = new ResultRows(byText(rows.subList(r, end)))
          .differenceFrom(new ResultRows(byText(other.rows.subList(r, end))));
      if (difference != null) {
        return "rows " + r + " to " + (end - 1) + " (equal in the ORDER BY columns " + orderBy + "): " + difference;
      }
    }
    return null;
  }

  /** The indexes of the columns labelled {@code names}, or null where a name has no column or none is given. */
  private int[] columns(List<String> names) {
    if (names.isEmpty() || labels.isEmpty()) {
      return null;
    }
    int[] out = new int[names.size()];
    for (int i = 0; i < out.length; i++) {
      out[i] = -1;
      for (int c = 0; c < labels.size(); c++) {
        if (labels.get(c).toLowerCase(Locale.ROOT).equals(names.get(i).toLowerCase(Locale.ROOT))) {
          out[i] = c;
        }
      }
      if (out[i] < 0) {
        return null;
      }
    }
    return out;
  }

  private static boolean sameAt(List<String> a, List<String> b, int[] columns) {
    for (int c : columns) {
      if (!same(a.get(c), b.get(c))) {
        return false;
      }
    }
    return true;
  }

  private static List<List<String>> byText(List<List<String>> rows) {
    List<List<String>> sorted = new ArrayList<>(rows);
    sorted.sort(Comparator.comparing(List::toString));
    return sorted;
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
