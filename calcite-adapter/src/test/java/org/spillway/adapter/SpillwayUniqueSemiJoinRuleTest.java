package org.spillway.adapter;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.spillway.adapter.jdbc.SpillwayDriver;
import org.spillway.gpu.calibrate.MachineProfiles;
import org.spillway.storage.Catalog;
import org.spillway.storage.ColumnDef;
import org.spillway.storage.TableSchema;
import org.spillway.tpch.ProgressListener;
import org.spillway.tpch.TpchGenerator;
import org.spillway.tpch.TpchQueries;

import java.math.BigDecimal;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Plans and rows of {@link SpillwayUniqueSemiJoinRule}: a SEMI join with a condition beyond its keys whose right keys
 * are unique runs as an INNER join with that condition as a filter (TPC-H Q17; random tables with NULLs in the keys
 * and in the residual's columns, against Calcite's enumerable rows of the same question asked as a count); where the
 * right keys repeat, the SEMI join stays. On an assumed GPU site, the probe side's pipeline probes the INNER join
 * on the GPU.
 */
class SpillwayUniqueSemiJoinRuleTest {
  private static final long SEED = System.nanoTime();
  private static final int ROWS = 400;
  private static final int KEYS = 50;
  /** Q17 with MAX in place of AVG: its residual compares decimals, which a GPU pipeline computes (AVG is a DOUBLE). */
  private static final String Q17_MAX = TpchQueries.sql(17).replace("avg(l_quantity)", "max(l_quantity)");

  @TempDir static Path dir;
  private static Connection reference;
  private static AutoCloseable profile;

  @BeforeAll static void createTables() throws SQLException {
    profile = MachineProfiles.pin(MachineProfiles.uncalibrated());
    TpchGenerator.generate(tpch(), 0.001, 1, ProgressListener.NONE);
    Random random = new Random(SEED);
    TableSchema t = new TableSchema(List.of(ColumnDef.of("id", "INTEGER NOT NULL"), ColumnDef.of("k", "INTEGER"),
        ColumnDef.of("v", "INTEGER"), ColumnDef.of("w", "DECIMAL(10,2)")));
    TableSchema u = new TableSchema(List.of(ColumnDef.of("k", "INTEGER NOT NULL"), ColumnDef.of("v", "INTEGER"),
        ColumnDef.of("w", "DECIMAL(10,2)")));
    List<Object[]> tRows = new ArrayList<>();
    for (int r = 0; r < ROWS; r++) {
      // keys beyond KEYS meet no row of u
      tRows.add(new Object[] {r, maybeNull(random, random.nextInt(KEYS + 10)), maybeNull(random, random.nextInt(10)),
          maybeNull(random, BigDecimal.valueOf(random.nextInt(20001) - 10000, 2))});
    }
    List<Integer> keys = new ArrayList<>();
    for (int k = 0; k < KEYS; k++) {
      keys.add(k);
    }
    Collections.shuffle(keys, random);
    List<Object[]> uniqueRows = new ArrayList<>();  // each key once: a key of the catalog
    List<Object[]> repeatedRows = new ArrayList<>();  // each key twice, with other values
    for (int key : keys) {
      uniqueRows.add(uRow(random, key));
      repeatedRows.add(uRow(random, key));
      repeatedRows.add(uRow(random, key));
    }
    Catalog catalog = Catalog.create(random());
    CalciteReference.write(catalog, "t", t, tRows);
    CalciteReference.write(catalog, "u", u, uniqueRows);
    CalciteReference.write(catalog, "r", u, repeatedRows);
    catalog.close();
    reference = CalciteReference.connect(List.of("t", "u", "r"), List.of(t, u, u),
        List.of(tRows, uniqueRows, repeatedRows));
  }

  @AfterAll static void close() throws Exception {
    reference.close();
    CatalogRegistry.close(random());
    CatalogRegistry.close(tpch());
    profile.close();
  }

  /**
   * Q17's lineitem rows below a fifth of their part's average quantity: the parts (unique on p_partkey) joined with
   * the averages are the right input of a SEMI join whose residual compares the quantity with the average; it
   * becomes the INNER join on p_partkey that filters by the residual (the planner moves the filter into the join's
   * condition, which the probe's pipeline evaluates after it), whose lineitem columns the aggregate reads.
   */
  @Test void q17JoinsTheAveragesOfItsUniquePartsInner() throws SQLException {
    SpillwayAssert.Query q17 = SpillwayAssert.that(tpch()).query(TpchQueries.sql(17));
    q17.planShape("SpillwayToEnumerableConverter\n"
        + "  SpillwayProject\n"
        + "    SpillwayAggregate\n"
        + "      SpillwayJoin\n"
        + "        SpillwayTableScan\n"
        + "        SpillwayJoin\n"
        + "          SpillwayFilter\n"
        + "            SpillwayTableScan\n"
        + "          SpillwayProject\n"
        + "            SpillwayAggregate\n"
        + "              SpillwayJoin\n"
        + "                SpillwayTableScan\n"
        + "                SpillwayFilter\n"
        + "                  SpillwayTableScan\n");
    String plan = q17.plan();
    assertTrue(plan.contains("SpillwayJoin(condition=[AND(=($0, $3), <(CAST($1):DOUBLE NOT NULL, "
        + "*(0.2:DECIMAL(2, 1), $7)))], joinType=[inner], device=[cpu], algorithm=[cpu-nopa]"), plan);
    assertNoSemiJoinWithAResidual(plan);
  }

