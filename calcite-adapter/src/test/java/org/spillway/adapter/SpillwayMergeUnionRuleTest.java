package org.spillway.adapter;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.spillway.adapter.jdbc.SpillwayDriver;
import org.spillway.tpch.ProgressListener;
import org.spillway.tpch.TpchGenerator;

import java.nio.file.Path;
import java.sql.SQLException;
import java.util.List;
import java.util.TreeSet;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A LIMIT above a sorted UNION is not pushed into the inputs of a distinct UNION (Calcite's
 * EnumerableMergeUnionRule did, so that the five rows asked for de-duplicated into two: issue #12), and still is
 * into those of UNION ALL.
 */
class SpillwayMergeUnionRuleTest {
  private static final String UNION = "SELECT l_linenumber AS c0 FROM lineitem WHERE l_orderkey < 10 %s "
      + "SELECT l_linenumber FROM lineitem WHERE l_orderkey < 5";

  @TempDir static Path dir;

  @BeforeAll static void generate() {
    TpchGenerator.generate(dir, 0.001, 1, ProgressListener.NONE);
  }

  @AfterAll static void closeCatalogs() {
    CatalogRegistry.close(dir);
  }

  @Test void limitAboveDistinctUnionCountsDistinctRows() throws SQLException {
    String union = String.format(UNION, "UNION");
    // the expected rows: the union's distinct values, sorted here, the first five
    List<String> expected = new TreeSet<>(SpillwayAssert.rows(url(), union).stream().map(Integer::valueOf).toList())
        .stream().limit(5).map(String::valueOf).toList();
    assertEquals(5, expected.size(), "the data should hold at least five line numbers");
    assertEquals(expected, SpillwayAssert.rows(url(), "SELECT * FROM (" + union + ") AS u ORDER BY c0 LIMIT 5"));
    SpillwayAssert.that(dir)
        .query("SELECT * FROM (" + union + ") AS u ORDER BY c0 LIMIT 5")
        // the inputs may be sorted and merged, but the fetch stays above the de-duplication
        .explainLacks("variant=[top-n]")
        .explainLacks("EnumerableMergeUnion(all=[false])\n    EnumerableLimit");
  }

  @Test void limitAboveUnionAllStillMergesLimitedInputs() throws SQLException {
    String union = String.format(UNION, "UNION ALL");
    List<String> expected = SpillwayAssert.rows(url(), union).stream().map(Integer::valueOf).sorted().limit(5)
        .map(String::valueOf).toList();
    assertEquals(expected, SpillwayAssert.rows(url(), "SELECT * FROM (" + union + ") AS u ORDER BY c0 LIMIT 5"));
    SpillwayAssert.that(dir)
        .query("SELECT * FROM (" + union + ") AS u ORDER BY c0 LIMIT 5")
        .explainContains("EnumerableMergeUnion(all=[true])");
  }

  private static String url() {
    return SpillwayDriver.CONNECT_STRING_PREFIX + "dataDir=" + dir + ";device=cpu";
  }
}
