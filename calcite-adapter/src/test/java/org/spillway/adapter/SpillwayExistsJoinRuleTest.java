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

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Correlated EXISTS and NOT EXISTS run as Spillway semi and anti joins ({@link SpillwayExistsJoinRule}), with the
 * equalities as keys and the other correlated conditions as the residual, over random rows with NULLs in keys and
 * residual columns (seed in every message). The reference is Calcite's enumerable code running the same question
 * as a count of matching rows ({@code (select count(*) ...) > 0}), which the rule does not touch.
 */
class SpillwayExistsJoinRuleTest {
  private static final long SEED = System.nanoTime();
  private static final int ROWS = 400;

  @TempDir static Path dir;
  private static Connection reference;

  @BeforeAll static void createTables() throws SQLException {
    Random random = new Random(SEED);
    TableSchema t = new TableSchema(List.of(new ColumnDef("id", ColumnType.integer().notNull()),
        new ColumnDef("k", ColumnType.integer()), new ColumnDef("v", ColumnType.integer()),
        new ColumnDef("code", ColumnType.varchar(4))));
    TableSchema u = new TableSchema(List.of(new ColumnDef("k", ColumnType.integer()),
        new ColumnDef("v", ColumnType.integer()), new ColumnDef("w", ColumnType.decimal(10, 2)),
        new ColumnDef("code", ColumnType.varchar(4))));
    List<Object[]> tRows = new ArrayList<>();
    List<Object[]> uRows = new ArrayList<>();
    for (int r = 0; r < ROWS; r++) {
      tRows.add(new Object[] {r, maybeNull(random, random.nextInt(40)), maybeNull(random, random.nextInt(5)),
          maybeNull(random, "c" + random.nextInt(3))});
      uRows.add(new Object[] {maybeNull(random, random.nextInt(50)), maybeNull(random, random.nextInt(5)),
          maybeNull(random, BigDecimal.valueOf(random.nextInt(2001) - 1000, 2)),
          maybeNull(random, "c" + random.nextInt(3))});
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

  @Test void existsWithAResidualIsASemiJoin() throws SQLException {
    assertSame("select id from t where exists (select * from u where u.k = t.k and u.v <> t.v) order by id",
        "select id from t where (select count(*) from u where u.k = t.k and u.v <> t.v) > 0 order by id", "semi");
    assertSame("select id, code from t where t.v > 1 and exists (select u.w from u where t.k = u.k "
        + "and u.code = t.code and u.v < t.v and u.w > 0) order by id",
        "select id, code from t where t.v > 1 and (select count(*) from u where t.k = u.k "
        + "and u.code = t.code and u.v < t.v and u.w > 0) > 0 order by id", "semi");
  }

  /** An outer row with a NULL key, or a residual UNKNOWN for every inner row, has no match and is kept. */
  @Test void notExistsWithAResidualIsAnAntiJoinWithoutANullTrap() throws SQLException {
    assertSame("select id from t where not exists (select * from u where u.k = t.k and u.v <> t.v) order by id",
        "select id from t where (select count(*) from u where u.k = t.k and u.v <> t.v) = 0 order by id", "anti");
    assertSame("select id from t where not exists (select 1 from u where u.k = t.k and u.code = t.code "
        + "and u.w < t.v) and t.id < 300 order by id",
        "select id from t where (select count(*) from u where u.k = t.k and u.code = t.code "
        + "and u.w < t.v) = 0 and t.id < 300 order by id", "anti");
  }

  /** TPC-H Q21's shape: both, over one outer row, the second with an inner filter of its own. */
  @Test void existsAndNotExistsTogether() throws SQLException {
    assertSame("select code, count(*) from t where exists (select * from u where u.k = t.k and u.v <> t.v) "
        + "and not exists (select * from u where u.k = t.k and u.v <> t.v and u.w > 0) group by code order by code",
        "select code, count(*) from t where (select count(*) from u where u.k = t.k and u.v <> t.v) > 0 "
        + "and (select count(*) from u where u.k = t.k and u.v <> t.v and u.w > 0) = 0 group by code order by code",
        "anti");
  }

  /** No equality with the outer row (no key), or EXISTS under OR: left to Calcite's decorrelation, still right. */
  @Test void otherCorrelatedExistsStayCorrect() throws SQLException {
    assertSame("select id from t where not exists (select * from u where u.v < t.v) order by id",
        "select id from t where (select count(*) from u where u.v < t.v) = 0 order by id", null);
    assertSame("select id from t where t.v = 1 or exists (select * from u where u.k = t.k and u.v <> t.v) "
        + "order by id", "select id from t where t.v = 1 or (select count(*) from u where u.k = t.k "
        + "and u.v <> t.v) > 0 order by id", null);
  }

  /**
   * Spillway's rows of {@code sql} equal the reference's rows of {@code counted}; with a join type, Spillway runs
   * the query with a join of that type, no fallback and no aggregate beyond the query's own.
   */
  private static void assertSame(String sql, String counted, String joinType) throws SQLException {
    try (Connection spillway = spillway()) {
      String plan = CalciteReference.rows(spillway, "explain plan for " + sql).toString();
      String where = sql + " (seed " + SEED + ") plan:\n" + plan;
      if (joinType != null) {
        assertTrue(plan.contains("joinType=[" + joinType + "]"), where);
        assertFalse(plan.contains("fallback=") || plan.replaceAll("EnumerableSort|ToEnumerable", "")
            .contains("Enumerable"), where);
        assertTrue(plan.split("SpillwayAggregate").length - 1 == (sql.contains("group by") ? 1 : 0), where);
      }
      List<List<Object>> actual = CalciteReference.rows(spillway, sql);
      List<List<Object>> expected = CalciteReference.rows(reference, counted);
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
