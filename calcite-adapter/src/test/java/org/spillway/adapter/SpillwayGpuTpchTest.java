package org.spillway.adapter;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.sql.SQLException;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.spillway.adapter.jdbc.SpillwayDriver;
import org.spillway.tpch.TpchQueries;

/**
 * All 22 TPC-H queries at SF 0.01 with device=gpu against device=cpu: the same rows in the same order,
 * and Q1 and Q6 really on the GPU. Tagged gpu: skipped without a CUDA device, failed if gpu.required says
 * there must be one.
 */
@Tag("gpu")
class SpillwayGpuTpchTest extends GpuTpchData {

  @Test void everyQueryGivesTheSameRowsOnBothDevices() throws SQLException {
    for (int q = 1; q <= 22; q++) {
      List<String> cpu = rows(SpillwayDevice.CPU, TpchQueries.sql(q));
      List<String> gpu = rows(SpillwayDevice.GPU, TpchQueries.sql(q));
      assertEquals(cpu, gpu, "Q" + q);
    }
  }

  @Test void q1AndQ6RunOnTheGpu() throws SQLException {
    for (int q : new int[] {1, 6}) {
      String plan = String.join("\n", rows(SpillwayDevice.GPU, "explain plan for " + TpchQueries.sql(q)));
      assertTrue(plan.contains("SpillwayAggregate") && plan.contains("device=[gpu]")
          && !SpillwayAssert.belowSorts(plan).contains("device=[cpu]"), "Q" + q + ":\n" + plan);
    }
  }

  /** Every query with each GPU join forced gives the CPU backend's rows (joins of every TPC-H shape). */
  @ParameterizedTest(name = "joinAlgorithm={0}")
  @ValueSource(strings = {"nopa", "triton"})
  void everyQueryGivesTheSameRowsWithEachGpuJoin(String algorithm) throws SQLException {
    for (int q = 1; q <= 22; q++) {
      List<String> cpu = rows(SpillwayDevice.CPU, TpchQueries.sql(q));
      List<String> gpu = rows(SpillwayDevice.GPU + ";joinAlgorithm=" + algorithm, TpchQueries.sql(q));
      assertEquals(cpu, gpu, "Q" + q + " with joinAlgorithm=" + algorithm);
    }
  }

  @ParameterizedTest(name = "joinAlgorithm={0}")
  @ValueSource(strings = {"nopa", "triton"})
  void q3Q5AndQ10JoinOnTheGpu(String algorithm) throws SQLException {
    for (int q : new int[] {3, 5, 10}) {
      String plan = String.join("\n", rows(SpillwayDevice.GPU + ";joinAlgorithm=" + algorithm,
          "explain plan for " + TpchQueries.sql(q)));
      assertTrue(plan.contains("SpillwayJoin(") && plan.contains("device=[gpu], algorithm=[" + algorithm + "]")
          && !plan.contains("algorithm=[cpu-"), "Q" + q + ":\n" + plan);
    }
  }

  /**
   * An aggregation the GPU cannot run (a TEXT group key) over a GPU pipeline's probes runs on the CPU over the rows
   * the GPU returns: the same groups as on the CPU alone, NULL sums of lines without a price included.
   */
  @Test void aTextGroupKeyAggregatesTheGpuPipelinesRowsOnTheCpu() throws SQLException {
    String sql = "select c_name, o_orderkey, count(*) as n, sum(l_quantity) as q, min(l_shipdate) as first_ship "
        + "from lineitem join orders on l_orderkey = o_orderkey join customer on o_custkey = c_custkey "
        + "where o_totalprice > 300000 and l_discount < 0.05 group by c_name, o_orderkey order by c_name, o_orderkey";
    String plan = String.join("\n", rows(SpillwayDevice.GPU, "explain plan for " + sql));
    assertTrue(plan.contains("its aggregation runs on the CPU over the GPU pipeline's rows"), plan);
    List<String> cpu = rows(SpillwayDevice.CPU, sql);
    assertTrue(cpu.size() > 10, "groups: " + cpu.size());
    assertEquals(cpu, rows(SpillwayDevice.GPU, sql));
  }

  private static List<String> rows(Object deviceAndProperties, String sql) throws SQLException {
    String url = SpillwayDriver.CONNECT_STRING_PREFIX + "dataDir=" + dir + ";device=" + deviceAndProperties;
    return SpillwayAssert.rows(url, sql);
  }
}
