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

import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Outer joins that build on their preserved side (a small dimension {@code d} joined with a fact table {@code f}
 * ten times its size, as customer with orders in TPC-H Q13): LEFT and RIGHT, with and without a residual, under
 * aggregations, counted, and with the preserved side on the probe side as before; rows against Calcite's own
 * enumerable code over the same random rows (seed in every message, NULL and duplicate keys, keys on one side
 * only), and the plan's join type and build side pinned.
 */
class SpillwayOuterJoinTest {
  private static final long SEED = System.nanoTime();

  @TempDir static Path dir;
  private static Connection reference;

  @BeforeAll static void createTables() throws SQLException {
    Random random = new Random(SEED);
    TableSchema dim = new TableSchema(List.of(new ColumnDef("id", ColumnType.integer().notNull()),
        new ColumnDef("k", ColumnType.integer()), new ColumnDef("w", ColumnType.decimal(10, 2))));
    TableSchema fact = new TableSchema(List.of(new ColumnDef("id", ColumnType.integer().notNull()),
        new ColumnDef("fk", ColumnType.integer()), new ColumnDef("v", ColumnType.decimal(10, 2)),
        new ColumnDef("note", ColumnType.varchar(12))));
    List<Object[]> dims = new ArrayList<>();
    for (int r = 0; r < 300; r++) {  // keys 0..599, every other one: half of the fact keys match none
      dims.add(new Object[] {r, random.nextInt(20) == 0 ? null : 2 * r,
          random.nextInt(10) == 0 ? null : BigDecimal.valueOf(random.nextInt(10000), 2)});
    }
    List<Object[]> facts = new ArrayList<>();
    for (int r = 0; r < 3000; r++) {  // keys 0..699: some beyond every dimension key, duplicates throughout
      facts.add(new Object[] {r, random.nextInt(20) == 0 ? null : random.nextInt(700),
          random.nextInt(10) == 0 ? null : BigDecimal.valueOf(random.nextInt(10000), 2),
          random.nextInt(3) == 0 ? "special" + random.nextInt(5) : "plain" + random.nextInt(5)});
    }
    Catalog catalog = Catalog.create(dir);
    CalciteReference.write(catalog, "d", dim, dims);
    CalciteReference.write(catalog, "f", fact, facts);
    catalog.close();
    reference = CalciteReference.connect(List.of("d", "f"), List.of(dim, fact), List.of(dims, facts));
  }

  @AfterAll static void close() throws SQLException {
    reference.close();
    CatalogRegistry.close(dir);
  }

  /** Q13's shape: the counts per dimension row, then how many dimension rows have each count. */
  @Test void leftJoinBuildsOnItsSmallPreservedSideUnderTwoAggregations() throws SQLException {
    assertSameInSpillway("select d.k, count(f.id) as c from d left join f on d.k = f.fk and f.note not like "
        + "'special%' group by d.k order by d.k", "joinType=[left]", "buildSide=[left]");
    assertSameInSpillway("select c, count(*) from (select d.id, count(f.id) as c from d left join f on d.k = f.fk "
        + "group by d.id) group by c order by c", "joinType=[left]", "buildSide=[left]");
  }

  @Test void leftAndRightJoinsBuildOnThePreservedSideWithAResidual() throws SQLException {
    assertSameInSpillway("select d.id, f.id, f.v, d.w from d left join f on d.k = f.fk and f.v > d.w "
        + "order by d.id, f.id", "joinType=[left]", "buildSide=[left]");
    assertSameInSpillway("select d.id, f.id, f.note from f right join d on d.k = f.fk and f.v < d.w "
        + "order by d.id, f.id", "joinType=[right]", "buildSide=[right]");
    assertSameInSpillway("select d.id, f.id from f right join d on d.k = f.fk order by d.id, f.id",
        "joinType=[right]", "buildSide=[right]");
  }

  /** The unmatched build rows pass the filter above the join, which reads their NULL probe columns. */
  @Test void unmatchedBuildRowsPassTheStagesAbove() throws SQLException {
    assertSameInSpillway("select d.id, f.id from d left join f on d.k = f.fk where f.v is null or f.v > 50 "
        + "order by d.id, f.id", "joinType=[left]", "buildSide=[left]");
    assertSameInSpillway("select count(*) from d left join f on d.k = f.fk", "joinType=[left]", "buildSide=[left]");
    assertSameInSpillway("select count(*), count(f.id), sum(d.w) from f right join d on d.k = f.fk and f.v > d.w",
        "joinType=[right]", "buildSide=[right]");
  }

  /** With the large side preserved, the probe preserves it as before and the build side is the small one. */
  @Test void aLargePreservedSideStillProbes() throws SQLException {
    assertSameInSpillway("select f.id, d.id from f left join d on d.k = f.fk and f.v > d.w order by f.id, d.id",
        "joinType=[left]", "buildSide=[right]");
  }

  private static void assertSameInSpillway(String sql, String... planHas) throws SQLException {
    String where = sql + " (seed " + SEED + ")";
    try (Connection spillway = DriverManager.getConnection(SpillwayDriver.CONNECT_STRING_PREFIX + "dataDir=" + dir
        + ";device=cpu")) {
      String plan = String.join("\n", CalciteReference.rows(spillway, "explain plan for " + sql).stream()
          .map(Object::toString).toList());
      String join = plan.lines().filter(l -> l.contains("SpillwayJoin(")).findFirst().orElse("");
      for (String expected : planHas) {
        assertTrue(join.contains(expected), () -> where + ": the join lacks " + expected + "; plan:\n" + plan);
      }
      assertTrue(!plan.contains("fallback="), () -> where + " plan:\n" + plan);
      List<List<Object>> actual = CalciteReference.rows(spillway, sql);
      List<List<Object>> expected = CalciteReference.rows(reference, sql);
      assertNull(CalciteReference.difference(actual, expected), () -> where + ": "
          + CalciteReference.difference(actual, expected) + "\nplan:\n" + plan);
    }
  }
}
