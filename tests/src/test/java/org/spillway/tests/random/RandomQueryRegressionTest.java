package org.spillway.tests.random;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.spillway.tests.TpchDataExtension;
import org.spillway.tests.TpchDataSet;

/**
 * Queries the slow random differential test once failed on, each replayed from its own seed against DuckDB (see
 * {@link RandomQueryGenerator} for the SQL a seed makes), and the plainest queries of the same causes.
 */
@ExtendWith(TpchDataExtension.class)
@Timeout(value = 120, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class RandomQueryRegressionTest {
  /**
   * NOT IN over a CASE beside a LEFT join and a scalar sub-query: the planner's memo for it is large, and finding
   * a node's Spillway fields searched every path through it (exponential), which ran past the 60 s limit.
   */
  @Test
  void notInOverACaseBesideALeftJoinPlansQuickly(TpchDataSet data) throws SQLException {
    RandomQueryDifferentialTest.check(data, 1795637903725338L, 1);
  }

  /**
   * MIN(CASE) over a LEFT join filtered by {@code EXTRACT(...) IS NOT NULL}: the filter makes the join inner, and
   * Calcite's rule for that kept nullable types over NOT NULL columns, which failed a simplifier assertion.
   */
  @Test
  void outerJoinMadeInnerByItsFilter(TpchDataSet data) throws SQLException {
    RandomQueryDifferentialTest.check(data, 1795637903726223L, 1);
    assertSame(data, "SELECT MIN(l.l_shipdate) AS c0, COUNT(*) AS c1 FROM supplier s LEFT JOIN lineitem l "
        + "ON s.s_suppkey = l.l_suppkey WHERE EXTRACT(YEAR FROM l.l_shipdate) + 1 IS NOT NULL");
  }

  /**
   * NOT EXISTS correlated with one side of a join of which nothing else is used (its condition {@code s_name <
   * s_name} is FALSE; or a cross join): trimming gave that side a dummy column, over which Calcite's trimmer
   * failed to retype the correlation variable.
   */
  @Test
  void notExistsOverAJoinSideOfWhichNothingIsUsed(TpchDataSet data) throws SQLException {
    RandomQueryDifferentialTest.check(data, 1795637903725089L, 1);
    assertSame(data, "SELECT s.s_acctbal AS c0 FROM nation n CROSS JOIN supplier s WHERE NOT EXISTS "
        + "(SELECT 1 FROM nation n2 WHERE n2.n_nationkey = s.s_nationkey AND n2.n_name LIKE '%A%')");
  }

  /** Spillway's rows equal DuckDB's, compared as a multiset. */
  private static void assertSame(TpchDataSet data, String sql) throws SQLException {
    RandomQuery query = new RandomQuery(0, sql, List.of(), OptionalLong.empty(), false, Set.of());
    try (Connection spillway = DriverManager.getConnection(data.spillwayUrl() + ";device=cpu")) {
      DifferentialRun.Verdict verdict = DifferentialRun.run(query, spillway, data.duckDb());
      assertEquals(Optional.empty(), verdict.difference(), sql);
    }
  }
}