  /**
   * On a GPU, the lineitem pipeline of Q17's shape probes the parts and their maxima in GPU memory and filters there;
   * so does Q17 itself, whose residual compares DOUBLEs (a decimal cast to DOUBLE against a fifth of the average).
   */
  @Test void onAGpuTheLineitemPipelineProbesTheUniquePartsAndFilters() throws Exception {
    try (AutoCloseable gpu = SpillwayGpuSite.assume(AssumedGpuSite.h100(true))) {
      SpillwayAssert.that(tpch(), "device=gpu").query(Q17_MAX)
          .explainContains("SpillwayJoin(condition=[AND(=($0, $3), <(CAST($1):DECIMAL(17, 3) NOT NULL, "
              + "*(0.2:DECIMAL(2, 1), $7)))], joinType=[inner], device=[gpu], algorithm=[nopa], placement=[gpu], "
              + "probe=[in a gpu pipeline]")
          .explainContains("SpillwayTableScan(table=[[spillway, lineitem]], fields=[[1, 4, 5]], device=[gpu]");
      SpillwayAssert.that(tpch(), "device=gpu").query(TpchQueries.sql(17)).explainLacks("beyond key equality")
          .explainLacks("FLOAT64")
          .explainContains("SpillwayJoin(condition=[AND(=($0, $3), <(CAST($1):DOUBLE NOT NULL, "
              + "*(0.2:DECIMAL(2, 1), $7)))], joinType=[inner], device=[gpu], algorithm=[nopa], placement=[gpu], "
              + "probe=[in a gpu pipeline]");
    }
  }

  @Test void uniqueRightKeysJoinInner() throws SQLException {
    assertSame("select id, k from t where exists (select 1 from u where u.k = t.k and u.v < t.v) order by id",
        "select id, k from t where (select count(*) from u where u.k = t.k and u.v < t.v) > 0 order by id",
        "inner");
    assertSame("select count(*) as c, sum(w) as s from t where exists (select 1 from u where t.k = u.k "
        + "and t.w < u.w * 2 and u.v <> t.v)",
        "select count(*) as c, sum(w) as s from t where (select count(*) from u where t.k = u.k "
        + "and t.w < u.w * 2 and u.v <> t.v) > 0", "inner");
  }

  /** Keys that repeat: a row of t may meet several rows of r, so the rewrite would return it several times. */
  @Test void repeatedRightKeysKeepTheSemiJoin() throws SQLException {
    assertSame("select id, k from t where exists (select 1 from r where r.k = t.k and r.v < t.v) order by id",
        "select id, k from t where (select count(*) from r where r.k = t.k and r.v < t.v) > 0 order by id",
        "semi");
  }

  /**
   * Spillway's rows of {@code sql} equal the reference's rows of {@code counted}, and Spillway joins with a join of
   * type {@code joinType}: an INNER join leaves no SEMI join with a residual behind.
   */
  private static void assertSame(String sql, String counted, String joinType) throws SQLException {
    try (Connection spillway = DriverManager.getConnection(SpillwayDriver.CONNECT_STRING_PREFIX + "dataDir="
        + random() + ";device=cpu")) {
      String plan = String.join("\n", CalciteReference.rows(spillway, "explain plan for " + sql).get(0)
          .stream().map(String::valueOf).toList());
      String where = sql + " (seed " + SEED + ") plan:\n" + plan;
      assertTrue(plan.contains("SpillwayJoin(") && plan.contains("joinType=[" + joinType + "]"), where);
      assertFalse(plan.contains("fallback="), where);
      if (joinType.equals("inner")) {
        assertFalse(plan.contains("joinType=[semi]"), where);
      }
      List<List<Object>> actual = CalciteReference.rows(spillway, sql);
      List<List<Object>> expected = CalciteReference.rows(reference, counted);
      assertNull(CalciteReference.difference(actual, expected), () -> where + "\nagainst " + counted + ": "
          + CalciteReference.difference(actual, expected));
    }
  }

  private static void assertNoSemiJoinWithAResidual(String plan) {
    for (String line : plan.split("\n")) {
      assertFalse(line.contains("joinType=[semi]") && line.contains("condition=[AND("), () -> "in\n" + plan);
    }
  }

  private static Object[] uRow(Random random, int key) {
    return new Object[] {key, maybeNull(random, random.nextInt(10)),
        maybeNull(random, BigDecimal.valueOf(random.nextInt(20001) - 10000, 2))};
  }

  private static Object maybeNull(Random random, Object value) {
    return random.nextInt(8) == 0 ? null : value;
  }

  private static Path tpch() {
    return dir.resolve("tpch");
  }

  private static Path random() {
    return dir.resolve("random");
  }
}
