package org.spillway.adapter;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.spillway.adapter.jdbc.SpillwayDriver;
import org.spillway.storage.Catalog;
import org.spillway.storage.ColumnDef;
import org.spillway.storage.TableSchema;

import java.math.BigDecimal;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

/**
 * Plans and rows of {@link SpillwayEagerAggregationRule}: an aggregate over a foreign-key join (TPC-H Q10's
 * shape: orders summed per customer, grouped by the customer's key and text columns) runs below the join,
 * and the rows stay those of Calcite's own enumerable plan over the same random tables (orders with NULL and
 * dangling customer keys, NULL prices); so it does below an outer join that preserves the customers (TPC-H Q13's
 * shape); where it must not fire (a selective join, an outer join that preserves the orders, a key that is not
 * unique, a grouping without the key, a call that is not NULL over a padded row) the aggregate stays above.
 */
class SpillwayEagerAggregationRuleTest {
  private static final int CUSTOMERS = 300;
  private static final int ORDERS = 3000;
  private static final int NATIONS = 5;
  private static final String[] FLAGS = {"A", "N", "R"};

  @TempDir static Path dir;
  private static Connection reference;

  @BeforeAll static void createTables() throws SQLException {
    Random random = new Random(7);
    TableSchema nation = new TableSchema(List.of(ColumnDef.of("nk", "INTEGER NOT NULL"),
        ColumnDef.of("nname", "VARCHAR(10) NOT NULL")));
    List<Object[]> nations = new ArrayList<>();
    for (int n = 0; n < NATIONS; n++) {
      nations.add(new Object[] {n, "nation" + n});
    }
    TableSchema customer = new TableSchema(List.of(ColumnDef.of("ck", "INTEGER NOT NULL"),
        ColumnDef.of("cname", "VARCHAR(12) NOT NULL"), ColumnDef.of("nk", "INTEGER NOT NULL"),
        ColumnDef.of("seg", "VARCHAR(4) NOT NULL"), ColumnDef.of("bal", "DECIMAL(15,2) NOT NULL")));
    List<Integer> keys = new ArrayList<>();
    for (int c = 1; c <= CUSTOMERS; c++) {
      keys.add(c);
    }
    Collections.shuffle(keys, random);
    List<Object[]> customers = new ArrayList<>();
    for (int key : keys) {
      // names repeat: a grouping by name alone is not a grouping by customer
      customers.add(new Object[] {key, "c" + random.nextInt(CUSTOMERS / 3), random.nextInt(NATIONS),
          "s" + random.nextInt(5), BigDecimal.valueOf(random.nextInt(200_000) - 100_000, 2)});
    }
    List<Object[]> shared = new ArrayList<>();  // the customers' keys twice each: not a key
    for (Object[] c : customers) {
      shared.add(new Object[] {c[0], c[1]});
      shared.add(new Object[] {c[0], c[1] + "'"});
    }
    TableSchema orders = new TableSchema(List.of(ColumnDef.of("ok", "INTEGER NOT NULL"),
        ColumnDef.of("ck", "INTEGER"), ColumnDef.of("price", "DECIMAL(15,2)"),
        ColumnDef.of("flag", "VARCHAR(1) NOT NULL")));
    List<Object[]> order = new ArrayList<>();
    for (int o = 0; o < ORDERS; o++) {
      Integer ck = random.nextInt(20) == 0 ? null : 1 + random.nextInt(CUSTOMERS + CUSTOMERS / 10);  // some dangle
      BigDecimal price = random.nextInt(15) == 0 ? null : BigDecimal.valueOf(random.nextInt(1_000_000), 2);
      order.add(new Object[] {o, ck, price, FLAGS[random.nextInt(FLAGS.length)]});
    }
    TableSchema sharedSchema = new TableSchema(List.of(ColumnDef.of("ck", "INTEGER NOT NULL"),
        ColumnDef.of("sname", "VARCHAR(13) NOT NULL")));
    Catalog catalog = Catalog.create(dir);
    CalciteReference.write(catalog, "nat", nation, nations);
    CalciteReference.write(catalog, "cust", customer, customers);
    CalciteReference.write(catalog, "ord", orders, order);
    CalciteReference.write(catalog, "shared", sharedSchema, shared);
    catalog.close();
    reference = CalciteReference.connect(List.of("nat", "cust", "ord", "shared"),
        List.of(nation, customer, orders, sharedSchema), List.of(nations, customers, order, shared));
  }

