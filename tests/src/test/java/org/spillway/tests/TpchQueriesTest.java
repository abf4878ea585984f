package org.spillway.tests;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.OptionalLong;
import java.util.Set;
import java.util.stream.IntStream;
import org.apache.calcite.sql.parser.SqlParser;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.spillway.tpch.TpchQueries;

/** The TPC-H query texts: Calcite's default parser accepts them, and order and limits read from them right. */
class TpchQueriesTest {
  /** The queries whose specification text has no ORDER BY. */
  private static final Set<Integer> UNORDERED = Set.of(6, 14, 17, 19);

  static IntStream queryNumbers() {
    return IntStream.rangeClosed(1, TpchQueries.COUNT);
  }

  @ParameterizedTest(name = "Q{0}")
  @MethodSource("queryNumbers")
  void parsesWithCalciteDefaultConformance(int query) {
    String sql = TpchQueries.sql(query);
    assertFalse(sql.endsWith(";"), "one statement without a trailing semicolon");
    assertDoesNotThrow(() -> SqlParser.create(sql).parseQuery(), () -> "Q" + query + " does not parse");
  }

  @ParameterizedTest(name = "Q{0}")
  @MethodSource("queryNumbers")
  void orderIsDerivedFromOuterOrderBy(int query) {
    assertEquals(!UNORDERED.contains(query), TpchQueries.isOrdered(query));
  }

  @Test
  void orderKeysAreResultLabelsWithoutDirection() {
    assertEquals(List.of("s_acctbal", "n_name", "s_name", "p_partkey"), TpchQueries.orderByColumns(2));
    assertEquals(List.of("value"), TpchQueries.orderByColumns(11));
    assertEquals(List.of("s_suppkey"), TpchQueries.orderByColumns(15), "the WITH clause is not the outer query");
  }

  @Test
  void rowLimitsAreTheSpecificationsLimits() {
    assertEquals(OptionalLong.of(100), TpchQueries.rowLimit(2));
    assertEquals(OptionalLong.of(10), TpchQueries.rowLimit(3));
    assertEquals(OptionalLong.of(20), TpchQueries.rowLimit(10));
    assertEquals(OptionalLong.of(100), TpchQueries.rowLimit(18));
    assertEquals(OptionalLong.of(100), TpchQueries.rowLimit(21));
    assertEquals(5, queryNumbers().filter(n -> TpchQueries.rowLimit(n).isPresent()).count());
  }

  /** The specification's Q11 FRACTION is 0.0001 / SF; every other query's text is the same at any scale. */
  @Test
  void q11sFractionScalesWithTheScaleFactor() {
    assertTrue(TpchQueries.sql(11, 1).contains("* 0.0001\n"), TpchQueries.sql(11, 1));
    assertTrue(TpchQueries.sql(11, 10).contains("* 0.00001\n"), TpchQueries.sql(11, 10));
    assertTrue(TpchQueries.sql(11, 30).contains("* 0.0000033333\n"), TpchQueries.sql(11, 30));
    assertTrue(TpchQueries.sql(11, 0.01).contains("* 0.01\n"), TpchQueries.sql(11, 0.01));
    assertFalse(TpchQueries.sql(11, 10).contains("0.0001\n"));
    assertDoesNotThrow(() -> SqlParser.create(TpchQueries.sql(11, 30)).parseQuery());
    for (int n = 1; n <= TpchQueries.COUNT; n++) {
      if (n != 11) {
        assertEquals(TpchQueries.sql(n), TpchQueries.sql(n, 10));
      }
    }
    assertThrows(IllegalArgumentException.class, () -> TpchQueries.sql(11, 0));
  }

  @Test
  void queryNumberOutOfRangeIsRejected() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> TpchQueries.sql(23));
    assertTrue(e.getMessage().contains("23"), e.getMessage());
    assertThrows(IllegalArgumentException.class, () -> TpchQueries.sql(0));
  }
}
