package org.spillway.tests.random;

import java.util.List;
import java.util.OptionalLong;
import java.util.Set;

/**
 * One generated query: its SQL, the seed that regenerates it, the output labels its ORDER BY names (all of them,
 * a total order over the output, or none: then it is compared as a multiset), its LIMIT, whether it has an OFFSET
 * and what it contains.
 */
record RandomQuery(long seed, String sql, List<String> orderKeys, OptionalLong limit, boolean offset,
    Set<Feature> features) {
  /** Constructs a query contains, which the generator's coverage test counts. */
  enum Feature {
    ORDER_BY,
    LIMIT,
    UNION_DISTINCT,
    /** Integer arithmetic whose result may leave its type: both engines must fail, or agree. */
    OVERFLOW,
    /** SUM of an INTEGER expression: DuckDB sums it as HUGEINT. */
    SUM_OF_INTEGER,
    /** AVG: a DOUBLE in both engines, summed in different orders. */
    AVG,
    /** A join on two key columns, the second of any kind (text, decimal, date, integer). */
    TWO_COLUMN_JOIN_KEY
  }

  @Override public String toString() {
    return "seed " + seed + ": " + sql;
  }
}
