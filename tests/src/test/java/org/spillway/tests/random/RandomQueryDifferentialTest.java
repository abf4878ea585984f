package org.spillway.tests.random;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.spillway.tests.TpchDataExtension;
import org.spillway.tests.TpchDataSet;

/**
 * Random queries (see {@link RandomQueryGenerator}) on Spillway's CPU backend against DuckDB over TPC-H: a fixed
 * seed in CI. {@code -Dspillway.tests.randomSeed=S -Dspillway.tests.randomQueries=N} runs the N queries from seed S
 * (a failure prints each query's own seed, which with N = 1 runs just that query).
 */
@ExtendWith(TpchDataExtension.class)
class RandomQueryDifferentialTest {
  static final long CI_SEED = 20_261_125_000L;
  static final int CI_QUERIES = 180;

  @Test
  @Timeout(value = 600, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
  void spillwayAgreesWithDuckDb(TpchDataSet data) throws SQLException {
    long seed = Long.getLong("spillway.tests.randomSeed", CI_SEED);
    int queries = Integer.getInteger("spillway.tests.randomQueries", CI_QUERIES);
    DifferentialReport report = check(data, seed, queries);
    if (seed == CI_SEED && queries == CI_QUERIES) {
      assertTrue(report.emptyResults() >= 10, "the CI seed must reach empty inputs: " + report.summary());
    }
  }

  /** Runs {@code queries} queries from {@code seed} and fails with every unexplained difference. */
  static DifferentialReport check(TpchDataSet data, long seed, int queries) throws SQLException {
    try (Connection spillway = DriverManager.getConnection(data.spillwayUrl() + ";device=cpu")) {
      DifferentialReport report = new DifferentialReport(seed);
      for (int i = 0; i < queries; i++) {
        RandomQuery query = RandomQueryGenerator.generate(seed + i);
        report.add(DifferentialRun.run(query, spillway, data.duckDb()));
      }
      System.out.println(report.summary());
      report.failures().ifPresent(failures -> fail(failures));
      return report;
    }
  }
}
