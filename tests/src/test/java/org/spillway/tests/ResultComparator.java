package org.spillway.tests;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * Compares a query result with an oracle's result of the same query: labels, column and row counts, and
 * values by {@link ValueMatcher}. An ordered result must follow the oracle's order, except that rows whose
 * ORDER BY keys are equal (a tie) may come in any order; an unordered result is compared as a multiset.
 */
public final class ResultComparator {
  private final String name;
  private final List<String> orderKeys;
  private final OptionalLong rowLimit;
  private final boolean offset;

  /**
   * @param name what is compared, for messages (e.g. "Q7")
   * @param orderKeys labels of the result columns named by the query's ORDER BY; empty for no order
   * @param rowLimit the query's row limit, if any: a tie cut by the limit may hold any of the tied rows
   */
  public ResultComparator(String name, List<String> orderKeys, OptionalLong rowLimit) {
    this(name, orderKeys, rowLimit, false);
  }

  /**
   * @param offset whether the query skips rows (OFFSET): then its first tie, cut by the offset, may hold any of
   *     the tied rows too
   */
  public ResultComparator(String name, List<String> orderKeys, OptionalLong rowLimit, boolean offset) {
    this.name = name;
    this.orderKeys = List.copyOf(orderKeys);
    this.rowLimit = rowLimit;
    this.offset = offset;
  }

  /** Returns a description of the first difference between {@code actual} and {@code expected}, if any. */
  public Optional<String> compare(QueryResult actual, QueryResult expected) {
    if (!actual.labels().equals(expected.labels())) {
      return Optional.of(name + ": column labels differ: actual " + actual.labels()
          + ", expected " + expected.labels());
    }
    int[] keyColumns = keyColumns(expected);
    List<List<Object>> actualRows = actual.rows();
    List<List<Object>> expectedRows = expected.rows();
    if (actualRows.size() != expectedRows.size()) {
      return Optional.of(name + ": actual has " + actualRows.size() + " rows, expected "
          + expectedRows.size() + "; " + firstPositionalDifference(actual, expected));
    }
    int start = 0;
    while (start < expectedRows.size()) {
      int end = keyColumns == null ? expectedRows.size() : endOfTie(expectedRows, start, keyColumns);
      boolean cutByLimit = end == expectedRows.size() && rowLimit.isPresent()
          && expectedRows.size() == rowLimit.getAsLong() && keyColumns != null;
      boolean cutByOffset = start == 0 && offset && keyColumns != null;
      Optional<String> difference = cutByLimit || cutByOffset
          ? compareKeysOnly(actual, expected, start, end, keyColumns)
          : compareGroup(actual, expected, start, end);
      if (difference.isPresent()) {
        return difference;
      }
      start = end;
    }
    return Optional.empty();
  }

  /** Positions of the ORDER BY columns, or null when the query imposes no order. */
  private int[] keyColumns(QueryResult expected) {
    if (orderKeys.isEmpty()) {
      return null;
    }
    int[] columns = new int[orderKeys.size()];
    for (int i = 0; i < columns.length; i++) {
      columns[i] = expected.indexOf(orderKeys.get(i));
      if (columns[i] < 0) {
        throw new IllegalArgumentException(name + ": ORDER BY key '" + orderKeys.get(i)
            + "' is not a result column; columns are " + expected.labels());
      }
    }
    return columns;
  }

  /** End (exclusive) of the run of rows starting at {@code start} whose ORDER BY keys are equal. */
  private static int endOfTie(List<List<Object>> rows, int start, int[] keyColumns) {
    int end = start + 1;
    while (end < rows.size() && keysMatch(rows.get(end), rows.get(start), keyColumns)) {
      end++;
    }
    return end;
  }

  private static boolean keysMatch(List<Object> row, List<Object> other, int[] keyColumns) {
    for (int column : keyColumns) {
      if (!ValueMatcher.matches(row.get(column), other.get(column))) {
        return false;
      }
    }
    return true;
  }

