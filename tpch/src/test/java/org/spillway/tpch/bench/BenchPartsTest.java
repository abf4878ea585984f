package org.spillway.tpch.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.LocalDate;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The pieces of TpchBenchmark that need neither Spillway nor DuckDB: plans, traces, results and their files. */
class BenchPartsTest {
  /** Q6's plan as EXPLAIN printed it on the H200 (gpu, zero-copy, branching). */
  private static final String PLAN = "SpillwayToEnumerableConverter\n"
      + "  SpillwayAggregate(group=[{}], revenue=[SUM($0)], device=[gpu], variant=[global], transfer=[zero-copy], "
      + "linkBytes=[150440], cost=[gpu 3.021 ms (103.24 MB over the link), cpu 13.742 ms])\n"
      + "    SpillwayFilter(condition=[<($0, 24.00)], device=[gpu], variant=[branching], transfer=[zero-copy], "
      + "linkBytes=[168033520], cost=[gpu 3.021 ms (103.24 MB over the link), cpu 13.742 ms], selectivity=[0.0182])\n"
      + "      SpillwayTableScan(table=[[spillway, lineitem]], fields=[[0, 1, 2, 6]], device=[gpu], "
      + "variant=[chunk-stream], transfer=[zero-copy], linkBytes=[168033520], cost=[gpu 3.021 ms (103.24 MB over "
      + "the link), cpu 13.742 ms])\n";

  @Test void explainedPlansGiveDeviceChoicesBytesAndPredictions() {
    ExplainedPlan plan = ExplainedPlan.parse(PLAN);
    assertEquals("gpu zero-copy branching", plan.ranAs());
    assertEquals(168_033_520L, plan.planBytes());
    assertEquals(3.021, plan.predictedGpuMillis());
    assertEquals(13.742, plan.predictedCpuMillis());
    assertNull(plan.cpuBecause());
    ExplainedPlan cpu = ExplainedPlan.parse("SpillwayToEnumerableConverter(cpuBecause=[the cost model predicts the "
        + "CPU backend faster])\n  SpillwayTableScan(device=[cpu], variant=[morsel-scan], transfer=[none], "
        + "linkBytes=[99], cost=[gpu 1.002 ms (99 B over the link), cpu 0.002 ms])");
    assertEquals("cpu", cpu.ranAs());
    assertEquals("the cost model predicts the CPU backend faster", cpu.cpuBecause());
    assertEquals(99, cpu.planBytes());
  }

  /**
   * Q1's plan: the sort of its four groups runs on the CPU above a GPU pipeline whose scan the CPU shares; the
   * pipeline's scan says how it runs (the SF 100 report had called it "cpu"), and the shared prediction is read too.
   */
  @Test void aSortOnTheCpuAboveASharedGpuScanIsAGpuPlan() {
    ExplainedPlan q1 = ExplainedPlan.parse("SpillwayToEnumerableConverter\n"
        + "  SpillwaySort(sort0=[$0], dir0=[ASC], device=[cpu], variant=[merge-sort])\n"
        + "    SpillwayAggregate(group=[{0, 1}], device=[gpu], variant=[hash], transfer=[pinned copy], linkBytes=[9], "
        + "cost=[gpu 49.413 ms (2.64 GB over the link), cpu 184.100 ms, shared 38.957 ms])\n"
        + "      SpillwayTableScan(table=[[spillway, lineitem]], fields=[[4, 5]], device=[gpu], variant=[chunk-stream], "
        + "transfer=[pinned copy], coprocess=[cpu], linkBytes=[2776742750], cost=[gpu 49.413 ms (2.64 GB over the "
        + "link), cpu 184.100 ms, shared 38.957 ms])\n");
    assertEquals("gpu+cpu pinned copy", q1.ranAs());
    assertEquals(2_776_742_750L, q1.planBytes());
    assertEquals(49.413, q1.predictedGpuMillis());
    assertEquals(184.1, q1.predictedCpuMillis());
  }

