package org.spillway.adapter;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.spillway.adapter.jdbc.SpillwayDriver;
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

/**
 * An inner join that the magic set's semi join reduces elsewhere in the plan reads that semi join's rows
 * ({@link SpillwaySharedSemiJoins}): TPC-H Q2's shape (each part's cheapest offers, the minimum a decorrelated
 * subquery over the offers of the filtered parts) over random rows with NULLs in keys and costs (seed in every
 * message), against Calcite's enumerable code, and EXPLAIN ANALYZE shows the semi join's pipeline run once and reused.
 */
class SpillwaySharedSemiJoinsTest {
  private static final long SEED = System.nanoTime();
  private static final int PARTS = 4_000;
  private static final int OFFERS = 40_000;
  private static final int SUPPLIERS = 100;

  @TempDir static Path dir;
  private static Connection reference;

  @BeforeAll static void createTables() throws SQLException {
    Random random = new Random(SEED);
    TableSchema part = new TableSchema(List.of(new ColumnDef("id", ColumnType.integer().notNull()),
        new ColumnDef("size", ColumnType.integer()), new ColumnDef("kind", ColumnType.varchar(10))));
    TableSchema offer = new TableSchema(List.of(new ColumnDef("pk", ColumnType.integer().notNull()),
        new ColumnDef("sk", ColumnType.integer().notNull()), new ColumnDef("cost", ColumnType.decimal(10, 2))));
    TableSchema supp = new TableSchema(List.of(new ColumnDef("id", ColumnType.integer().notNull()),
        new ColumnDef("region", ColumnType.integer())));
    List<Object[]> parts = new ArrayList<>();
    List<Object[]> offers = new ArrayList<>();
    List<Object[]> supps = new ArrayList<>();
    for (int r = 0; r < PARTS; r++) {
      parts.add(new Object[] {r, maybeNull(random, random.nextInt(50)), random.nextBoolean() ? "BRASS" : "TIN"});
    }
    for (int r = 0; r < OFFERS; r++) {
      offers.add(new Object[] {random.nextInt(PARTS + 100), random.nextInt(SUPPLIERS + 10),
          maybeNull(random, BigDecimal.valueOf(random.nextInt(3) * 10L, 2))});
    }
    for (int r = 0; r < SUPPLIERS; r++) {
      supps.add(new Object[] {r, maybeNull(random, random.nextInt(3))});
    }
    reference = CalciteReference.create(dir, List.of("part", "offer", "supp"), List.of(part, offer, supp),
        List.of(parts, offers, supps));
  }

  @AfterAll static void close() throws SQLException {
    reference.close();
    CatalogRegistry.close(dir);
  }

  /** Q2's cheapest offers per part among one region's suppliers. */
  private static final String CHEAPEST = "select p.id, o.sk, o.cost from part p, offer o, supp s where p.id = o.pk "
      + "and o.sk = s.id and p.size = 7 and p.kind = 'BRASS' and s.region = 1 and o.cost = (select min(x.cost) "
      + "from offer x, supp t where x.pk = p.id and x.sk = t.id and t.region = 1)";

  /** The query's join of offers and filtered parts reads the subquery's reduced offers: one pass over offer. */
  @Test void theCheapestOffersJoinReadsTheReducedOffers() throws SQLException {
    assertSame(CHEAPEST + " order by 1, 2, 3", true);
  }

  /**
   * Parts that the magic set's filter does not keep (fewer conditions), or joined on another column than the magic set's: the semi
   * join's keys may miss rows such a join keeps, so it streams the offers itself (the first query's join still reads them).
   */
  @Test void joinsTheMagicSetDoesNotCoverKeepTheirOwnPass() throws SQLException {
    assertSame(CHEAPEST + " union all select p.id, o.sk, o.cost from part p, offer o where p.id = o.pk "
        + "and p.size = 7 order by 1, 2, 3", true);
    assertSame("select p.id, o.sk, o.cost from part p, offer o, supp s where p.size = o.pk and o.sk = s.id "
        + "and p.size < 3 and p.kind = 'BRASS' and s.region = 1 and o.cost = (select min(x.cost) "
        + "from offer x, supp t where x.pk = p.id and x.sk = t.id and t.region = 1) order by 1, 2, 3", false);
  }

  /**
   * Spillway's rows of {@code sql} equal the reference's, and whether EXPLAIN ANALYZE reports a pipeline over offer
   * reused: the semi join that two joins read.
   */
  private static void assertSame(String sql, boolean shared) throws SQLException {
    try (Connection spillway = spillway()) {
      String analyzed = CalciteReference.explainAnalyze(spillway, sql);
      String where = sql + " (seed " + SEED + ") EXPLAIN ANALYZE:\n" + analyzed;
      assertEquals(shared, analyzed.contains("over offer, reused"), where);
      CalciteReference.assertSameRows(spillway, reference, sql, where);
    }
  }

  private static Connection spillway() throws SQLException {
    return DriverManager.getConnection(SpillwayDriver.CONNECT_STRING_PREFIX + "dataDir=" + dir + ";device=cpu");
  }

  private static Object maybeNull(Random random, Object value) {
    return random.nextInt(8) == 0 ? null : value;
  }
}
