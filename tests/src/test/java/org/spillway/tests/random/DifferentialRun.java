package org.spillway.tests.random;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import org.spillway.tests.QueryResult;
import org.spillway.tests.ResultComparator;

/**
 * Runs one generated query on Spillway and on DuckDB and says how they differ. An unordered result is compared
 * as a multiset: both are sorted by every column first, so that {@link ResultComparator} matches rows in runs
 * of equal rows instead of searching the whole result for each row.
 */
final class DifferentialRun {
  /** Seconds a query may run on either engine: a stuck query is a failure, not a hung build. */
  static final int QUERY_TIMEOUT_SECONDS = 60;

  /** What one engine did: a result or an error, and how long it took (planning, running and reading). */
  record Outcome(QueryResult result, SQLException error, long nanos) {
    boolean failed() {
      return error != null;
    }

    @Override public String toString() {
      return failed() ? "error: " + error.getMessage() : result.rows().size() + " rows";
    }
  }

  /** The verdict: the difference, if any, with both outcomes. */
  record Verdict(RandomQuery query, Outcome spillway, Outcome duckDb, Optional<String> difference) {
    boolean bothFailed() {
      return spillway.failed() && duckDb.failed();
    }
  }

  private DifferentialRun() {
  }

  static Verdict run(RandomQuery query, Connection spillway, Connection duckDb) {
    Outcome actual = execute(spillway, query.sql());
    Outcome expected = execute(duckDb, query.sql());
    if (actual.failed() || expected.failed()) {
      Optional<String> difference = actual.failed() && expected.failed() ? Optional.empty()
          : Optional.of("Spillway: " + actual + "; DuckDB: " + expected);
      return new Verdict(query, actual, expected, difference);
    }
    QueryResult a = actual.result();
    QueryResult e = expected.result();
    List<String> orderKeys = query.orderKeys();
    if (orderKeys.isEmpty()) {
      a = sorted(a);
      e = sorted(e);
      orderKeys = e.labels();
    }
    ResultComparator comparator = new ResultComparator("actual: Spillway, expected: DuckDB", orderKeys, query.limit(),
        query.offset());
    return new Verdict(query, actual, expected, comparator.compare(a, e));
  }

  static Outcome execute(Connection connection, String sql) {
    long start = System.nanoTime();
    try (Statement statement = connection.createStatement()) {
      statement.setQueryTimeout(QUERY_TIMEOUT_SECONDS);
      try (ResultSet resultSet = statement.executeQuery(sql)) {
        return new Outcome(QueryResult.read(resultSet), null, System.nanoTime() - start);
      }
    } catch (SQLException e) {
      return new Outcome(null, e, System.nanoTime() - start);
    }
  }

  private static QueryResult sorted(QueryResult result) {
    List<List<Object>> rows = new ArrayList<>(result.rows());
    rows.sort(ROWS);
    return new QueryResult(result.labels(), rows);
  }

  /** Column by column, NULL first; within one result a column's values share one normalised Java type. */
  @SuppressWarnings({"unchecked", "rawtypes"})
  private static final Comparator<List<Object>> ROWS = (x, y) -> {
    for (int i = 0; i < x.size(); i++) {
      Object a = x.get(i);
      Object b = y.get(i);
      int c = a == null || b == null ? Boolean.compare(a != null, b != null)
          : a.getClass() == b.getClass() ? ((Comparable) a).compareTo(b)
          : a.getClass().getName().compareTo(b.getClass().getName());
      if (c != 0) {
        return c;
      }
    }
    return 0;
  };
}