  /**
   * Compares rows [start, end) of both results as multisets: every actual row must match a distinct
   * expected row. Matching is greedy: exact for exact values, and inexact ones could only mislead it if two
   * expected rows lay within the DOUBLE tolerance of each other.
   */
  private Optional<String> compareGroup(QueryResult actual, QueryResult expected, int start, int end) {
    if (end - start == 1) {
      return compareRows(actual, expected, start, start);
    }
    List<Integer> unmatched = new ArrayList<>();
    for (int i = start; i < end; i++) {
      unmatched.add(i);
    }
    for (int a = start; a < end; a++) {
      List<Object> row = actual.rows().get(a);
      int match = -1;
      for (int k = 0; k < unmatched.size() && match < 0; k++) {
        if (rowsMatch(row, expected.rows().get(unmatched.get(k)))) {
          match = k;
        }
      }
      if (match < 0) {
        return Optional.of(name + ": actual row " + a + " matches no expected row among rows " + start + ".."
            + (end - 1) + " (" + (orderKeys.isEmpty() ? "unordered result" : "tied on " + orderKeys)
            + "); closest expected row: " + describeRows(actual, expected, a, closest(row, expected, unmatched)));
      }
      unmatched.remove(match);
    }
    return Optional.empty();
  }

  /**
   * The last tie of a result cut by its row limit (and the first of one cut by its offset) may legitimately hold
   * different tied rows in each engine, so there only the ORDER BY keys are compared.
   */
  private Optional<String> compareKeysOnly(QueryResult actual, QueryResult expected, int start, int end,
      int[] keyColumns) {
    for (int i = start; i < end; i++) {
      if (!keysMatch(actual.rows().get(i), expected.rows().get(start), keyColumns)) {
        return Optional.of(name + ": row " + i + " has other ORDER BY keys " + orderKeys
            + " than the tie cut by the row limit or offset; " + describeRows(actual, expected, i, start));
      }
    }
    return Optional.empty();
  }

  private Optional<String> compareRows(QueryResult actual, QueryResult expected, int a, int e) {
    return rowsMatch(actual.rows().get(a), expected.rows().get(e))
        ? Optional.empty()
        : Optional.of(name + ": row " + a + " differs; " + describeRows(actual, expected, a, e));
  }

  private static boolean rowsMatch(List<Object> actual, List<Object> expected) {
    for (int i = 0; i < expected.size(); i++) {
      if (!ValueMatcher.matches(actual.get(i), expected.get(i))) {
        return false;
      }
    }
    return true;
  }

  /** Index of the expected row, among {@code candidates}, that agrees with {@code row} in most columns. */
  private static int closest(List<Object> row, QueryResult expected, List<Integer> candidates) {
    int best = candidates.get(0);
    int bestAgreement = -1;
    for (int candidate : candidates) {
      List<Object> other = expected.rows().get(candidate);
      int agreement = 0;
      for (int i = 0; i < row.size(); i++) {
        agreement += ValueMatcher.matches(row.get(i), other.get(i)) ? 1 : 0;
      }
      if (agreement > bestAgreement) {
        best = candidate;
        bestAgreement = agreement;
      }
    }
    return best;
  }

  private static String firstPositionalDifference(QueryResult actual, QueryResult expected) {
    int common = Math.min(actual.rows().size(), expected.rows().size());
    for (int i = 0; i < common; i++) {
      if (!rowsMatch(actual.rows().get(i), expected.rows().get(i))) {
        return "first differing row " + i + ": " + describeRows(actual, expected, i, i);
      }
    }
    return common < actual.rows().size()
        ? "first extra actual row " + common + ": " + actual.rows().get(common)
        : common < expected.rows().size() ? "first missing expected row " + common + ": "
            + expected.rows().get(common) : "rows agree";
  }

  /** Both rows in full plus the first column in which they differ, with its values and their types. */
  private static String describeRows(QueryResult actual, QueryResult expected, int a, int e) {
    List<Object> actualRow = actual.rows().get(a);
    List<Object> expectedRow = expected.rows().get(e);
    String column = "no column differs";
    for (int i = 0; i < expectedRow.size(); i++) {
      if (!ValueMatcher.matches(actualRow.get(i), expectedRow.get(i))) {
        column = "column '" + expected.labels().get(i) + "': actual " + ValueMatcher.describe(actualRow.get(i))
            + ", expected " + ValueMatcher.describe(expectedRow.get(i));
        break;
      }
    }
    return column + "\n  actual   row " + a + ": " + actualRow + "\n  expected row " + e + ": " + expectedRow;
  }
}
