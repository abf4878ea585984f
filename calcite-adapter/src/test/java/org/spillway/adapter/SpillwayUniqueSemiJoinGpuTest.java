package org.spillway.adapter;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.sql.SQLException;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.spillway.adapter.jdbc.SpillwayDriver;
import org.spillway.tpch.TpchQueries;

/**
 * TPC-H Q17, whose SEMI join with a residual on unique part keys runs as an INNER join and a filter
 * ({@link SpillwayUniqueSemiJoinRule}), and its variants over all parts of the brand (at SF 0.01 no line of Q17's
 * own parts passes the residual) with AVG and with MAX (a residual of decimals), on device=gpu and auto against
 * device=cpu: the same rows, and the lineitem pipelines of both variants probe the parts on the GPU. Tagged gpu: skipped
 * without a CUDA device, failed if gpu.required says there must be one.
 */
@Tag("gpu")
class SpillwayUniqueSemiJoinGpuTest extends GpuTpchData {
  private static final String BRAND = TpchQueries.sql(17).replace("  and p_container = 'MED BOX'\n", "");
  private static final String BRAND_MAX = BRAND.replace("avg(l_quantity)", "max(l_quantity)");


  @Test void q17GivesTheSameRowsOnBothDevices() throws SQLException {
    for (String sql : List.of(TpchQueries.sql(17), BRAND, BRAND_MAX)) {
      List<String> cpu = rows("cpu", sql);
      assertEquals(cpu, rows("gpu", sql), sql);
      assertEquals(cpu, rows("auto", sql), sql);
    }
    assertNotEquals(List.of("null"), rows("cpu", BRAND), "no line of the brand passed the residual");
  }

  /** Both variants: MAX's residual compares decimals, AVG's compares DOUBLEs, which the GPU interpreter computes. */
  @Test void q17ProbesItsPartsInAGpuPipeline() throws SQLException {
    for (String sql : List.of(BRAND_MAX, BRAND)) {
      String plan = String.join("\n", rows("gpu", "explain plan for " + sql));
      assertTrue(plan.contains("joinType=[inner], device=[gpu], algorithm=[nopa], placement=[gpu], "
          + "probe=[in a gpu pipeline]") && !plan.contains("beyond key equality") && !plan.contains("FLOAT64"), plan);
    }
  }

  private static List<String> rows(String device, String sql) throws SQLException {
    return SpillwayAssert.rows(SpillwayDriver.CONNECT_STRING_PREFIX + "dataDir=" + dir + ";device=" + device, sql);
  }
}
