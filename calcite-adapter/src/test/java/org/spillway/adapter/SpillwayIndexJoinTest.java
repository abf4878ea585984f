package org.spillway.adapter;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.spillway.adapter.jdbc.SpillwayDriver;
import org.spillway.gpu.calibrate.MachineProfile;
import org.spillway.gpu.calibrate.MachineProfiles;
import org.spillway.storage.StorageAllocator;
import org.spillway.tpch.ProgressListener;
import org.spillway.tpch.TpchGenerator;

/**
 * The windowed index join in SQL over TPC-H orders with an index on o_orderkey: the cost model chooses it for a
 * selective probe of orders by key (Q12's shape) and not for a probe by every lineitem; forced, it runs through
 * every index kind for inner, left, semi- and anti-joins, with a filter on orders applied after the lookup, and
 * returns the rows of the CPU hash join; without an index EXPLAIN says why it fell back. The index is built on first
 * use (after a reopen too), once, and dropping it frees its memory.
 */
class SpillwayIndexJoinTest {
  /** About one lineitem in 2500 ships on a given day: a probe of a few rows against every order. */
  private static final String SELECTIVE = "SELECT o.o_orderpriority, COUNT(*) AS n FROM lineitem l JOIN orders o"
      + " ON o.o_orderkey = l.l_orderkey WHERE l.l_shipdate = DATE '1995-03-15' GROUP BY o.o_orderpriority";
  /** Every lineitem probes: four times the orders. */
  private static final String FULL = "SELECT o.o_orderpriority, COUNT(*) AS n FROM lineitem l JOIN orders o"
      + " ON o.o_orderkey = l.l_orderkey WHERE l.l_shipdate >= DATE '1992-01-01' GROUP BY o.o_orderpriority";
  /** Joins of each type through orders, orders filtered in some (the filter holds after the lookup). */
  private static final List<String> JOINS = List.of(
      "SELECT l.l_orderkey, l.l_linenumber, o.o_orderdate FROM lineitem l JOIN orders o"
          + " ON o.o_orderkey = l.l_orderkey WHERE l.l_shipdate < DATE '1992-04-01'",
      "SELECT o.o_totalprice, l.l_linenumber FROM orders o JOIN lineitem l ON o.o_orderkey = l.l_orderkey"
          + " WHERE l.l_receiptdate = DATE '1996-01-02' AND o.o_orderstatus = 'O'",
      "SELECT l.l_orderkey, l.l_linenumber, o.o_orderdate FROM lineitem l LEFT JOIN orders o"
          + " ON o.o_orderkey = l.l_orderkey AND o.o_orderstatus = 'F' WHERE l.l_shipdate < DATE '1992-04-01'",
      "SELECT o.o_orderdate, l.l_orderkey, l.l_linenumber FROM orders o RIGHT JOIN lineitem l"
          + " ON o.o_orderkey = l.l_orderkey AND o.o_orderstatus = 'F' WHERE l.l_shipdate < DATE '1992-04-01'",
      "SELECT l.l_orderkey, l.l_linenumber FROM lineitem l WHERE l.l_shipdate < DATE '1992-04-01'"
          + " AND l.l_orderkey IN (SELECT o.o_orderkey FROM orders o WHERE o.o_orderpriority = '1-URGENT')",
      "SELECT l.l_orderkey, l.l_linenumber FROM lineitem l WHERE l.l_shipdate < DATE '1992-04-01'"
          + " AND NOT EXISTS (SELECT 1 FROM orders o WHERE o.o_orderkey = l.l_orderkey"
          + " AND o.o_orderpriority = '1-URGENT')");

  /** The CPU hash join's rows of each query, the reference (computed once). */
  private static final Map<String, List<String>> HASH_JOIN_ROWS = new HashMap<>();

  @TempDir static Path dir;
  /** Plans that do not depend on whether this machine was calibrated. */
  private static AutoCloseable profile;

  @BeforeAll static void generate() {
    profile = MachineProfiles.pin(MachineProfiles.uncalibrated());
    TpchGenerator.generate(dir, 0.002, 1, ProgressListener.NONE);
  }

  @AfterEach void dropIndexes() throws SQLException {
    for (String kind : List.of("binary_search", "btree", "harmonia", "radixspline")) {
      update("DROP INDEX IF EXISTS orders_" + kind);
    }
  }

  @AfterAll static void close() throws Exception {
    CatalogRegistry.close(dir);
    profile.close();
  }

