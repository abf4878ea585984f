package org.spillway.tests;

import static org.junit.jupiter.api.Assertions.fail;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.stream.IntStream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.spillway.tpch.TpchQueries;

/** Differential test: each TPC-H query through {@code jdbc:spillway:} must return what DuckDB returns. */
@ExtendWith(TpchDataExtension.class)
class TpchOracleTest {
  private static TpchDataSet data;

  @BeforeAll
  static void connect(TpchDataSet dataSet) {
    data = dataSet;
  }

  static IntStream queryNumbers() {
    return IntStream.rangeClosed(1, TpchQueries.COUNT);
  }

  // A separate thread, so that a query stuck in the engine fails its own test instead of hanging the run.
  @ParameterizedTest(name = "Q{0}")
  @MethodSource("queryNumbers")
  @Timeout(value = 180, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
  void matchesDuckDb(int query) throws SQLException {
    String sql = TpchQueries.sql(query);
    QueryResult expected = run("DuckDB", data.duckDb(), query, sql);
    QueryResult actual = run("Spillway", data.spillway(), query, sql);
    new ResultComparator("Q" + query + " (actual: Spillway, expected: DuckDB)",
        TpchQueries.orderByColumns(query), TpchQueries.rowLimit(query))
        .compare(actual, expected)
        .ifPresent(difference -> fail(difference));
  }

  private static QueryResult run(String engine, Connection connection, int query, String sql) {
    try (Statement statement = connection.createStatement();
         ResultSet resultSet = statement.executeQuery(sql)) {
      return QueryResult.read(resultSet);
    } catch (SQLException e) {
      throw new AssertionError("Q" + query + " failed on " + engine + ": " + e.getMessage(), e);
    }
  }
}
