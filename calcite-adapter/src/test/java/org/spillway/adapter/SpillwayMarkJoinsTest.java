package org.spillway.adapter;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.spillway.adapter.jdbc.SpillwayDriver;
import org.spillway.storage.Catalog;
import org.spillway.storage.ColumnDef;
import org.spillway.storage.ColumnType;
import org.spillway.storage.TableSchema;

import java.math.BigDecimal;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Semi- and anti-joins stacked on a small outer table, each built on it and marked by streaming the large inner
 * table, run as one {@link SpillwayMarkJoin} that scans the inner table once ({@link SpillwayMarkJoins}), and
 * return what they return stacked: random rows with NULLs in keys, residual and filter columns (seed in every
 * message), against Calcite's enumerable code counting the matching rows instead.
 */
class SpillwayMarkJoinsTest {
  private static final long SEED = System.nanoTime();
  private static final int OUTER_ROWS = 300;
  private static final int INNER_ROWS = 30_000;

  @TempDir static Path dir;
  private static Connection reference;

  @BeforeAll static void createTables() throws SQLException {
    Random random = new Random(SEED);
    TableSchema t = new TableSchema(List.of(new ColumnDef("id", ColumnType.integer().notNull()),
        new ColumnDef("k", ColumnType.integer()), new ColumnDef("v", ColumnType.integer())));
    TableSchema u = new TableSchema(List.of(new ColumnDef("k", ColumnType.integer()),
        new ColumnDef("v", ColumnType.integer()), new ColumnDef("w", ColumnType.decimal(10, 2)),
        new ColumnDef("x", ColumnType.integer())));
    List<Object[]> tRows = new ArrayList<>();
    List<Object[]> uRows = new ArrayList<>();
    for (int r = 0; r < OUTER_ROWS; r++) {
      tRows.add(new Object[] {r, maybeNull(random, random.nextInt(20_000)), maybeNull(random, random.nextInt(4))});
    }
    for (int r = 0; r < INNER_ROWS; r++) {
      uRows.add(new Object[] {maybeNull(random, random.nextInt(20_000)), maybeNull(random, random.nextInt(4)),
          maybeNull(random, BigDecimal.valueOf(random.nextInt(2001) - 1000, 2)), maybeNull(random, random.nextInt(9))});
    }
    Catalog catalog = Catalog.create(dir);
    CalciteReference.write(catalog, "t", t, tRows);
    CalciteReference.write(catalog, "u", u, uRows);
    catalog.close();
    reference = CalciteReference.connect(List.of("t", "u"), List.of(t, u), List.of(tRows, uRows));
  }

  @AfterAll static void close() throws SQLException {
    reference.close();
    CatalogRegistry.close(dir);
  }

  /** TPC-H Q21's shape: EXISTS with a residual, NOT EXISTS with the same residual and a filter of the inner table. */
  @Test void existsAndNotExistsOverOneTableMarkInOnePass() throws SQLException {
    assertSame("select id from t where exists (select * from u where u.k = t.k and u.v <> t.v) "
        + "and not exists (select * from u where u.k = t.k and u.v <> t.v and u.w > 0) order by id",
        "select id from t where (select count(*) from u where u.k = t.k and u.v <> t.v) > 0 "
        + "and (select count(*) from u where u.k = t.k and u.v <> t.v and u.w > 0) = 0 order by id", 2);
  }

  /** No condition on one join, a filter alone on the other; and three joins, one filtered on a column of its own. */
  @Test void joinsWithoutConditionsOrWithFiltersAloneFuseToo() throws SQLException {
    assertSame("select id, v from t where exists (select * from u where u.k = t.k) "
        + "and not exists (select * from u where u.k = t.k and u.w > 0) order by id",
        "select id, v from t where (select count(*) from u where u.k = t.k) > 0 "
        + "and (select count(*) from u where u.k = t.k and u.w > 0) = 0 order by id", 2);
    assertSame("select id from t where not exists (select * from u where u.k = t.k and u.x = 3) "
        + "and exists (select * from u where u.k = t.k and u.v <> t.v) "
        + "and not exists (select * from u where u.k = t.k and u.w < 0 and u.v < t.v) order by id",
        "select id from t where (select count(*) from u where u.k = t.k and u.x = 3) = 0 "
        + "and (select count(*) from u where u.k = t.k and u.v <> t.v) > 0 "
        + "and (select count(*) from u where u.k = t.k and u.w < 0 and u.v < t.v) = 0 order by id", 3);
  }

  /** Joins on different keys mark different things: they stay joins of their own. */
  @Test void joinsOnDifferentKeysStayApart() throws SQLException {
    assertSame("select id from t where exists (select * from u where u.k = t.k) "
        + "and not exists (select * from u where u.x = t.k) order by id",
        "select id from t where (select count(*) from u where u.k = t.k) > 0 "
        + "and (select count(*) from u where u.x = t.k) = 0 order by id", 0);
  }

  /**
   * Spillway's rows of {@code sql} equal the reference's rows of {@code counted}, and the plan holds a mark join of
   * {@code fused} joins over one scan of u (0: none, u scanned per join).
   */
  private static void assertSame(String sql, String counted, int fused) throws SQLException {
    try (Connection spillway = spillway()) {
      String plan = CalciteReference.rows(spillway, "explain plan for " + sql).toString();
      String where = sql + " (seed " + SEED + ") plan:\n" + plan;
      int markJoins = plan.split("SpillwayMarkJoin\\(").length - 1;
      int uScans = plan.split("table=\\[\\[spillway, u]]").length - 1;
      if (fused == 0) {
        assertEquals(0, markJoins, where);
      } else {
        assertEquals(1, markJoins, where);
        assertEquals(1, uScans, where);
        String joins = plan.substring(plan.indexOf("joins=["));
        assertEquals(fused, joins.substring(0, joins.indexOf("], device")).split(", (semi|anti)").length, where);
      }
      List<List<Object>> actual = CalciteReference.rows(spillway, sql);
      List<List<Object>> expected = CalciteReference.rows(reference, counted);
      assertTrue(!expected.isEmpty(), where);
      assertNull(CalciteReference.difference(actual, expected), () -> where + "\nagainst " + counted + ": "
          + CalciteReference.difference(actual, expected));
    }
  }

  private static Connection spillway() throws SQLException {
    return DriverManager.getConnection(SpillwayDriver.CONNECT_STRING_PREFIX + "dataDir=" + dir + ";device=cpu");
  }

  private static Object maybeNull(Random random, Object value) {
    return random.nextInt(8) == 0 ? null : value;
  }
}