  @Test void autoChoosesTheIndexJoinForASelectiveProbeAndNotForAFullOne() throws SQLException {
    update("CREATE INDEX orders_radixspline ON orders (o_orderkey) USING RADIXSPLINE");
    String selective = explain("", SELECTIVE);
    assertTrue(selective.contains("algorithm=[inlj], variant=[radixspline], index=[orders_radixspline"), selective);
    assertTrue(selective.contains("window=[32 MiB]"), selective);
    assertTrue(selective.contains("runnerUp=[cpu-nopa "), selective);
    assertEquals(hashJoinRows(SELECTIVE), rows("", SELECTIVE));
    assertEquals(rows("joinAlgorithm=nopa", SELECTIVE), rows("", SELECTIVE), "as NOPA returns them");
    assertFalse(rows("", SELECTIVE).isEmpty(), "the day has shipments");
    String full = explain("", FULL);
    assertFalse(full.contains("algorithm=[inlj]"), full);
    assertTrue(full.contains("runnerUp=[inlj "), "the index join is costed, and loses: " + full);
  }

  @ParameterizedTest
  @ValueSource(strings = {"BINARY_SEARCH", "BTREE", "HARMONIA", "RADIXSPLINE"})
  void forcedEveryKindJoinsLikeTheHashJoin(String kind) throws SQLException {
    update("CREATE INDEX orders_" + kind + " ON orders (o_orderkey) USING " + kind);
    for (String sql : JOINS) {
      String plan = explain("joinAlgorithm=inlj", sql);
      assertTrue(plan.contains("algorithm=[inlj], variant=[" + kind.toLowerCase() + "]"), plan);
      assertEquals(hashJoinRows(sql), rows("joinAlgorithm=inlj", sql), kind + ": " + sql);
    }
  }

  /**
   * The window is a connection property: EXPLAIN shows it, and windows of 16 keys (many per query) join like the
   * paper's 32 MiB (one); a window without room for a key is refused with the property's name.
   */
  @Test void theWindowIsAConnectionPropertyThatExplainShowsAndTheJoinUses() throws SQLException {
    update("CREATE INDEX orders_radixspline ON orders (o_orderkey) USING RADIXSPLINE");
    String sql = JOINS.get(0);
    assertTrue(explain("joinAlgorithm=inlj;indexJoinWindow=4m", sql).contains("window=[4 MiB]"));
    assertTrue(explain("joinAlgorithm=inlj;indexJoinWindow=128", sql).contains("window=[128 B]"));
    assertEquals(hashJoinRows(sql), rows("joinAlgorithm=inlj;indexJoinWindow=128", sql));
    SQLException bad = org.junit.jupiter.api.Assertions.assertThrows(SQLException.class,
        () -> rows("indexJoinWindow=4", sql));
    assertTrue(bad.getMessage().contains("Property 'indexJoinWindow' must be a byte count from 8 to 1g"),
        bad.getMessage());
  }

  /**
   * On a GPU site the GPU index join is planned (the site stands for a device in plan tests), forced or under auto,
   * where it was once dropped with every GPU join node whenever the probe side's table fit the GPU; under auto at
   * this scale its fixed cost loses to the joins on the CPU, and the plan still names a hash join or the CPU one.
   */
  @Test void onAGpuSiteTheGpuIndexJoinIsPlannedAndCostedAgainstTheOthers() throws Exception {
    update("CREATE INDEX orders_radixspline ON orders (o_orderkey) USING RADIXSPLINE");
    try (AutoCloseable gpu = SpillwayGpuSite.assume(AssumedGpuSite.h100(true))) {
      String forced = explain("device=auto;joinAlgorithm=gpu-inlj;indexJoinWindow=8m", SELECTIVE);
      assertTrue(forced.contains("device=[gpu], algorithm=[gpu-inlj], variant=[radixspline], index=[orders_radixspline"),
          forced);
      assertTrue(forced.contains("window=[8 MiB]"), forced);
      assertFalse(forced.contains("cpuBecause=[joinAlgorithm"), "the site runs it: " + forced);
      String auto = explain("device=auto", SELECTIVE);
      assertTrue(auto.contains("algorithm=[inlj]") || auto.contains("algorithm=[cpu-nopa]")
          || auto.contains("algorithm=[nopa]"), auto);
    }
  }

  /**
   * A join with an index to look up counts as calibrated only where calibration measured the index lookups too: a
   * profile from before them prices the index join with assumed rates, and EXPLAIN says so.
   */
  @Test void theIndexJoinsCostsAreCalibratedOnlyWithMeasuredLookupRates() throws Exception {
    update("CREATE INDEX orders_radixspline ON orders (o_orderkey) USING RADIXSPLINE");
    Map<String, Double> joins = Map.of(MachineProfile.CPU_JOIN_NOPA_PERFECT_HASH, 5e8,
        MachineProfile.CPU_JOIN_NOPA_LINEAR_PROBING, 2e8, MachineProfile.CPU_JOIN_NOPA_LINEAR_PROBING_CACHED, 7e8,
        MachineProfile.CPU_JOIN_RADIX, 1.7e8);
    for (boolean measured : new boolean[] {false, true}) {
      MachineProfile profile = new MachineProfile(MachineProfile.FORMAT_VERSION, "2026-11-26T00:00:00Z", "cpu host",
          16, 80, null, "no GPU", Map.of(), Map.of(), null, List.of(), null, null, null, 16.0, joins,
          MachineProfile.MODE_FULL, null, measured ? new MachineProfile.IndexLookupRates(null, null, null, null, 2e6,
          4e6, 2L << 30) : null);
      try (AutoCloseable pinned = MachineProfiles.pin(profile)) {
        String plan = explain("joinAlgorithm=inlj", SELECTIVE);
        assertTrue(plan.contains("algorithm=[inlj]"), plan);
        assertTrue(plan.contains(measured ? "costs=[calibrated]" : "costs=[assumed]"), measured + ": " + plan);
      }
    }
  }

