package org.spillway.adapter;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.spillway.adapter.jdbc.SpillwayDriver;
import org.spillway.storage.Catalog;
import org.spillway.storage.ColumnDef;
import org.spillway.storage.TableSchema;

import java.nio.file.Path;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.IntPredicate;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Rows and plans of {@link SpillwayMagicSetRule}: an aggregate joined on its group key is computed only over the
 * keys the other side keeps, and the answers stay those of the unreduced plan, computed here from the rows
 * themselves; where the rule must not fire (a join that keeps every group, a key that is an aggregate result,
 * a non-equi correlation, an outer side with many keys) the plan has no semi join.
 */
class SpillwayMagicSetRuleTest {
  private static final int PARTS = 50;
  private static final int ITEMS = 400;
  /** Items reference parts 1..40 only: parts 41..50 have none. */
  private static final int ITEM_PARTS = 40;
  /** The parts of kind 'a' (part 45 has no items); the others are of kind 'b'. */
  private static final Set<Integer> KIND_A = Set.of(3, 7, 10, 45);
  private static final String REDUCED = "joinType=[semi]";

  @TempDir static Path dir;

  @BeforeAll static void createTables() {
    List<Object[]> parts = new ArrayList<>();
    for (int pk = 1; pk <= PARTS; pk++) {
      parts.add(new Object[] {pk, KIND_A.contains(pk) ? "a" : "b", pk});
    }
    List<Object[]> items = new ArrayList<>();
    for (int r = 0; r < ITEMS; r++) {
      items.add(new Object[] {itemPart(r), quantity(r)});
    }
    Catalog catalog = Catalog.create(dir);
    CalciteReference.write(catalog, "parts", new TableSchema(List.of(ColumnDef.of("pk", "INTEGER NOT NULL"),
        ColumnDef.of("kind", "VARCHAR NOT NULL"), ColumnDef.of("w", "INTEGER NOT NULL"))), parts);
    CalciteReference.write(catalog, "items", new TableSchema(List.of(ColumnDef.of("pk", "INTEGER NOT NULL"),
        ColumnDef.of("q", "INTEGER NOT NULL"))), items);
    catalog.close();
  }

  @AfterAll static void closeCatalog() {
    CatalogRegistry.close(dir);
  }

  private static int itemPart(int row) {
    return 1 + row % ITEM_PARTS;
  }

  private static int quantity(int row) {
    return 1 + row % 7;
  }

  /** Sum of the quantities of each part that has items, by part. */
  private static Map<Integer, Long> sums() {
    Map<Integer, Long> sums = new TreeMap<>();
    for (int r = 0; r < ITEMS; r++) {
      sums.merge(itemPart(r), (long) quantity(r), Long::sum);
    }
    return sums;
  }

  /** Number of items of each part (0 for parts without items). */
  private static long count(IntPredicate itemPartTest) {
    long n = 0;
    for (int r = 0; r < ITEMS; r++) {
      n += itemPartTest.test(itemPart(r)) ? 1 : 0;
    }
    return n;
  }

  @Test void joinedAggregateIsComputedOverTheKeptKeysOnly() throws SQLException {
    List<String> expected = new ArrayList<>();
    sums().forEach((pk, sum) -> {
      if (KIND_A.contains(pk)) {
        expected.add(pk + " | " + sum);
      }
    });
    assertReduced("select p.pk, s.total from parts p "
        + "join (select pk, sum(q) as total from items group by pk) s on p.pk = s.pk "
        + "where p.kind = 'a' order by p.pk", true, expected);
  }

  @Test void correlatedComparisonIsComputedOverTheKeptKeysOnly() throws SQLException {
    List<String> expected = new ArrayList<>();
    sums().forEach((pk, sum) -> {
      if (KIND_A.contains(pk) && pk * 3 < sum) {
        expected.add(String.valueOf(pk));
      }
    });
    assertReduced("select p.pk from parts p where p.kind = 'a' "
        + "and p.w * 3 < (select sum(q) from items i where i.pk = p.pk) order by p.pk", true, expected);
  }

  @Test void countOverAPartWithoutItemsStaysZero() throws SQLException {
    List<String> expected = new ArrayList<>();
    KIND_A.stream().sorted().forEach(pk -> expected.add(pk + " | " + count(p -> p == pk)));
    assertReduced("select p.pk, (select count(*) from items i where i.pk = p.pk) as c from parts p "
        + "where p.kind = 'a' order by p.pk", true, expected);
  }

  @Test void rightJoinKeepsEveryGroup() throws SQLException {
    List<String> expected = new ArrayList<>();
    sums().forEach((pk, sum) -> expected.add(pk + " | " + sum + " | " + (KIND_A.contains(pk) ? "a" : null)));
    assertReduced("select s.pk, s.total, p.kind from parts p "
        + "right join (select pk, sum(q) as total from items group by pk) s on p.pk = s.pk and p.kind = 'a' "
        + "order by s.pk", false, expected);
  }

  @Test void joinOnAnAggregateResultIsNotReduced() throws SQLException {
    List<String> expected = new ArrayList<>();
    for (int pk : new TreeMap<>(sums()).keySet()) {
      long c = count(p -> p == pk);
      if (KIND_A.contains((int) c)) {
        expected.add(c + " | " + pk);
      }
    }
    assertReduced("select p.pk, s.pk from parts p "
        + "join (select pk, count(*) as c from items group by pk) s on p.pk = s.c "
        + "where p.kind = 'a' order by p.pk, s.pk", false, expected);
  }

  @Test void nonEquiCorrelationIsNotReduced() throws SQLException {
    List<String> expected = new ArrayList<>();
    KIND_A.stream().sorted().forEach(pk -> {
      if (pk * 3 < count(p -> p > pk)) {
        expected.add(String.valueOf(pk));
      }
    });
    assertReduced("select p.pk from parts p where p.kind = 'a' "
        + "and p.w * 3 < (select count(*) from items i where i.pk > p.pk) order by p.pk", false, expected);
  }

  @Test void outerSideWithManyKeysIsNotReduced() throws SQLException {
    List<String> expected = new ArrayList<>();
    sums().forEach((pk, sum) -> expected.add(pk + " | " + sum));
    assertReduced("select p.pk, s.total from parts p "
        + "join (select pk, sum(q) as total from items group by pk) s on p.pk = s.pk order by p.pk",
        false, expected);
  }

  /** The query's rows are {@code expected}, and its plan has a semi join exactly when {@code reduced}. */
  private static void assertReduced(String sql, boolean reduced, List<String> expected) throws SQLException {
    String url = SpillwayDriver.CONNECT_STRING_PREFIX + "dataDir=" + dir + ";device=cpu";
    String plan = String.join("\n", SpillwayAssert.rows(url, "explain plan for " + sql));
    assertEquals(reduced, plan.contains(REDUCED), () -> sql + "\nplan:\n" + plan);
    assertEquals(expected, SpillwayAssert.rows(url, sql), () -> sql + "\nplan:\n" + plan);
  }
}
