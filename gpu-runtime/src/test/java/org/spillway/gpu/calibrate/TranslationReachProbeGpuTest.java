package org.spillway.gpu.calibrate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.spillway.gpu.GpuTest;
import org.spillway.gpu.bench.BenchReport;
import org.spillway.gpu.device.GpuRuntime;

/** The translation reach probe measures every region and every slicing of the largest, each read counted. */
@GpuTest
class TranslationReachProbeGpuTest {
  @Test
  void measuresEveryRegionAndEverySlicing() {
    TranslationReachProbe.Options options = TranslationReachProbe.Options.parse(new String[] {"--regions",
        "1m,16m", "--slices", "1m,4m", "--reads", "100000", "--reps", "2"});
    BenchReport report = TranslationReachProbe.measure(GpuRuntime.requireDevice(), options);
    assertEquals(4, report.rowCount(), "two regions, two slicings of the largest");
    double[] slices = {1, 1, 16, 4};
    for (int row = 0; row < report.rowCount(); row++) {
      assertEquals(slices[row], ((Number) report.cell(row, "slices")).doubleValue(), "row " + row);
      double ns = ((Number) report.cell(row, "ns per read")).doubleValue();
      assertTrue(ns > 0 && ns < 1e6, "row " + row + ": " + ns + " ns per read");
    }
    assertEquals(16.0 / 1024, ((Number) report.cell(3, "region GiB")).doubleValue());
    assertEquals(100_000.0, ((Number) report.cell(2, "reads")).doubleValue(), "16 slices of 6250 reads");
  }
}
