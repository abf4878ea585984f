package org.spillway.tests.random;

import java.sql.SQLException;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.spillway.tests.TpchDataExtension;
import org.spillway.tests.TpchDataSet;

/** Thousands of random queries (mvn verify -Pslow), from a new seed each run unless one is given. */
@Tag("slow")
@ExtendWith(TpchDataExtension.class)
class RandomQueryDifferentialSlowTest {
  static final int QUERIES = 3000;

  @Test
  @Timeout(value = 7200, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
  void spillwayAgreesWithDuckDbOnThousandsOfQueries(TpchDataSet data) throws SQLException {
    long seed = Long.getLong("spillway.tests.randomSeed", System.currentTimeMillis() * 1000);
    RandomQueryDifferentialTest.check(data, seed, Integer.getInteger("spillway.tests.randomQueries", QUERIES));
  }
}
