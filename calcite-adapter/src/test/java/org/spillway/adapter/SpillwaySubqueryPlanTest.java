package org.spillway.adapter;

import org.spillway.gpu.plan.RunContext;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.spillway.adapter.jdbc.SpillwayDriver;
import org.spillway.gpu.calibrate.MachineProfiles;
import org.spillway.tpch.ProgressListener;
import org.spillway.tpch.TpchGenerator;
import org.spillway.tpch.TpchQueries;

import java.nio.file.Path;
import java.sql.SQLException;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Pins the plans of TPC-H's decorrelated subqueries: the aggregates of Q2, Q17 and Q20 are computed over the
 * keys the outer query keeps (a semi join with the filtered {@code part} keys below the aggregate, by
 * {@link SpillwayMagicSetRule}), and Q13's LEFT join condition on {@code orders} alone filters {@code orders}
 * below the join, which runs in Spillway with no fallback.
 */
class SpillwaySubqueryPlanTest {
  @TempDir static Path dir;
  private static AutoCloseable profile;

  @BeforeAll static void generate() {
    profile = MachineProfiles.pin(MachineProfiles.uncalibrated());
    TpchGenerator.generate(dir, 0.001, 1, ProgressListener.NONE);
  }

  @AfterAll static void closeCatalogs() throws Exception {
    CatalogRegistry.close(dir);
    profile.close();
  }

  /**
   * Q15 reads its view twice (the suppliers' revenues, and their maximum in a scalar subquery); the two equal
   * aggregations over lineitem run once (SpillwayRel.Implementor shares them). Its answer is checked against
   * DuckDB's in the tests module.
   */
  @Test void q15ComputesItsViewOnce() throws Exception {
    String trace = traced(() -> assertEquals(1, SpillwayAssert.rows(
        SpillwayDriver.CONNECT_STRING_PREFIX + "dataDir=" + dir + ";device=cpu", TpchQueries.sql(15)).size()));
    long lineitemPipelines = trace.lines().filter(l -> l.contains("pipeline over SpillwayTable {lineitem}")).count();
    assertEquals(1, lineitemPipelines, trace);
    assertTrue(trace.contains("shared subtree computed once"), trace);
  }

  /** What the block writes to stderr with the engine's trace switched on. */
  private static String traced(ThrowingRunnable block) throws Exception {
    java.io.PrintStream err = System.err;
    java.io.ByteArrayOutputStream captured = new java.io.ByteArrayOutputStream();
    String before = System.getProperty(RunContext.TRACE_PROPERTY);
    System.setProperty(RunContext.TRACE_PROPERTY, "true");
    System.setErr(new java.io.PrintStream(captured, true, java.nio.charset.StandardCharsets.UTF_8));
    try {
      block.run();
    } finally {
      System.setErr(err);
      if (before == null) {
        System.clearProperty(RunContext.TRACE_PROPERTY);
      } else {
        System.setProperty(RunContext.TRACE_PROPERTY, before);
      }
    }
    return captured.toString(java.nio.charset.StandardCharsets.UTF_8);
  }

  private interface ThrowingRunnable {
    void run() throws Exception;
  }

  @Test void q17AveragesOnlyTheQuantitiesOfTheKeptParts() throws SQLException {
    assertPlanContains(17, "SpillwayAggregate(group=[{0}], agg#0=[$SUM0($1)], agg#1=[COUNT()])\n"
        + "  SpillwayJoin(condition=[=($0, $2)], joinType=[semi])\n"
        + "    SpillwayTableScan(table=[[spillway, lineitem]], fields=[[1, 4]])\n"
        + "    SpillwayFilter(condition=[AND(=($1, 'Brand#23'), =($2, 'MED BOX'))])\n"
        + "      SpillwayTableScan(table=[[spillway, part]], fields=[[0, 3, 6]])\n");
  }

  /**
   * The semi join with the kept parts sits on partsupp itself, below the joins with the European suppliers: it is
   * the more selective reduction, so the supplier joins see only the kept parts' rows. Its keys are the query's own
   * filtered parts, with their other columns ({@link SpillwaySharedBuildRows}): part is filtered once.
   */
  @Test void q2TakesTheMinimumCostOfTheKeptPartsOnly() throws SQLException {
    assertPlanContains(2, "SpillwayJoin(condition=[=($0, $3)], joinType=[semi])\n"
        + "  SpillwayTableScan(table=[[spillway, partsupp]], fields=[[0, 1, 3]])\n"
        + "  SpillwayFilter(condition=[AND(=($3, 15), LIKE($2, '%BRASS'))])\n"
        + "    SpillwayTableScan(table=[[spillway, part]], fields=[[0, 2, 4, 5]])\n");
    assertTrue(plan(2).contains("SpillwayAggregate(group=[{0}], EXPR$0=[MIN("), plan(2));
  }

