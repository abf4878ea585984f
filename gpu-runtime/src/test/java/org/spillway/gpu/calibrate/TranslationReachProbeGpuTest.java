package org.spillway.gpu.calibrate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.spillway.gpu.GpuTest;
import org.spillway.gpu.bench.BenchReport;
import org.spillway.gpu.device.GpuRuntime;

/** The translation reach probe measures every region, slicing and sweep of the largest region, each read counted. */
@GpuTest
class TranslationReachProbeGpuTest {
  @Test
  void measuresEveryRegionSlicingAndSweep() {
    TranslationReachProbe.Options options = TranslationReachProbe.Options.parse(new String[] {"--regions",
        "1m,16m", "--slices", "1m,4m", "--footprints", "2m", "--reads-per-page", "64", "--reps", "2"});
    BenchReport report = TranslationReachProbe.measure(GpuRuntime.requireDevice(), options);
    assertEquals(5, report.rowCount(), "two regions, two slicings and a sweep of the largest");
    String[] patterns = {"random", "random", "slices", "slices", "sweep"};
    double[] launches = {1, 1, 16, 4, 1};
    for (int row = 0; row < report.rowCount(); row++) {
      assertEquals(patterns[row], report.cell(row, "pattern"), "row " + row);
      assertEquals(launches[row], ((Number) report.cell(row, "launches")).doubleValue(), "row " + row);
      double ns = ((Number) report.cell(row, "ns per read")).doubleValue();
      assertTrue(ns > 0 && ns < 1e6, "row " + row + ": " + ns + " ns per read");
    }
    assertEquals(16.0 / 1024, ((Number) report.cell(4, "region GiB")).doubleValue());
    assertEquals(2.0 / 1024, ((Number) report.cell(4, "part GiB")).doubleValue());
    assertEquals(16.0 * 256 * 64, ((Number) report.cell(2, "reads")).doubleValue(), "64 reads per page of 16 MiB");
  }
}
