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
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.apache.calcite.runtime.Hook;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.spillway.adapter.jdbc.SpillwayDriver;
import org.spillway.storage.BatchBuilder;
import org.spillway.storage.Catalog;
import org.spillway.storage.ColumnDef;
import org.spillway.storage.ColumnType;
import org.spillway.storage.TableSchema;
import org.spillway.storage.TableWriter;

/** The plan cache: repeated queries skip parsing and planning; EXPLAIN, other connections and new tables do not. */
class SpillwayPrepareTest {
  private static final String SUM = "select sum(x) as s from t where x > 1";

  @TempDir static Path dir;

  @BeforeAll static void createTable() {
    write(new TableSchema(List.of(new ColumnDef("x", ColumnType.bigint()))), 0, 10);
  }

  @AfterAll static void closeCatalogs() {
    CatalogRegistry.close(dir);
  }

  /** Writes table t with rows x = from .. to-1 (and y = -x in a leading DOUBLE column when the schema has two). */
  private static void write(TableSchema schema, int from, int to) {
    Catalog catalog = CatalogRegistry.open(dir);
    try (TableWriter writer = catalog.createTable("t", schema)) {
      BatchBuilder batch = writer.newBatch(to - from);
      int x = schema.indexOf("x");
      for (int r = 0; r < to - from; r++) {
        batch.setLong(x, r, from + r);
        if (schema.size() > 1) {
          batch.setDouble(1 - x, r, -(from + r));
        }
      }
      batch.setRowCount(to - from);
      writer.append(batch);
      writer.commit();
    }
  }

  private static Connection connect() throws SQLException {
    return DriverManager.getConnection(SpillwayDriver.CONNECT_STRING_PREFIX + "dataDir=" + dir);
  }

  private static String first(Connection c, String sql) throws SQLException {
    try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
      assertTrue(rs.next(), sql);
      return rs.getString(1);
    }
  }

  /** How many statements Calcite parsed while {@code body} ran on this thread. */
  private static int parses(SqlBody body) throws SQLException {
    AtomicInteger count = new AtomicInteger();
    try (Hook.Closeable hook = Hook.PARSE_TREE.addThread((Consumer<Object>) x -> count.incrementAndGet())) {
      body.run();
    }
    return count.get();
  }

  /** A JDBC step. */
  private interface SqlBody {
    void run() throws SQLException;
  }

  @Test void aRepeatedQueryIsPlannedOncePerConnection() throws SQLException {
    try (Connection c = connect(); Connection other = connect()) {
      assertEquals(1, parses(() -> assertEquals("44", first(c, SUM))));
      assertEquals(0, parses(() -> assertEquals("44", first(c, SUM))));
      assertEquals(0, parses(() -> {
        try (var prepared = c.prepareStatement(SUM); ResultSet rs = prepared.executeQuery()) {
          assertTrue(rs.next());
          assertEquals(44, rs.getLong(1));
        }
      }));
      assertEquals(1, parses(() -> assertEquals("44", first(other, SUM))), "another connection plans for itself");
      assertEquals(1, parses(() -> first(c, SUM + " and x < 100")), "another text is another plan");
    }
  }

  @Test void explainIsPlannedEveryTime() throws SQLException {
    try (Connection c = connect()) {
      assertEquals(1, parses(() -> first(c, "explain plan for " + SUM)));
      assertEquals(1, parses(() -> first(c, "explain plan for " + SUM)));
    }
  }

  @Test void aTableCreatedAgainIsPlannedAgain() throws SQLException {
    try (Connection c = connect()) {
      String sql = "select sum(x) as s from t where x >= 0";
      assertEquals(String.valueOf(45), first(c, sql));
      CatalogRegistry.open(dir).dropTable("t");
      // Same name, x now in the second column behind a DOUBLE: a stale plan would read the wrong column.
      write(new TableSchema(List.of(new ColumnDef("y", ColumnType.float64()), new ColumnDef("x", ColumnType.bigint()))),
          100, 103);
      try {
        assertEquals(1, parses(() -> assertEquals(String.valueOf(100 + 101 + 102), first(c, sql))));
      } finally {
        CatalogRegistry.open(dir).dropTable("t");
        write(new TableSchema(List.of(new ColumnDef("x", ColumnType.bigint()))), 0, 10);
      }
    }
  }

  @Test void onlyQueriesAreCached() {
    assertTrue(SpillwayPrepare.isQuery("  SELECT 1"));
    assertTrue(SpillwayPrepare.isQuery("with a as (select 1) select * from a"));
    assertTrue(SpillwayPrepare.isQuery("( values 1)"));
    assertFalse(SpillwayPrepare.isQuery("explain plan for select 1"));
    assertFalse(SpillwayPrepare.isQuery("create table u (a int)"));
  }
}
