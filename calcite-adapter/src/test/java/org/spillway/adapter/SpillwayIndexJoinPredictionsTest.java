package org.spillway.adapter;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.spillway.gpu.bench.BenchReport;
import org.spillway.gpu.calibrate.MachineProfile;
import org.spillway.gpu.join.inlj.TranslationSlices;

/**
 * The cost model's predictions and picks over the index join benchmark's CSV: at 0.01% of R = 32 GiB the GPU index
 * join is predicted and measured fastest, at 20% GPU NOPA; a pick that is not the fastest is judged against the 10%
 * tolerance; a join the model does not know is left out of the pick. On the target run recorded on the H100 host
 * (its profile and CSV in the test resources), the pick is within 10% of the fastest on every point.
 */
class SpillwayIndexJoinPredictionsTest {
  private static final double R_ROWS = 32.0 * (1L << 30) / 8;

  /** The benchmark's columns, one row of a point. */
  private static void point(BenchReport report, double selectivity, String join, String device, double ms) {
    String label = "sel " + selectivity + "%";
    double sRows = Math.round(R_ROWS * selectivity / 100);
    report.row("selectivity", label + " " + join + " " + device, 32.0, R_ROWS, sRows, selectivity, 32.0, join, device,
        join + " " + device, ms, ms, sRows / ms / 1e3, 1e3 / ms, "");
  }

  private static BenchReport measured(double nopaAtLowMs) {
    BenchReport report = new BenchReport("index join", List.of("sweep", "case", "R GiB", "R rows", "S rows",
        "selectivity %", "window MiB", "join", "device", "line", "ms", "total ms", "M keys/s", "Q/s", "note"));
    point(report, 0.01, "inlj/RADIXSPLINE", "gpu", 20);
    point(report, 0.01, "nopa", "gpu", nopaAtLowMs);
    point(report, 0.01, "mystery", "gpu", 1);
    point(report, 20, "inlj/RADIXSPLINE", "gpu", 9000);
    point(report, 20, "nopa", "gpu", 1300);
    return report;
  }

  @Test void thePicksFollowThePredictionsAndAreJudgedAgainstTheFastest(@TempDir Path dir) throws Exception {
    MachineProfile h100 = AssumedGpuSite.h100(true).profile();
    SpillwayIndexJoinPredictions.Tables tables = SpillwayIndexJoinPredictions.predict(measured(1100), h100);
    BenchReport picks = tables.picks();
    assertEquals(2, picks.rowCount());
    assertEquals("inlj/RADIXSPLINE gpu", picks.cell(0, "model picks"));
    assertEquals("inlj/RADIXSPLINE gpu", picks.cell(0, "fastest"), "the unknown join is not a candidate");
    assertEquals("yes", picks.cell(0, "within 10%"));
    String planner = picks.cell(0, "planner chooses").toString();
    assertTrue(planner.startsWith("gpu-inlj/radixspline ") || planner.startsWith("inlj/radixspline "), planner);
    assertTrue(picks.cell(1, "planner chooses").toString().startsWith("cpu-nopa/linear-probing ")
        && picks.cell(1, "planner chooses").toString().contains(", in a gpu pipeline "),
        "the pipelined hash join: " + picks.cell(1, "planner chooses"));
    assertEquals("nopa gpu", picks.cell(1, "model picks"));
    assertEquals("yes", picks.cell(1, "within 10%"));
    BenchReport predicted = tables.predicted();
    assertEquals(5, predicted.rowCount());
    for (int row = 0; row < predicted.rowCount(); row++) {
      double ms = ((Number) predicted.cell(row, "predicted ms")).doubleValue();
      assertEquals(predicted.cell(row, "join").equals("mystery"), Double.isNaN(ms), predicted.cell(row, "join")
          + ": " + ms);
    }
    // measured: NOPA faster than the index join at 0.01%, which the model still picks
    BenchReport missed = SpillwayIndexJoinPredictions.predict(measured(10), h100).picks();
    assertEquals("nopa gpu", missed.cell(0, "fastest"));
    assertEquals("inlj/RADIXSPLINE gpu", missed.cell(0, "model picks"));
    assertEquals(2.0, ((Number) missed.cell(0, "pick / fastest")).doubleValue(), 1e-9);
    assertEquals("no", missed.cell(0, "within 10%"));
    Path csv = dir.resolve("index-join.csv");
    measured(1100).writeCsv(csv);
    Path profile = dir.resolve("profile.json");
    h100.write(profile);
    SpillwayIndexJoinPredictions.main(new String[] {csv.toString(), profile.toString()});
    assertEquals(picks.rowCount(), BenchReport.readCsv("picks", dir.resolve("index-join-picks.csv")).rowCount());
    assertTrue(Files.isRegularFile(dir.resolve("index-join-predicted.csv")));
  }