  /** DuckDB's lineitem text: cents and percents with two decimal places, ship dates as ISO dates in and out of 1992-1999. */
  @Test void duckDbsLineitemTextHasTwoDecimalPlacesAndIsoDates() {
    assertEquals("0.05", DuckDbTpch.hundredths(new StringBuilder(), 5).toString());
    assertEquals("0.10", DuckDbTpch.hundredths(new StringBuilder(), 10).toString());
    assertEquals("1234.07", DuckDbTpch.hundredths(new StringBuilder(), 123_407).toString());
    assertEquals("0.00", DuckDbTpch.hundredths(new StringBuilder(), 0).toString());
    assertEquals("1992-01-02", DuckDbTpch.date((int) LocalDate.of(1992, 1, 2).toEpochDay()));
    assertEquals("1998-12-01", DuckDbTpch.date((int) LocalDate.of(1998, 12, 1).toEpochDay()));
    assertEquals("2003-05-06", DuckDbTpch.date((int) LocalDate.of(2003, 5, 6).toEpochDay()));
    assertEquals("1970-01-01", DuckDbTpch.date(0));
  }

  @Test void traceLinesAreReadAndOtherLinesAreNot() {
    PipelineTrace trace = new PipelineTrace();
    assertTrue(trace.accept("[spillway] gpu pipeline (zero-copy): 7.3 ms, 0.168 GB streamed in 5.2 ms (32.3 GB/s)"));
    assertEquals(new PipelineTrace.Run("gpu", 7.3, 0.168, 5.2, null), trace.last());
    assertTrue(trace.accept("[spillway] gpu pipeline (pinned copy): 2.0 ms, ran on the CPU: column x holds NULLs"));
    assertEquals("column x holds NULLs", trace.last().fallback());
    assertTrue(trace.accept("[spillway] cpu pipeline (16 threads): 33.1 ms"));
    assertEquals(33.1, trace.last().millis());
    // Since joins, the trace names the table a pipeline scans.
    assertTrue(trace.accept("[spillway] gpu pipeline over SpillwayTable {lineitem} (zero-copy): 14.0 ms, 0.633 GB "
        + "streamed in 12.9 ms (49.1 GB/s)"));
    assertEquals(new PipelineTrace.Run("gpu", 14.0, 0.633, 12.9, null), trace.last());
    assertTrue(trace.accept("[spillway] cpu pipeline over SpillwayTable {lineitem} (16 threads): 54.5 ms"));
    assertEquals(54.5, trace.last().millis());
    assertFalse(trace.accept("an ordinary log line"));
  }

  @Test void resultsMatchExactlyOrWithinTheAverageRounding() {
    ResultRows spillway = new ResultRows(List.of(List.of("A", "3774200.00", "25.53")));
    assertNull(spillway.differenceFrom(new ResultRows(List.of(List.of("A", "3774200.00", "25.537587116854997")))));
    assertEquals("row 0 column 2: 3774200.00 vs 3774200.01",
        spillway.differenceFrom(new ResultRows(List.of(List.of("A", "3774200.01", "25.53")))));
    assertEquals("1 rows vs 0", spillway.differenceFrom(new ResultRows(List.of())));
  }

  @Test void configurationsBecomeConnectionProperties() {
    assertEquals("device=gpu;transfer=pinned-copy;filterVariant=branching;gpuCache=40g",
        new Config("gpu", "pinned copy", "branching", true).properties("40g"));
    assertEquals("device=auto;gpuCache=off", new Config("auto", "", "", false).properties("40g"));
    assertEquals("device=cpu", Config.CPU.properties("40g"));
    assertEquals("gpu zero-copy predication cached", new Config("gpu", "zero-copy", "predication", true).label());
  }

  /** A timer configuration's -D items are system properties while it runs, the rest its connection's properties. */
  @Test void timerConfigurationsSetTheirSystemPropertiesForTheirRunOnly() {
    String config = "device=auto; -Dspillway.test.switch=false;joinAlgorithm=nopa";
    assertEquals("device=auto;joinAlgorithm=nopa", TpchQueryTimer.connectionProperties(config));
    System.setProperty("spillway.test.other", "kept");
    var before = TpchQueryTimer.setSystemProperties(config + ";-Dspillway.test.other=changed");
    assertEquals("false", System.getProperty("spillway.test.switch"));
    assertEquals("changed", System.getProperty("spillway.test.other"));
    TpchQueryTimer.restoreSystemProperties(before);
    assertNull(System.getProperty("spillway.test.switch"));
    assertEquals("kept", System.getProperty("spillway.test.other"));
    System.clearProperty("spillway.test.other");
  }