  @Test void withoutAnIndexTheForcedIndexJoinSaysWhyAndFallsBack() throws SQLException {
    String sql = JOINS.get(0);
    String plan = explain("joinAlgorithm=inlj", sql);
    assertFalse(plan.contains("algorithm=[inlj]"), plan);
    assertTrue(plan.contains("cpuBecause=[joinAlgorithm=inlj: no index join: "), plan);
    assertTrue(plan.contains("table orders has no index on o_orderkey (CREATE INDEX)"), plan);
    assertEquals(hashJoinRows(sql), rows("joinAlgorithm=inlj", sql));
  }

  @Test void aReopenedCatalogBuildsTheIndexOnFirstUseAndDropFreesIt() throws SQLException {
    update("CREATE INDEX orders_btree ON orders (o_orderkey) USING BTREE");
    CatalogRegistry.close(dir);
    List<String> expected = rows("joinAlgorithm=cpu-nopa", JOINS.get(0));  // loads the tables, not the index
    SpillwayIndexes indexes = SpillwayIndexes.of(CatalogRegistry.open(dir));
    assertTrue(indexes.built("orders_btree").isEmpty(), "built on first use, not on open");
    assertTrue(explain("joinAlgorithm=inlj", JOINS.get(0)).contains("index=[orders_btree (built on first use)]"));
    assertEquals("null null", indexBytes(), "getIndexInfo: no bytes before the build");
    long tables = StorageAllocator.root().getAllocatedMemory();
    assertEquals(expected, rows("joinAlgorithm=inlj", JOINS.get(0)));
    var built = indexes.built("orders_btree").orElseThrow();
    assertEquals(expected, rows("joinAlgorithm=inlj", JOINS.get(0)));
    assertTrue(built == indexes.built("orders_btree").orElseThrow(), "built once, shared by the queries");
    assertTrue(StorageAllocator.root().getAllocatedMemory() - tables >= built.sizeBytes(), "accounted for");
    String plan = explain("joinAlgorithm=inlj", JOINS.get(0));
    assertTrue(plan.contains(String.format(java.util.Locale.ROOT, "index=[orders_btree (%.1f KiB, built in ",
        built.sizeBytes() / 1024.0)), "EXPLAIN shows the built index's size: " + plan);
    assertEquals(built.sizeBytes() + " " + (built.sizeBytes() + 4095) / 4096, indexBytes(), "getIndexInfo");
    update("DROP INDEX orders_btree");
    assertTrue(indexes.built("orders_btree").isEmpty());
    assertEquals(tables, StorageAllocator.root().getAllocatedMemory(), "dropped, freed");
  }

  private static List<String> hashJoinRows(String sql) throws SQLException {
    List<String> known = HASH_JOIN_ROWS.get(sql);
    if (known == null) {
      known = rows("joinAlgorithm=cpu-nopa", sql);
      HASH_JOIN_ROWS.put(sql, known);
    }
    return known;
  }

  /** getIndexInfo's INDEX_BYTES and PAGES of the one index on orders. */
  private static String indexBytes() throws SQLException {
    try (Connection c = DriverManager.getConnection(url(""));
         ResultSet rs = c.getMetaData().getIndexInfo(null, null, "orders", false, false)) {
      assertTrue(rs.next());
      String bytes = rs.getString("INDEX_BYTES") + " " + rs.getString("PAGES");
      assertFalse(rs.next());
      return bytes;
    }
  }

  private static void update(String sql) throws SQLException {
    try (Connection c = DriverManager.getConnection(url("")); Statement s = c.createStatement()) {
      s.executeUpdate(sql);
    }
  }

  private static String explain(String properties, String sql) throws SQLException {
    return String.join("\n", SpillwayAssert.rows(url(properties), "EXPLAIN PLAN FOR " + sql));
  }

  /** The rows in a stable order. */
  private static List<String> rows(String properties, String sql) throws SQLException {
    List<String> rows = new ArrayList<>(SpillwayAssert.rows(url(properties), sql));
    rows.sort(null);
    return rows;
  }

  /** A connection on the CPU unless {@code properties} name another device. */
  private static String url(String properties) {
    return SpillwayDriver.CONNECT_STRING_PREFIX + "dataDir=" + dir + (properties.contains("device=") ? ""
        : ";device=cpu") + (properties.isEmpty() ? "" : ";" + properties);
  }
}