  /**
   * The GPU index join at several translation reaches (one case, the same join and device, a line each): one case
   * with one pick among them all, named by the line, and every row predicted (the model knows no reach: the same time).
   */
  @Test void translationReachesAreRowsOfOneCaseNamedByTheirLine() {
    BenchReport report = new BenchReport("index join", List.of("sweep", "case", "R GiB", "R rows", "S rows",
        "selectivity %", "window MiB", "windows", "reach", "slices", "join", "device", "line", "ms", "total ms",
        "M keys/s", "Q/s", "note"));
    double sRows = Math.round(R_ROWS / 100);
    String[][] rows = {{"inlj/RADIXSPLINE", "gpu", "unlimited", "1", "900"}, {"inlj/RADIXSPLINE", "gpu", "4g", "16",
        "300"}, {"nopa", "gpu", "", null, "1350"}};
    for (String[] r : rows) {
      String line = r[0] + " " + r[1] + (r[2].isEmpty() || r[2].equals("unlimited") ? "" : " reach " + r[2]);
      double ms = Double.parseDouble(r[4]);
      report.row("size 1.0%", "R 32.0 GiB sel 1.0% " + line, 32.0, R_ROWS, sRows, 1.0, 512.0, 1,
          r[2], r[3] == null ? null : Integer.valueOf(r[3]), r[0], r[1], line, ms, ms, sRows / ms / 1e3, 1e3 / ms, "");
    }
    SpillwayIndexJoinPredictions.Tables tables = SpillwayIndexJoinPredictions.predict(report,
        AssumedGpuSite.h100(true).profile());
    BenchReport picks = tables.picks();
    assertEquals(1, picks.rowCount(), "one case");
    assertEquals("R 32.0 GiB sel 1.0%", picks.cell(0, "case"));
    assertEquals("inlj/RADIXSPLINE gpu reach 4g", picks.cell(0, "fastest"));
    BenchReport predicted = tables.predicted();
    assertEquals(3, predicted.rowCount());
    assertEquals("inlj/RADIXSPLINE gpu reach 4g", predicted.cell(1, "line"));
    assertEquals(predicted.cell(0, "predicted ms"), predicted.cell(1, "predicted ms"));
  }

  /**
   * The CPU index join is predicted in the windows its run had: the CSV's {@code windows} column, or, in a CSV
   * without it (recorded before the windows were balanced over the threads), the probe over the window's keys.
   */
  @Test void theCpuIndexJoinIsPredictedInTheWindowsItsRunHad() {
    List<String> columns = List.of("sweep", "case", "R GiB", "R rows", "S rows", "selectivity %", "window MiB",
        "windows", "join", "device", "line", "ms", "total ms", "M keys/s", "Q/s", "note");
    MachineProfile h100 = AssumedGpuSite.h100(true).profile();
    double[] predicted = new double[3];
    Object[] windows = {1.0, 16.0, null};
    for (int i = 0; i < 3; i++) {
      BenchReport report = new BenchReport("index join", columns);
      report.row("selectivity", "sel 0.01% inlj/RADIXSPLINE cpu", 32.0, R_ROWS, 429_497.0, 0.01, 32.0, windows[i],
          "inlj/RADIXSPLINE", "cpu", "inlj/RADIXSPLINE cpu", 10.0, 10.0, 42.9, 100.0, "");
      predicted[i] = ((Number) SpillwayIndexJoinPredictions.predict(report, h100).predicted().cell(0, "predicted ms"))
          .doubleValue();
    }
    assertTrue(predicted[0] > 10 * predicted[1], "one window on one thread: " + predicted[0] + " vs " + predicted[1]);
    assertEquals(predicted[0], predicted[2], 1e-9, "429 497 keys are one window of 32 MiB");
  }

  /**
   * Issue #15's target on the recorded run (docs/bench/index-join/session8-target: R of 32 GiB, 0.01% to 20%, the H100
   * host's profile): the model's pick is the fastest measured join, or within 10% of it, at every point. The CPU
   * index joins at 0.01% to 1% ran in fewer windows than threads there (cut by the 32 MiB budget alone), which the
   * model charges as rounds of windows; predicted as if every thread took part, they were picked at 3-26x the fastest.
   */
  @Test void onTheRecordedTargetRunThePickIsWithinTenPercentEverywhere() throws Exception {
    String before = System.getProperty(TranslationSlices.PROPERTY);
    try {
      System.setProperty(TranslationSlices.PROPERTY, "unlimited");  // that run's lookups: one launch a window
      assertPicksWithinTenPercent("session8-target", "profile.json");
    } finally {
      if (before == null) {
        System.clearProperty(TranslationSlices.PROPERTY);
      } else {
        System.setProperty(TranslationSlices.PROPERTY, before);
      }
    }
  }

  /**
   * The same on session 16's run (docs/bench/index-join/session16-h200: an H200, the GPU lookups in 1 GiB translation
   * slices, the engine's default; the profile rebuilt from the same call's calibration output): GPU RadixSpline is
   * fastest up to 5%, GPU NOPA at 20%, and the model picks each.
   */
  @Test void onTheSlicedTargetRunThePickIsTheFastestEverywhere() throws Exception {
    assertEquals(1L << 30, TranslationSlices.configuredReach(), "the engine's default reach");
    assertPicksWithinTenPercent("session16-h200", "profile-h200-rebuilt.json");
  }

  private static void assertPicksWithinTenPercent(String run, String profile) throws Exception {
    BenchReport measured = BenchReport.readCsv("index join", resource(run, "index-join.csv"));
    MachineProfile h100 = MachineProfile.read(resource(run, profile));
    BenchReport picks = SpillwayIndexJoinPredictions.predict(measured, h100).picks();
    assertEquals(5, picks.rowCount());
    List<String> missed = new ArrayList<>();
    for (int row = 0; row < picks.rowCount(); row++) {
      if (!"yes".equals(picks.cell(row, "within 10%"))) {
        missed.add(picks.cell(row, "case") + ": " + picks.cell(row, "model picks") + " at "
            + picks.cell(row, "pick / fastest") + "x " + picks.cell(row, "fastest"));
      }
    }
    assertTrue(missed.isEmpty(), "picks beyond 10% of the fastest: " + missed + "\n" + picks.toTable());
  }

  private static Path resource(String run, String name) throws URISyntaxException {
    return Path.of(SpillwayIndexJoinPredictionsTest.class.getResource("/index-join/" + run + "/" + name).toURI());
  }
}
