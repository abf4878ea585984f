package org.spillway.tests;

import static org.junit.jupiter.api.Assertions.fail;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.OptionalLong;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * EXTRACT(YEAR ...) compared with a year no calendar date has: Calcite's FilterDateRangeRule failed to plan
 * such a filter ("Error while applying rule FilterDateRangeRule", found by the random differential test, seeds
 * 4242342 and 4242349). Spillway against DuckDB.
 */
@ExtendWith(TpchDataExtension.class)
class DateRangeTest {
  @ParameterizedTest
  @ValueSource(strings = {
      "SELECT COUNT(*) AS c FROM orders WHERE EXTRACT(YEAR FROM o_orderdate) = 60000",
      "SELECT COUNT(*) AS c FROM orders WHERE EXTRACT(YEAR FROM o_orderdate) > 60001",
      "SELECT COUNT(*) AS c FROM orders WHERE EXTRACT(YEAR FROM o_orderdate) < 10000",
      "SELECT COUNT(*) AS c FROM orders WHERE EXTRACT(YEAR FROM o_orderdate) >= -5",
      "SELECT COUNT(*) AS c FROM orders WHERE EXTRACT(YEAR FROM o_orderdate) IN (1995, 60000)",
      "SELECT COUNT(*) AS c FROM orders WHERE EXTRACT(YEAR FROM o_orderdate) = 1995"})
  void yearsBeyondTheCalendarMatchDuckDb(String sql, TpchDataSet data) throws SQLException {
    QueryResult actual = run(data.spillway(), sql);
    QueryResult expected = run(data.duckDb(), sql);
    new ResultComparator(sql, List.of(), OptionalLong.empty()).compare(actual, expected).ifPresent(d -> fail(d));
  }

  private static QueryResult run(Connection connection, String sql) throws SQLException {
    try (Statement statement = connection.createStatement(); ResultSet resultSet = statement.executeQuery(sql)) {
      return QueryResult.read(resultSet);
    }
  }
}
