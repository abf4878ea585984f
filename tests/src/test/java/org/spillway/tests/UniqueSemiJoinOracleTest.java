package org.spillway.tests;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.OptionalLong;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.spillway.tpch.TpchQueries;

/**
 * TPC-H Q17's shape with rows to compare: at the test scale no line of Q17's few parts passes its residual (its
 * answer is NULL on both engines), so these variants select all parts of the brand. Their SEMI join of lineitem with
 * the parts and the per-part quantities, whose residual compares each line's quantity with its part's, is an INNER
 * join on the unique part key filtered by the residual (SpillwayUniqueSemiJoinRule); Spillway must return what
 * DuckDB returns.
 */
@ExtendWith(TpchDataExtension.class)
class UniqueSemiJoinOracleTest {
  private static final String BRAND = TpchQueries.sql(17).replace("  and p_container = 'MED BOX'\n", "");
  private static TpchDataSet data;

  @BeforeAll static void connect(TpchDataSet dataSet) {
    data = dataSet;
  }

  static Stream<String> queries() {
    String byFlag = "select l_returnflag, sum(l_extendedprice) as price, count(*) as n from lineitem, part "
        + "where p_partkey = l_partkey and p_brand = 'Brand#23' and l_quantity < (select 0.2 * %s(l_quantity) "
        + "from lineitem where l_partkey = p_partkey) group by l_returnflag order by l_returnflag";
    return Stream.of(BRAND, String.format(byFlag, "avg"), String.format(byFlag, "max"));
  }

  @ParameterizedTest
  @MethodSource("queries")
  void matchesDuckDb(String sql) throws SQLException {
    String plan = String.join("\n", rows(data.spillway(), "explain plan for " + sql).rows().get(0).stream()
        .map(String::valueOf).toList());
    assertTrue(plan.contains("joinType=[inner]"), plan);
    for (String line : plan.split("\n")) {
      assertFalse(line.contains("joinType=[semi]") && line.contains("condition=[AND("), "a semi join's residual in\n"
          + plan);
    }
    QueryResult actual = rows(data.spillway(), sql);
    assertFalse(actual.rows().isEmpty() || actual.rows().get(0).contains(null), "no line passed the residual");
    List<String> order = sql.contains("order by") ? List.of("l_returnflag") : List.of();
    new ResultComparator(sql, order, OptionalLong.empty()).compare(actual, rows(data.duckDb(), sql))
        .ifPresent(difference -> fail(difference));
  }

  private static QueryResult rows(Connection connection, String sql) throws SQLException {
    try (Statement s = connection.createStatement(); ResultSet rs = s.executeQuery(sql)) {
      return QueryResult.read(rs);
    }
  }
}
