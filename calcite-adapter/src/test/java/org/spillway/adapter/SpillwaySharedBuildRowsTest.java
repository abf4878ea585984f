package org.spillway.adapter;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.math.BigDecimal;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.spillway.adapter.jdbc.SpillwayDriver;
import org.spillway.storage.ColumnDef;
import org.spillway.storage.ColumnType;
import org.spillway.storage.TableSchema;

/**
 * A semi or anti join builds on another join's input that filters the same table by the same conditions
 * ({@link SpillwaySharedBuildRows}): the table is filtered once, EXPLAIN ANALYZE reports the second use as reused, and
 * the rows equal Calcite's enumerable code's over random rows with NULLs in the filtered and joined columns (seed in
 * every message).
 */
class SpillwaySharedBuildRowsTest {
  private static final long SEED = System.nanoTime();
  private static final int PARTS = 4_000;
  private static final int OFFERS = 40_000;

  @TempDir static Path dir;
  private static Connection reference;

  @BeforeAll static void createTables() throws SQLException {
    Random random = new Random(SEED);
    TableSchema part = new TableSchema(List.of(new ColumnDef("id", ColumnType.integer().notNull()),
        new ColumnDef("size", ColumnType.integer()), new ColumnDef("kind", ColumnType.varchar(10)),
        new ColumnDef("maker", ColumnType.varchar(10))));
    TableSchema offer = new TableSchema(List.of(new ColumnDef("pk", ColumnType.integer()),
        new ColumnDef("sk", ColumnType.integer().notNull()), new ColumnDef("cost", ColumnType.decimal(10, 2))));
    List<Object[]> parts = new ArrayList<>();
    List<Object[]> offers = new ArrayList<>();
    for (int r = 0; r < PARTS; r++) {
      parts.add(new Object[] {r, maybeNull(random, random.nextInt(50)),
          maybeNull(random, random.nextBoolean() ? "BRASS" : "TIN"), "M" + random.nextInt(5)});
    }
    for (int r = 0; r < OFFERS; r++) {
      offers.add(new Object[] {maybeNull(random, random.nextInt(PARTS + 100)), random.nextInt(PARTS),
          maybeNull(random, BigDecimal.valueOf(random.nextInt(300), 2))});
    }
    reference = CalciteReference.create(dir, List.of("part", "offer"), List.of(part, offer), List.of(parts, offers));
  }

  @AfterAll static void close() throws SQLException {
    reference.close();
    CatalogRegistry.close(dir);
  }

  /** The offers of the parts of size 7 and kind BRASS, with {@code more} added to the query's conditions. */
  private static String offersOfParts(String more) {
    return "select p.id, p.maker, o.sk, o.cost from part p, offer o where p.id = o.pk and p.size = 7 "
        + "and p.kind = 'BRASS' and " + more + " order by 1, 2, 3, 4";
  }

  /**
   * TPC-H Q2's shape: the magic set's semi join reduces the offers to the keys of the join's filtered parts, and
   * builds on them.
   */
  @Test void theMagicSetsSemiJoinBuildsOnTheJoinsFilteredParts() throws SQLException {
    assertSame(offersOfParts("o.cost = (select min(x.cost) from offer x where x.pk = p.id)"), true);
  }

  /** A semi join whose keys are the join's parts, filtered by the same conditions in another order: one pass. */
  @Test void aSemiJoinBuildsOnTheJoinsFilteredParts() throws SQLException {
    assertSame(offersOfParts("o.pk in (select id from part where kind = 'BRASS' and size = 7)"), true);
  }

  /** An anti join of offers against the same parts builds on them too. */
  @Test void anAntiJoinBuildsOnTheJoinsFilteredParts() throws SQLException {
    assertSame(offersOfParts("not exists (select 1 from part q where q.id = o.sk and q.size = 7 "
        + "and q.kind = 'BRASS')"), true);
  }

  /**
   * The magic set's semi join over the keys of an aggregate whose input is an anti join stays above the anti join
   * ({@code SpillwayPrograms.SEMI_JOIN_INNER_JOIN_TRANSPOSE}): Calcite's transpose rule pushed it into the anti join as
   * into an inner join, and planning failed with an index out of bounds (the anti join's rows lack its right side).
   * Offers without a part key stay out: Calcite's enumerable code, the reference, drops them under NOT EXISTS, where
   * SQL keeps them (as Spillway does).
   */
  @Test void aMagicSetOverAnAntiJoinIsPlanned() throws SQLException {
    assertSame("select p.id, p.maker, x.n from part p join (select sk, count(*) as n from offer o where o.pk is not null "
        + "and not exists (select 1 from part q where q.id = o.pk and q.size < 9 and q.kind = 'TIN') group by sk) x on p.id = x.sk "
        + "where p.size < 9 and p.kind = 'TIN' order by 1", null);
  }

  /**
   * Other conditions keep other parts (more, or fewer): the semi join would keep offers the query drops, or drop
   * offers it keeps; it filters part itself.
   */
  @Test void partsFilteredOtherwiseKeepTheirOwnPass() throws SQLException {
    assertSame(offersOfParts("o.pk in (select id from part where size = 7)"), false);
    assertSame(offersOfParts("o.pk in (select id from part where size = 7 and kind = 'BRASS' and maker = 'M1')"),
        false);
  }

  /**
   * Spillway's rows of {@code sql} equal the reference's, and whether EXPLAIN ANALYZE reports the pipeline over part
   * reused (the filtered parts that both joins read; null: either).
   */
  private static void assertSame(String sql, Boolean shared) throws SQLException {
    try (Connection spillway = DriverManager.getConnection(SpillwayDriver.CONNECT_STRING_PREFIX + "dataDir=" + dir
        + ";device=cpu")) {
      String analyzed = CalciteReference.explainAnalyze(spillway, sql);
      String where = sql + " (seed " + SEED + ") EXPLAIN ANALYZE:\n" + analyzed;
      if (shared != null) {
        assertEquals(shared, analyzed.contains("over part, reused"), where);
      }
      CalciteReference.assertSameRows(spillway, reference, sql, where);
    }
  }

  private static Object maybeNull(Random random, Object value) {
    return random.nextInt(8) == 0 ? null : value;
  }
}
