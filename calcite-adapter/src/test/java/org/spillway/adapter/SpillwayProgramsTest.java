package org.spillway.adapter;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.spillway.adapter.jdbc.SpillwayDriver;
import org.spillway.tpch.ProgressListener;
import org.spillway.tpch.TpchGenerator;
import org.spillway.tpch.TpchQueries;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Tests the optimizer program: heuristic join order and OR factoring keep TPC-H plans sane. */
class SpillwayProgramsTest {
  @TempDir static Path dir;

  @BeforeAll static void generate() {
    TpchGenerator.generate(dir, 0.001, 2, ProgressListener.NONE);
  }

  @AfterAll static void release() {
    CatalogRegistry.close(dir);
  }

  private static String plan(int query) throws SQLException {
    try (Connection c = DriverManager.getConnection(SpillwayDriver.CONNECT_STRING_PREFIX + "dataDir=" + dir);
         Statement s = c.createStatement();
         ResultSet rs = s.executeQuery("explain plan for " + TpchQueries.sql(query))) {
      assertTrue(rs.next());
      return rs.getString(1);
    }
  }

  /** Whether every join of a plan is an equi-join (Spillway's, hash or merge), none a nested loop. */
  private static void assertEquiJoins(String plan) {
    assertFalse(plan.contains("NestedLoopJoin"), plan);
    assertTrue(plan.contains("SpillwayJoin") || plan.contains("HashJoin") || plan.contains("MergeJoin"), plan);
  }

  /** Q19 repeats its join key in every OR branch; once it is factored out the join is an equi-join. */
  @Test void q19JoinKeyIsPulledOutOfTheOr() throws SQLException {
    String plan = plan(19);
    assertEquiJoins(plan);
    assertTrue(plan.contains("condition=[AND(=("), plan);
  }

  /** Q7 and Q5 (five joins each) took minutes under exhaustive join enumeration. */
  @Test @Timeout(value = 30, unit = TimeUnit.SECONDS) void fiveWayJoinsPlanQuickly() throws SQLException {
    assertEquiJoins(plan(7));
    assertEquiJoins(plan(5));
  }
}
