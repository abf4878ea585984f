package org.spillway.adapter;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.sql.SQLException;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.spillway.adapter.jdbc.SpillwayDriver;
import org.spillway.tpch.TpchQueries;

/**
 * Mark joins that the CPU marks (forced here: the GPU would mark them itself) after a GPU pass reduced their probe
 * side to the rows the build side's keys keep ({@link SpillwayMarkReduction}): TPC-H Q21 (EXISTS and NOT EXISTS on
 * lineitem, one mark join), Q21 over every nation (more rows), and single semi- and anti-joins under a residual that
 * reads the build side; on device=gpu and auto the same rows as on device=cpu, and on device=gpu the plan says the
 * GPU reduced the probe side (the reduction forced, {@link SpillwayBackend#MARK_REDUCTION_PROPERTY}). Tagged gpu: skipped without a CUDA device, failed if gpu.required says there must be one.
 */
@Tag("gpu")
class SpillwayMarkReductionGpuTest extends GpuTpchData {
  /** At SF 0.01 the cost model never predicts the reduction faster: forced, so that the GPU path runs. */
  @BeforeAll static void forceTheReduction() {
    System.setProperty(SpillwayBackend.MARK_REDUCTION_PROPERTY, "force");
  }

  @AfterAll static void leaveItToTheCostModel() {
    System.clearProperty(SpillwayBackend.MARK_REDUCTION_PROPERTY);
  }

  private static final String Q21_ALL_NATIONS = TpchQueries.sql(21).replace("and n_name = 'SAUDI ARABIA'", "");
  private static final String SEMI_UNDER_RESIDUAL = """
      select o_orderpriority, count(*) as c from orders
      where o_orderdate < date '1994-01-01'
        and exists (select * from lineitem where l_orderkey = o_orderkey and l_suppkey <> o_custkey
                    and l_commitdate < l_receiptdate)
      group by o_orderpriority order by o_orderpriority""";
  private static final String ANTI_UNDER_RESIDUAL = SEMI_UNDER_RESIDUAL.replace("and exists", "and not exists");


  @Test void reducedMarkJoinsGiveTheSameRowsOnBothDevices() throws SQLException {
    for (String sql : List.of(TpchQueries.sql(21), Q21_ALL_NATIONS, SEMI_UNDER_RESIDUAL, ANTI_UNDER_RESIDUAL)) {
      List<String> cpu = rows("cpu", sql);
      assertNotEquals(List.of(), cpu, sql);
      assertEquals(cpu, rows("gpu", sql), sql);
      assertEquals(cpu, rows("auto", sql), sql);
    }
  }

  @Test void theGpuReducesTheProbeSideOfMarkJoinsItCannotMark() throws SQLException {
    for (String sql : List.of(TpchQueries.sql(21), SEMI_UNDER_RESIDUAL, ANTI_UNDER_RESIDUAL)) {
      String plan = String.join("\n", rows("gpu", "explain plan for " + sql));
      assertTrue(plan.contains("reduction=[gpu semi-join]") && plan.contains(
          "SpillwayTableScan(table=[[spillway, lineitem]]") && plan.matches(
          "(?s).*SpillwayTableScan\\(table=\\[\\[spillway, lineitem]], fields=\\[\\[[0-9, ]*]], device=\\[gpu].*"),
          plan);
    }
  }

  private static List<String> rows(String device, String sql) throws SQLException {
    return SpillwayAssert.rows(SpillwayDriver.CONNECT_STRING_PREFIX + "dataDir=" + dir + ";device=" + device, sql);
  }
}
