package org.spillway.adapter;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.sql.SQLException;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.spillway.adapter.jdbc.SpillwayDriver;

/**
 * EXPLAIN ANALYZE with device=gpu: the pipeline of a Q6-style aggregate over lineitem and a Triton join report
 * the GPU, their rows and bytes over the link. Tagged gpu: skipped without a CUDA device, failed if gpu.required
 * says there must be one.
 */
@Tag("gpu")
class SpillwayExplainAnalyzeGpuTest extends GpuTpchData {

  @Test void aGpuPipelineReportsTheGpuAndItsLinkBytes() throws SQLException {
    String url = SpillwayDriver.CONNECT_STRING_PREFIX + "dataDir=" + dir + ";device=gpu";
    String query = "SELECT SUM(l_extendedprice * l_discount) AS revenue FROM lineitem"
        + " WHERE l_shipdate >= DATE '1994-01-01' AND l_quantity < 24";
    SpillwayExplainAnalyzeTest.Analysis analysis = SpillwayExplainAnalyzeTest.Analysis.of(
        SpillwayExplainAnalyzeTest.lines(url, "EXPLAIN ANALYZE " + query));
    assertEquals(1, analysis.rows());
    List<SpillwayExplainAnalyzeTest.Operator> scans = analysis.operators().stream()
        .filter(o -> o.label().equals("pipeline over lineitem")).toList();
    assertEquals(1, scans.size(), analysis.text());
    SpillwayExplainAnalyzeTest.Operator scan = scans.get(0);
    assertEquals("gpu", scan.device(), analysis.text());
    assertEquals(1, scan.rows(), analysis.text());
    assertTrue(Double.parseDouble(scan.linkGb()) > 0, analysis.text());
    assertTrue(Double.parseDouble(scan.rate()) > 0, analysis.text());
    assertTrue(Double.parseDouble(scan.predicted()) > 0, "the cost model's GPU prediction: " + analysis.text());
  }

  /**
   * A Triton join (a join node of its own: a NOPA table in GPU memory is probed inside a GPU pipeline instead)
   * reports the GPU, the join's rows (as the CPU counts them) and its keys' bytes over the link.
   */
  @Test void aGpuJoinReportsTheGpuAndItsLinkBytes() throws SQLException {
    String cpu = SpillwayDriver.CONNECT_STRING_PREFIX + "dataDir=" + dir + ";device=cpu";
    String gpu = SpillwayDriver.CONNECT_STRING_PREFIX + "dataDir=" + dir + ";device=gpu;joinAlgorithm=triton";
    String join = "FROM orders JOIN lineitem ON o_orderkey = l_orderkey WHERE o_totalprice > 1000";
    long joinRows = Long.parseLong(SpillwayAssert.rows(cpu, "SELECT COUNT(*) " + join).get(0));
    SpillwayExplainAnalyzeTest.Analysis analysis = SpillwayExplainAnalyzeTest.Analysis.of(
        SpillwayExplainAnalyzeTest.lines(gpu, "EXPLAIN ANALYZE SELECT SUM(l_quantity), MAX(o_orderdate) " + join));
    List<SpillwayExplainAnalyzeTest.Operator> joins = analysis.operators().stream()
        .filter(o -> o.label().contains(" join on ")).toList();
    assertEquals(1, joins.size(), analysis.text());
    assertEquals("gpu", joins.get(0).device(), analysis.text());
    assertEquals(joinRows, joins.get(0).rows(), analysis.text());
    assertTrue(Double.parseDouble(joins.get(0).linkGb()) > 0, analysis.text());
  }
}
