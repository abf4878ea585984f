package org.spillway.adapter;

import org.apache.calcite.plan.RelTraitSet;
import org.apache.calcite.rel.RelCollation;
import org.apache.calcite.rel.RelCollationTraitDef;
import org.apache.calcite.rel.RelCollations;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.RelRoot;
import org.apache.calcite.runtime.Hook;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.io.TempDir;
import org.spillway.adapter.jdbc.SpillwayDriver;
import org.spillway.tpch.ProgressListener;
import org.spillway.tpch.TpchGenerator;

import java.nio.file.Path;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.function.Consumer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * No Spillway node claims an order it does not produce: every Spillway rule used to copy the logical node's
 * traits, collation included, so the planner took e.g. a project under ORDER BY for sorted and dropped the sort
 * (issue #12: {@code ORDER BY a DESC LIMIT 1} returned the first row scanned). Each query sorts descending, against
 * the scan order, above one kind of Spillway node; its rows must be those of the unsorted query sorted here, and
 * no Spillway node of its final plan may carry a collation but a {@link SpillwaySort} and the filters and projects
 * over it (which keep its order).
 */
class SpillwayCollationTest {
  @TempDir static Path dir;

  @BeforeAll static void generate() {
    TpchGenerator.generate(dir, 0.001, 1, ProgressListener.NONE);
  }

  @AfterAll static void closeCatalogs() {
    CatalogRegistry.close(dir);
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(delimiter = '|', value = {
      "scan | SELECT n_nationkey AS a FROM nation",
      "project (issue's repro) | SELECT n_nationkey AS a, n_nationkey AS b FROM nation WHERE n_nationkey < 3",
      "filter | SELECT n_nationkey AS a, n_name FROM nation WHERE n_regionkey < 3",
      "aggregate | SELECT n_regionkey AS a, COUNT(*) AS c FROM nation GROUP BY n_regionkey",
      "filter over aggregate (issue's repro) | SELECT s_suppkey AS a, SUM(s_nationkey) AS s FROM supplier "
          + "GROUP BY s_suppkey HAVING MIN(s_suppkey) < 23",
      "aggregate with FILTER | SELECT o_custkey AS a, COUNT(*) FILTER (WHERE o_totalprice > 1000) AS c "
          + "FROM orders GROUP BY o_custkey",
      "join | SELECT n_nationkey AS a, r_name FROM nation JOIN region ON n_regionkey = r_regionkey",
      "join with residual | SELECT o_orderkey AS a, c_name FROM orders JOIN customer ON o_custkey = c_custkey "
          + "AND o_totalprice > c_acctbal",
  })
  void sortAboveEveryNodeKind(String node, String sql) throws SQLException {
    String url = SpillwayDriver.CONNECT_STRING_PREFIX + "dataDir=" + dir + ";device=cpu";
    List<String> all = SpillwayAssert.rows(url, sql);
    List<String> expected = new ArrayList<>(all);
    expected.sort(Comparator.comparingLong(SpillwayCollationTest::firstColumn).reversed());
    expected = expected.subList(0, Math.min(3, expected.size()));
    List<RelNode> spillwayNodes = new ArrayList<>();
    List<String> actual;
    try (Hook.Closeable hook = Hook.PLAN_BEFORE_IMPLEMENTATION.addThread(
        (Consumer<RelRoot>) root -> collectSpillway(root.rel, spillwayNodes))) {
      actual = SpillwayAssert.rows(url, "SELECT * FROM (" + sql + ") AS q ORDER BY a DESC LIMIT 3");
    }
    assertEquals(expected, actual, node);
    assertFalse(spillwayNodes.isEmpty(), "the query runs no Spillway node");
    for (RelNode rel : spillwayNodes) {
      RelTraitSet traits = rel.getTraitSet();
      assertTrue(!ordered(rel) || rel instanceof SpillwaySort
          || (rel instanceof SpillwayFilter || rel instanceof SpillwayProject) && ordered(rel.getInput(0)),
          () -> rel.getRelTypeName() + " claims " + traits + " in " + node);
    }
  }

  /**
   * ORDER BY without LIMIT over a project that repeats a column: a project once claimed the order its logical node's
   * traits carried (the ORDER BY above it) over an unordered join, and the planner dropped the sort.
   */
  @Test void sortOverAProjectOfARepeatedColumnIsKept() throws SQLException {
    String url = SpillwayDriver.CONNECT_STRING_PREFIX + "dataDir=" + dir + ";device=cpu";
    String sql = "SELECT o_orderkey AS a, o_orderkey AS b, c_name FROM orders JOIN customer ON o_custkey = c_custkey";
    List<String> expected = new ArrayList<>(SpillwayAssert.rows(url, sql));
    expected.sort(Comparator.comparingLong(SpillwayCollationTest::firstColumn).reversed());
    assertEquals(expected, SpillwayAssert.rows(url, sql + " ORDER BY a DESC NULLS LAST, b ASC NULLS FIRST"));
    String plan = String.join("\n", SpillwayAssert.rows(url, "EXPLAIN PLAN FOR " + sql
        + " ORDER BY a DESC NULLS LAST, b ASC NULLS FIRST"));
    assertTrue(plan.contains("SpillwaySort("), plan);
  }

  /** Whether a node claims an order: only a sort may, or a filter or project over an ordered node. */
  private static boolean ordered(RelNode rel) {
    RelCollation collation = rel.getTraitSet().getTrait(RelCollationTraitDef.INSTANCE);
    return collation != null && !collation.equals(RelCollations.EMPTY);
  }

  private static long firstColumn(String row) {
    return Long.parseLong(row.split(" \\| ")[0]);
  }

  private static void collectSpillway(RelNode rel, List<RelNode> out) {
    if (rel instanceof SpillwayRel) {
      out.add(rel);
    }
    rel.getInputs().forEach(input -> collectSpillway(input, out));
  }
}