  @AfterAll static void close() throws SQLException {
    reference.close();
    CatalogRegistry.close(dir);
  }

  /** TPC-H Q10's shape: the orders are summed per customer key, and only the sums meet customer and nation. */
  @Test void aggregateOverForeignKeyJoinRunsBelowIt() throws SQLException {
    String sql = "select c.ck, c.cname, c.bal, n.nname, sum(o.price * 2) as revenue from ord o "
        + "join cust c on o.ck = c.ck join nat n on c.nk = n.nk where o.flag <> 'A' "
        + "group by c.ck, c.cname, c.bal, n.nname order by revenue desc, c.ck limit 20";
    SpillwayAssert.that(dir).query(sql).planShape("""
        SpillwayToEnumerableConverter
          SpillwayProject
            SpillwaySort
              SpillwayJoin
                SpillwayAggregate
                  SpillwayProject
                    SpillwayFilter
                      SpillwayTableScan
                SpillwayJoin
                  SpillwayTableScan
                  SpillwayTableScan
        """);
    assertSameRows(sql, true);
  }

  /** Every kind of call sees the same rows of each group: COUNT, AVG, MIN, MAX, DISTINCT, with HAVING. */
  @Test void everyAggregateFunctionKeepsItsValue() throws SQLException {
    assertSameRows("select c.ck, c.seg, o.flag, count(*) as n, count(o.price) as priced, avg(o.price) as mean, "
        + "min(o.price) as low, max(o.ok) as last, count(distinct o.price) as prices "
        + "from ord o join cust c on o.ck = c.ck group by c.ck, c.seg, o.flag having count(*) > 1 "
        + "order by c.ck, o.flag", true);
  }

  @Test void filteredCallKeepsItsValue() throws SQLException {
    assertSameRows("select c.ck, c.cname, sum(o.price) filter (where o.flag = 'R') as returned, count(*) as n "
        + "from ord o join cust c on o.ck = c.ck group by c.ck, c.cname order by c.ck", true);
  }

  @Test void noRowsGiveNoGroups() throws SQLException {
    assertSameRows("select c.ck, c.cname, sum(o.price) from ord o join cust c on o.ck = c.ck "
        + "where o.ok * 2 = 1 group by c.ck, c.cname", true);
  }

  /** The join keeps a fifth of the orders: aggregating all of them first would grow the aggregate (Q3). */
  @Test void selectiveJoinKeepsTheAggregateAbove() throws SQLException {
    assertSameRows("select c.ck, c.cname, sum(o.price) as total from ord o join cust c on o.ck = c.ck "
        + "where c.seg = 's1' group by c.ck, c.cname order by c.ck", false);
  }

  /** A LEFT join keeps the orders without a customer, each group of them with NULL customer columns. */
  @Test void outerJoinKeepsTheAggregateAbove() throws SQLException {
    assertSameRows("select c.ck, c.cname, sum(o.price) as total, count(*) as n from ord o "
        + "left join cust c on o.ck = c.ck group by c.ck, c.cname order by c.ck nulls first", false);
  }

  /**
   * TPC-H Q13's shape: customers LEFT JOIN their orders of a kind, the orders counted per customer. The orders are
   * counted, summed and compared per customer key below the join; the many customers without such orders get 0
   * from COUNT and NULL from the others, as over their one NULL-padded row.
   */
  @Test void leftJoinPreservingTheUniqueSideAggregatesBelowIt() throws SQLException {
    assertSameRows("select c.ck, count(o.ok) as n, sum(o.price) as total, min(o.price) as low, max(o.ok) as last "
        + "from cust c left join ord o on c.ck = o.ck and o.flag = 'R' and o.price < 1000 group by c.ck "
        + "order by c.ck", true);
    assertSameRows("select n, count(*) as customers from (select c.ck, count(o.ok) as n from cust c left join ord o "
        + "on c.ck = o.ck and o.flag = 'R' and o.price < 1000 group by c.ck) group by n order by n", true);
  }