  /** Over as many rounds as configurations, each runs once in every position. */
  @Test void timerRoundsRotateTheConfigurationsOrder() {
    int n = 4;
    int[][] positions = new int[n][n];
    for (int round = 0; round < n; round++) {
      int[] order = TpchQueryTimer.roundOrder(round, n);
      for (int position = 0; position < n; position++) {
        positions[order[position]][position]++;
      }
    }
    for (int config = 0; config < n; config++) {
      for (int position = 0; position < n; position++) {
        assertEquals(1, positions[config][position], "config " + config + " at position " + position);
      }
    }
    assertEquals(List.of(1, 2, 3, 0), java.util.Arrays.stream(TpchQueryTimer.roundOrder(5, n)).boxed().toList());
  }

  @Test void resultFilesRoundTripAndCheckTheScaleFactor(@TempDir Path dir) throws Exception {
    Measurement gpu = Measurement.of(new Config("gpu", "zero-copy", "branching", false), 6,
        new double[] {0.0071, 0.0073},
        List.of(new PipelineTrace.Run("gpu", 6.5, 0.168, 5.0, null)), ExplainedPlan.parse(PLAN),
        new ResultRows(List.of(java.util.Arrays.asList("123141078.2283", null))));
    Measurement duck = Measurement.of(Config.DUCKDB, 6, new double[] {0.0055}, List.of(), null,
        new ResultRows(List.of(List.of("123141078.2283"))));
    Path file = dir.resolve("results.tsv");
    Measurement failed = Measurement.failed(Config.DUCKDB, 1, "overflow of SUM0");
    ResultsFile.write(file, 1, new PinnedBandwidth(55.34, "measured"), List.of(gpu, duck, failed));
    ResultsFile.Contents read = ResultsFile.read(file, 1);
    assertEquals(55.34, read.link().gbPerSecond());
    assertEquals(3, read.measurements().size());
    assertEquals(0, read.measurements().get(2).seconds().length, "a failed configuration has no timed runs");
    Measurement back = read.measurements().get(0);
    assertEquals(gpu.config(), back.config());
    assertEquals(gpu.median(), back.median(), 1e-12);
    assertEquals(gpu.plan(), back.plan());
    assertEquals(gpu.rows(), back.rows());
    assertEquals(0.168, back.movedGb(), 1e-12);
    assertEquals(duck.rows(), read.measurements().get(1).rows());
    assertThrows(java.io.IOException.class, () -> ResultsFile.read(file, 10));
  }

  /** Rows equal in the ORDER BY columns (TPC-H Q11's equal values) may come in any order; other columns may not. */
  @Test void rowsTiedOnTheOrderByColumnsCompareAsASet() {
    ResultRows duck = new ResultRows(List.of("ps_partkey", "value"), List.of(List.of("7", "30.00"),
        List.of("5", "20.00"), List.of("9", "20.00"), List.of("1", "10.00")));
    ResultRows tiesSwapped = new ResultRows(List.of("PS_PARTKEY", "value"), List.of(List.of("7", "30.00"),
        List.of("9", "20.00"), List.of("5", "20.00"), List.of("1", "10.00")));
    assertNull(duck.differenceFrom(tiesSwapped, List.of("value")));
    assertEquals("row 1 column 1: 5 vs 9", duck.differenceFrom(tiesSwapped), "in order, the swap is a difference");
    ResultRows orderBroken = new ResultRows(List.of("ps_partkey", "value"), List.of(List.of("5", "20.00"),
        List.of("7", "30.00"), List.of("9", "20.00"), List.of("1", "10.00")));
    assertEquals("rows 0 to 0 (equal in the ORDER BY columns [value]): row 0 column 1: 7 vs 5",
        duck.differenceFrom(orderBroken, List.of("value")));
    ResultRows otherSet = new ResultRows(List.of("ps_partkey", "value"), List.of(List.of("7", "30.00"),
        List.of("9", "20.00"), List.of("4", "20.00"), List.of("1", "10.00")));
    assertEquals("rows 1 to 2 (equal in the ORDER BY columns [value]): row 0 column 1: 5 vs 4",
        duck.differenceFrom(otherSet, List.of("value")));
    assertEquals(duck.differenceFrom(tiesSwapped), duck.differenceFrom(tiesSwapped, List.of("no such column")));
    assertEquals(duck, new ResultRows(duck.rows()), "labels do not make rows different");
  }
}
