package org.spillway.adapter;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.spillway.adapter.jdbc.SpillwayDriver;
import org.spillway.gpu.device.GpuRuntime;
import org.spillway.storage.BatchBuilder;
import org.spillway.storage.Catalog;
import org.spillway.storage.ColumnDef;
import org.spillway.storage.ColumnType;
import org.spillway.storage.TableSchema;
import org.spillway.storage.TableWriter;

/**
 * Forcing the device: cpu runs the Spillway nodes on the CPU backend; gpu runs them on the GPU where there is
 * one and the pipeline is supported, else on the CPU backend with the reason in EXPLAIN (never in Calcite).
 */
class SpillwayDeviceTest {
  private static final String SQL = "select sum(x) as s from t where x > 1";
  /** MIN of a DOUBLE: the GPU kernel computes exact long-lane values only. */
  private static final String FLOAT_SQL = "select min(y) as m from t where x > 1";

  @TempDir static Path dir;

  @BeforeAll static void createTable() {
    Catalog catalog = CatalogRegistry.open(dir);
    try (TableWriter writer = catalog.createTable("t", new TableSchema(List.of(
        new ColumnDef("x", ColumnType.bigint()), new ColumnDef("y", ColumnType.float64()))))) {
      BatchBuilder batch = writer.newBatch(4);
      for (int r = 0; r < 4; r++) {
        batch.setLong(0, r, r);
        batch.setDouble(1, r, r / 4.0);
      }
      batch.setRowCount(4);
      writer.append(batch);
      writer.commit();
    }
  }

  @AfterAll static void closeCatalogs() {
    CatalogRegistry.close(dir);
  }

  @Test void cpuRunsInSpillway() throws SQLException {
    assertEquals("5", run(SpillwayDevice.CPU, SQL));
    String plan = run(SpillwayDevice.CPU, "explain plan for " + SQL);
    assertTrue(plan.startsWith("SpillwayToEnumerableConverter\n  SpillwayAggregate"), plan);
  }

  @Test void forcedGpuRunsInSpillwayOnTheGpuOrSaysWhyNot() throws SQLException {
    assertEquals("5", run(SpillwayDevice.GPU, SQL));
    String plan = run(SpillwayDevice.GPU, "explain plan for " + SQL);
    assertTrue(plan.startsWith("SpillwayToEnumerableConverter"), plan);
    if (GpuRuntime.device().isPresent()) {
      assertTrue(plan.contains("SpillwayAggregate(group=[{}], s=[SUM($0)], device=[gpu], variant=[global], "
          + "transfer=["), plan);
      // The filter's variant is the cost model's choice (SpillwayCostModelTest pins the rule).
      assertTrue(plan.matches("(?s).*SpillwayFilter\\(.*device=\\[gpu], variant=\\[(branching|predication)], "
          + "transfer=\\[.*"), plan);
      assertFalse(plan.contains("cpuBecause"), plan);
    } else {
      assertTrue(plan.contains("cpuBecause=[no usable CUDA device: "), plan);
      assertTrue(plan.contains("device=[cpu], variant=[global], transfer=[none]"), plan);
    }
  }

  @Test void forcedGpuKeepsUnsupportedPipelinesOnTheCpuBackend() throws SQLException {
    assertEquals("0.5", run(SpillwayDevice.GPU, FLOAT_SQL));
    String plan = run(SpillwayDevice.GPU, "explain plan for " + FLOAT_SQL);
    assertTrue(plan.startsWith("SpillwayToEnumerableConverter(cpuBecause=["), plan);
    assertTrue(plan.contains(GpuRuntime.device().isPresent() ? "not supported on the GPU: MIN of FLOAT64"
        : "no usable CUDA device"), plan);
    assertFalse(plan.contains("device=[gpu]"), plan);
  }

  @Test void cpuNeverExplainsItself() throws SQLException {
    String plan = run(SpillwayDevice.CPU, "explain plan for " + FLOAT_SQL);
    assertFalse(plan.contains("cpuBecause"), plan);
    assertFalse(plan.contains("device=[gpu]"), plan);
  }

  @Test void deviceNamesParseCaseInsensitivelyAndRejectOthers() {
    assertEquals(SpillwayDevice.AUTO, SpillwayDevice.parse(" Auto"));
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> SpillwayDevice.parse("tpu"));
    assertEquals("device 'tpu' is not one of cpu, gpu, auto", e.getMessage());
  }

  @Test void badDevicePropertyFailsTheConnection() {
    SQLException e = assertThrows(SQLException.class, () -> DriverManager.getConnection(
        SpillwayDriver.CONNECT_STRING_PREFIX + "dataDir=" + dir + ";device=tpu"));
    assertTrue(e.getMessage().contains("device 'tpu' is not one of cpu, gpu, auto"), e.getMessage());
  }

  @Test void badJoinAlgorithmPropertyFailsTheConnection() {
    SQLException e = assertThrows(SQLException.class, () -> DriverManager.getConnection(
        SpillwayDriver.CONNECT_STRING_PREFIX + "dataDir=" + dir + ";joinAlgorithm=hash"));
    assertEquals("joinAlgorithm 'hash' is not one of auto, cpu-nopa, cpu-radix, nopa, triton, inlj, gpu-inlj", e.getMessage());
    assertEquals(SpillwayJoinAlgorithm.CPU_RADIX, SpillwayJoinAlgorithm.parse(" CPU-Radix"));
  }

  /** The first column of the first row, over a connection with the device property set. */
  private static String run(SpillwayDevice device, String sql) throws SQLException {
    String url = SpillwayDriver.CONNECT_STRING_PREFIX + "dataDir=" + dir + ";device=" + device;
    try (Connection c = DriverManager.getConnection(url);
         Statement s = c.createStatement();
         ResultSet rs = s.executeQuery(sql)) {
      rs.next();
      return rs.getString(1);
    }
  }
}