  @Test void rightJoinPreservingTheUniqueSideAggregatesBelowIt() throws SQLException {
    assertSameRows("select c.ck, c.cname, count(o.price) as priced from ord o right join cust c "
        + "on o.ck = c.ck and o.flag = 'N' group by c.ck, c.cname order by c.ck", true);
  }

  /** COUNT(*) counts a customer's NULL-padded row as one, where the orders below the join count none. */
  @Test void countOfRowsOverLeftJoinKeepsTheAggregateAbove() throws SQLException {
    assertSameRows("select c.ck, count(*) as n from cust c left join ord o on c.ck = o.ck and o.flag = 'R' "
        + "group by c.ck order by c.ck", false);
  }

  /** The customers without orders all have a NULL order key: grouped by it, they are one group. */
  @Test void groupingByThePaddedSidesKeyKeepsTheAggregateAbove() throws SQLException {
    assertSameRows("select o.ck, count(o.ok) as n from cust c left join ord o on c.ck = o.ck and o.flag = 'R' "
        + "group by o.ck order by o.ck nulls first", false);
  }

  /** COALESCE is not NULL over a customer's NULL-padded row: its sum there is 0, not NULL. */
  @Test void argumentNotNullOverPaddedRowKeepsTheAggregateAbove() throws SQLException {
    assertSameRows("select c.ck, sum(coalesce(o.price, 0)) as total from cust c left join ord o on c.ck = o.ck "
        + "and o.flag = 'R' group by c.ck order by c.ck", false);
  }

  /** Each customer key is twice in {@code shared}: every order meets two rows. */
  @Test void nonUniqueKeyKeepsTheAggregateAbove() throws SQLException {
    assertSameRows("select s.ck, s.sname, sum(o.price) as total, count(*) as n from ord o "
        + "join shared s on o.ck = s.ck group by s.ck, s.sname order by s.ck, s.sname", false);
  }

  /** Names repeat across customers: the groups by name gather several customers' orders. */
  @Test void groupingWithoutTheKeyKeepsTheAggregateAbove() throws SQLException {
    assertSameRows("select c.cname, sum(o.price) as total from ord o join cust c on o.ck = c.ck "
        + "group by c.cname order by c.cname", false);
  }

  /**
   * The query's rows equal Calcite's (as a multiset where it has no ORDER BY), and its plan has an aggregate below
   * the join exactly when {@code eager}.
   */
  private static void assertSameRows(String sql, boolean eager) throws SQLException {
    try (Connection spillway = DriverManager.getConnection(SpillwayDriver.CONNECT_STRING_PREFIX + "dataDir=" + dir
        + ";device=cpu")) {
      String plan = String.join("\n", CalciteReference.rows(spillway, "explain plan for " + sql).stream()
          .map(row -> String.valueOf(row.get(0))).toList());
      assertEquals(eager, plan.lastIndexOf("SpillwayAggregate(") > plan.indexOf("SpillwayJoin("), () -> plan);
      List<List<Object>> actual = CalciteReference.rows(spillway, sql);
      List<List<Object>> expected = CalciteReference.rows(reference, sql);
      if (!sql.contains("order by")) {
        actual.sort(java.util.Comparator.comparing(Object::toString));
        expected.sort(java.util.Comparator.comparing(Object::toString));
      }
      assertNull(CalciteReference.difference(actual, expected), () -> sql + "\nplan:\n" + plan);
      assertEquals(sql.contains("o.ok * 2 = 1"), expected.isEmpty(),
          "only the query that selects no order has no rows");
    }
  }
}