  @Test void q20SumsTheShippedQuantitiesOfForestPartsOnly() throws SQLException {
    assertPlanContains(20, "SpillwayAggregate(group=[{0, 1}], agg#0=[$SUM0($2)])\n"
        + "  SpillwayJoin(condition=[=($0, $4)], joinType=[semi])\n"
        + "    SpillwayFilter(condition=[SEARCH($3, Sarg[[1994-01-01..1995-01-01)])])\n"
        + "      SpillwayTableScan(table=[[spillway, lineitem]], fields=[[1, 2, 4, 10]])\n"
        + "    SpillwayProject(p_partkey=[$0])\n"
        + "      SpillwayFilter(condition=[LIKE($1, 'forest%')])\n");
  }

  /**
   * Q22's NOT EXISTS is an anti-join ({@link SpillwayExistsJoinRule}) that reads orders' keys as they are (no
   * aggregate of all orders).
   */
  @Test void q22AntiJoinsOrdersWithoutRemovingDuplicatesFirst() throws SQLException {
    String plan = plan(22);
    assertPlanContains(22, "SpillwayTableScan(table=[[spillway, orders]], fields=[[1]])\n");
    assertFalse(plan.contains("SpillwayAggregate(group=[{0}])\n    SpillwayTableScan(table=[[spillway, orders]]"),
        plan);
    assertTrue(plan.contains("joinType=[anti]"), plan);
  }

  /**
   * Q21's EXISTS and NOT EXISTS, correlated by an equality and an inequality, are a semi and an anti join of the
   * outer rows with lineitem on the order key with the supplier inequality as residual ({@link
   * SpillwayExistsJoinRule}), as in DuckDB's plan: no aggregate over lineitem, no value generator. Both build on
   * the outer rows and mark them streaming lineitem, which one pass does for both ({@link SpillwayMarkJoins}): the
   * semi join's residual, and the anti join's with its filter of late line items.
   */
  /**
   * Q15 joins its revenue view with every supplier: a semi join of the view with all suppliers' keys reduces nothing
   * (every line item's supplier is one of them) and only adds a probe of the view's input.
   */
  @Test void q15DoesNotReduceItsViewByAllSuppliers() throws SQLException {
    String plan = plan(15);
    assertFalse(plan.contains("joinType=[semi]"), plan);
  }

  @Test void q21IsASemiAndAnAntiJoinWithResiduals() throws SQLException {
    assertPlanContains(21, "SpillwayMarkJoin(buildKeys=[[3]], probeKeys=[[0]], "
        + "joins=[[semi <>($12, $4), anti AND(<>($12, $4), >($14, $13))]])\n");
    // lineitem streams twice: joined with the late line items' suppliers, and marking them for both joins
    assertEquals(2, plan(21).split("table=\\[\\[spillway, lineitem]]").length - 1, plan(21));
    assertEquals(1, plan(21).split("SpillwayAggregate").length - 1, plan(21));
  }

  @Test void q13FiltersOrdersBelowItsLeftJoin() throws SQLException {
    String plan = plan(13);
    assertFalse(plan.contains("fallback="), plan);
    assertPlanContains(13, "SpillwayJoin(condition=[=($0, $1)], joinType=[left])\n"
        + "  SpillwayTableScan(table=[[spillway, customer]], fields=[[0]])\n"
        + "  SpillwayAggregate(group=[{1}], c_count=[COUNT($0)])\n"
        + "    SpillwayFilter(condition=[NOT(LIKE($2, '%special%requests%'))])\n");
  }

  /** Asserts that the plan, without the physical attributes and indentation-shifted to column 0, has the lines. */
  private static void assertPlanContains(int query, String lines) throws SQLException {
    String plan = plan(query);
    String indent = plan.lines().filter(l -> l.trim().startsWith(lines.lines().findFirst().orElseThrow().trim()))
        .map(l -> l.substring(0, l.indexOf(l.trim()))).findFirst().orElse(null);
    assertTrue(indent != null, () -> "plan of Q" + query + " lacks\n" + lines + "plan:\n" + plan);
    String shifted = lines.lines().map(l -> indent + l + "\n").reduce("", String::concat);
    assertTrue(plan.contains(shifted), () -> "plan of Q" + query + " lacks\n" + shifted + "plan:\n" + plan);
  }

  /** EXPLAIN of the query on the CPU, each line without the attributes of its device, variant and costs. */
  private static String plan(int query) throws SQLException {
    String url = SpillwayDriver.CONNECT_STRING_PREFIX + "dataDir=" + dir + ";device=cpu";
    String plan = String.join("\n", SpillwayAssert.rows(url, "explain plan for " + TpchQueries.sql(query)));
    return plan.replaceAll(", device=\\[cpu\\][^\n]*", ")") + "\n";
  }
}
