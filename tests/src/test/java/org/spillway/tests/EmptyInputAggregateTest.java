package org.spillway.tests;

import static org.junit.jupiter.api.Assertions.fail;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.OptionalLong;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Issue #12 item 6: aggregates of projections over a filter that selects nothing failed with "Index 2 out of
 * bounds for length 2" (the CPU pipeline skipped the projection of an empty morsel). Spillway against DuckDB.
 */
@ExtendWith(TpchDataExtension.class)
class EmptyInputAggregateTest {
  @ParameterizedTest
  @ValueSource(strings = {
      "SELECT n_regionkey AS k, SUM(n_nationkey + 1) AS s1, SUM(n_nationkey + 2) AS s2 FROM nation"
          + " WHERE n_nationkey < 0 GROUP BY n_regionkey",
      "SELECT SUM(n_nationkey + 1) AS s1, SUM(n_nationkey + 2) AS s2, COUNT(*) AS c FROM nation WHERE n_nationkey < 0",
      "SELECT l_returnflag AS f, SUM(l_quantity * 2) AS s, MAX(l_discount + l_tax) AS m, COUNT(*) AS c FROM lineitem"
          + " WHERE l_shipdate > DATE '2000-01-01' GROUP BY l_returnflag",
      "SELECT COUNT(*) AS n, SUM(c) AS s FROM (SELECT n_regionkey, COUNT(*) + 1 AS c FROM nation"
          + " WHERE n_nationkey < 0 GROUP BY n_regionkey) AS g"})
  void aggregateOverNoRowsMatchesDuckDb(String sql, TpchDataSet data) throws SQLException {
    try (Connection spillway = DriverManager.getConnection(data.spillwayUrl() + ";device=cpu")) {
      QueryResult actual = run(spillway, sql);
      QueryResult expected = run(data.duckDb(), sql);
      new ResultComparator(sql, List.of(), OptionalLong.empty()).compare(actual, expected).ifPresent(d -> fail(d));
    }
  }

  private static QueryResult run(Connection connection, String sql) throws SQLException {
    try (Statement statement = connection.createStatement(); ResultSet resultSet = statement.executeQuery(sql)) {
      return QueryResult.read(resultSet);
    }
  }
}
