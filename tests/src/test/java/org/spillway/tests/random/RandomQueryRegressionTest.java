package org.spillway.tests.random;

import java.sql.SQLException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.spillway.tests.TpchDataExtension;
import org.spillway.tests.TpchDataSet;

/**
 * Queries the slow random differential test once failed on, each replayed from its own seed against DuckDB (see
 * {@link RandomQueryGenerator} for the SQL a seed makes).
 */
@ExtendWith(TpchDataExtension.class)
class RandomQueryRegressionTest {
  /**
   * NOT IN over a CASE beside a LEFT join and a scalar sub-query: the planner's memo for it is large, and finding
   * a node's Spillway fields searched every path through it (exponential), which ran past the 60 s limit.
   */
  @Test
  @Timeout(value = 120, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
  void notInOverACaseBesideALeftJoinPlansQuickly(TpchDataSet data) throws SQLException {
    RandomQueryDifferentialTest.check(data, 1795637903725338L, 1);
  }
}
