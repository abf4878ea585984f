package org.spillway.tests.random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.EnumSet;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.spillway.tests.random.RandomQuery.Feature;

/** The generator is reproducible and reaches every construct the differential test is meant to cover. */
class RandomQueryGeneratorTest {
  @Test void sameSeedSameQuery() {
    for (long seed = 0; seed < 50; seed++) {
      assertEquals(RandomQueryGenerator.generate(seed).sql(), RandomQueryGenerator.generate(seed).sql());
    }
  }

  @Test void coversTheIssuesConstructs() {
    Set<Feature> features = EnumSet.noneOf(Feature.class);
    StringBuilder all = new StringBuilder();
    for (long seed = RandomQueryDifferentialTest.CI_SEED; seed < RandomQueryDifferentialTest.CI_SEED
        + RandomQueryDifferentialTest.CI_QUERIES; seed++) {
      RandomQuery query = RandomQueryGenerator.generate(seed);
      features.addAll(query.features());
      all.append(query.sql()).append('\n');
    }
    assertEquals(EnumSet.allOf(Feature.class), features);
    for (String construct : new String[] {" JOIN ", " LEFT JOIN ", " IN (SELECT", " NOT IN (SELECT", " EXISTS (",
        "NOT EXISTS (", "UNION ALL", " UNION SELECT", " INTERSECT ", " EXCEPT ", " GROUP BY ", " HAVING ",
        " LIMIT ", " OFFSET ", "CASE WHEN", " IS NULL", "NULLIF(", " END FROM ", "(SELECT MIN(", "COUNT(DISTINCT"}) {
      assertTrue(all.indexOf(construct) >= 0, "the CI seed's queries never contain " + construct);
    }
  }
}
