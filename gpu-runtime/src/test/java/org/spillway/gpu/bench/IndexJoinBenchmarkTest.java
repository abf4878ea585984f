package org.spillway.gpu.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import javax.imageio.ImageIO;
import java.util.HashSet;
import java.util.Set;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.spillway.gpu.index.IndexKind;
import org.spillway.gpu.join.inlj.TranslationSlices;

/**
 * The index join benchmark runs end to end on tiny relations on the CPU (every join checked), and its crossover
 * is where the two curves meet.
 */
class IndexJoinBenchmarkTest {
  @Test
  void writesARowPerJoinOfEveryCase(@TempDir Path out) throws Exception {
    IndexJoinBenchmark.main(new String[] {"--out", out.toString(), "--sizes", "0.0001,0.0002", "--probe-keys", "3000",
        "--selectivities", "0.5,20", "--sweep-gib", "0.0001", "--windows", "8,10", "--runs", "1", "--threads", "2",
        "--joins", "cpu-inlj,cpu-nopa,cpu-radix", "--cpu-only"});
    BenchReport report = BenchReport.readCsv("index join", out.resolve("index-join.csv"));
    // sizes and selectivities: 4 index kinds + 2 hash joins each; windows: the 4 index kinds
    assertEquals(2 * 6 + 2 * 6 + 2 * 4, report.rowCount());
    Set<String> cases = new HashSet<>();
    for (int row = 0; row < report.rowCount(); row++) {
      assertTrue(cases.add(report.cell(row, "case").toString()), "cases are unique labels for the chart");
      assertTrue(((Number) report.cell(row, "ms")).doubleValue() > 0);
      assertEquals("cpu", report.cell(row, "device"));
      boolean inlj = report.cell(row, "join").toString().startsWith("inlj/");
      assertEquals(inlj, report.cell(row, "windows") instanceof Number, "an index join's windows: " + row);
    }
    assertEquals("size", report.cell(0, "sweep"));
    assertEquals(2.0, report.cell(0, "windows"), "3000 probe keys within one window, a window per thread");
    assertEquals("inlj/BINARY_SEARCH", report.cell(0, "join"));
    assertEquals(3000.0, report.cell(0, "S rows"));
    assertEquals("window", report.cell(report.rowCount() - 1, "sweep"));
    assertEquals("inlj/RADIXSPLINE", report.cell(report.rowCount() - 1, "join"));
    BenchReport crossover = BenchReport.readCsv("crossover", out.resolve("index-join-crossover.csv"));
    assertEquals(2, crossover.rowCount());  // selectivity and size, for the CPU index join
  }

  /**
   * The target preset's run at a tiny size on the CPU: R's keys with gaps, 10% of the probes missing (every run is
   * checked against them), the CPU index joins of both kinds at each selectivity, a CSV with a row per point; and the
   * charts drawn from that CSV.
   */
  @Test
  void theTargetPresetRunsAtATinySizeOnTheCpuAndItsCsvDraws(@TempDir Path out) throws Exception {
    IndexJoinBenchmark.main(new String[] {"--preset", "target", "--sweep-gib", "0.001", "--threads", "2",
        "--out", out.toString(), "--cpu-only"});
    BenchReport report = BenchReport.readCsv("index join", out.resolve("index-join.csv"));
    assertEquals(5 * 2, report.rowCount(), "5 selectivities, RadixSpline and binary search on the CPU");
    for (int row = 0; row < report.rowCount(); row++) {
      assertEquals("selectivity", report.cell(row, "sweep"));
      assertEquals("cpu", report.cell(row, "device"));
      assertTrue(((Number) report.cell(row, "ms")).doubleValue() > 0, report.cell(row, "note").toString());
    }
    assertEquals("inlj/RADIXSPLINE cpu", report.cell(0, "line"));
    assertEquals(0.01, ((Number) report.cell(0, "selectivity %")).doubleValue(), 1e-3);
    assertEquals(20.0, ((Number) report.cell(report.rowCount() - 1, "selectivity %")).doubleValue(), 1e-3);
    List<Path> charts = IndexJoinChart.draw(report, out);
    assertEquals(List.of(out.resolve("index-join-selectivity.png")), charts);
    assertTrue(ImageIO.read(charts.get(0).toFile()).getWidth() > 100);
  }

  /**
   * The sizes preset at tiny sizes on the CPU: each size at each selectivity of the preset (0.1% and 1%), a sweep and
   * a chart per selectivity, R of every size the first rows of the one written; the size of R and the probe as asked.
   */
  @Test
  void theSizesPresetSweepsRAtFixedSelectivitiesAtATinySize(@TempDir Path out) throws Exception {
    IndexJoinBenchmark.main(new String[] {"--preset", "sizes", "--sizes", "0.001,0.004", "--threads", "2",
        "--out", out.toString(), "--cpu-only"});
    BenchReport report = BenchReport.readCsv("index join", out.resolve("index-join.csv"));
    assertEquals(2 * 2 * 2, report.rowCount(), "2 sizes, 2 selectivities, RadixSpline and binary search on the CPU");
    for (int row = 0; row < report.rowCount(); row++) {
      assertTrue(((Number) report.cell(row, "ms")).doubleValue() > 0, report.cell(row, "note").toString());
      double rRows = ((Number) report.cell(row, "R rows")).doubleValue();
      double selectivity = ((Number) report.cell(row, "selectivity %")).doubleValue();
      assertEquals(IndexJoinBenchmark.sizeSweep(selectivity < 0.5 ? 0.1 : 1.0), report.cell(row, "sweep"));
      assertEquals((double) Math.round(rRows * (selectivity < 0.5 ? 0.1 : 1.0) / 100), report.cell(row, "S rows"));
    }
    assertEquals((double) Math.round(0.001 * (1L << 30) / 8), report.cell(0, "R rows"));
    assertEquals((double) Math.round(0.004 * (1L << 30) / 8), report.cell(report.rowCount() - 1, "R rows"));
    assertEquals(List.of("size 0.1%", "size 1.0%"), IndexJoinBenchmark.sweeps(report));
    assertEquals(List.of(out.resolve("index-join-size-0.1pct.png"), out.resolve("index-join-size-1.0pct.png")),
        IndexJoinChart.draw(report, out));
    IndexJoinBenchmarkArgs sizes = IndexJoinBenchmarkArgs.parse(new String[] {"--preset", "sizes"});
    assertEquals(List.of(1.0, 4.0, 16.0, 32.0, 64.0), sizes.sizesGib());
    assertEquals(List.of(0.1, 1.0), sizes.sizeSelectivities());
    assertEquals(List.of(), sizes.selectivities(), "one R per size, no other sweep");
    assertEquals(List.of("cpu-inlj", "nopa"), sizes.joins());
    assertEquals(List.of(TranslationSlices.DEFAULT_REACH), sizes.reaches(), "the engine's reach unless asked");
    assertEquals(List.of(TranslationSlices.UNLIMITED, 4L << 30, 16L << 30), IndexJoinBenchmarkArgs.parse(
        new String[] {"--preset", "sizes", "--reaches", "unlimited,4g,16g"}).reaches());
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> IndexJoinBenchmarkArgs.parse(new String[] {"--preset", "huge"}));
    assertTrue(e.getMessage().contains("'target' and 'sizes'"), e.getMessage());
  }

  /** A prefix of R is R of fewer rows over the same keys, indexed on its own; only R's close frees the keys. */
  @Test
  void aSmallerRIsAPrefixOfTheLargerOne() {
    try (BufferAllocator allocator = new RootAllocator();
         IndexJoinBenchmarkData.Relation all = new IndexJoinBenchmarkData.Relation(allocator, 5000, 2)) {
      long written = allocator.getAllocatedMemory();
      try (IndexJoinBenchmarkData.Relation r = all.prefix(1000)) {
        assertEquals(1000, r.column.rows());
        assertEquals(all.keys.memoryAddress(), r.column.address());
        assertEquals(999, r.index(IndexKind.RADIXSPLINE).lookup(SortedKeys.key(999)));
        assertEquals(-1, r.index(IndexKind.RADIXSPLINE).lookup(SortedKeys.key(1000)), "beyond the prefix");
      }
      assertEquals(written, allocator.getAllocatedMemory(), "the prefix freed its index, not the keys");
      assertEquals(SortedKeys.key(4999), all.column.key(4999));
      assertThrows(IllegalArgumentException.class, () -> all.prefix(5001));
    }
  }

  /**
   * A point that outlasts the limit is stopped (the index join between windows) and the join is not run on the
   * larger cases; once the budget is spent, no point starts.
   */
  @Test
  void aPointOverTheLimitStopsAndTheBudgetEndsTheRun(@TempDir Path out) throws Exception {
    IndexJoinBenchmark.main(new String[] {"--sizes", "none", "--sweep-gib", "0.001", "--selectivities", "1,5",
        "--windows", "none", "--kinds", "RADIXSPLINE", "--joins", "cpu-inlj", "--runs", "2", "--threads", "2",
        "--point-limit-s", "0.000001", "--out", out.toString(), "--cpu-only"});
    BenchReport limited = BenchReport.readCsv("index join", out.resolve("index-join.csv"));
    assertEquals(2, limited.rowCount());
    assertTrue(limited.cell(0, "note").toString().startsWith("stopped"), limited.cell(0, "note").toString());
    assertEquals("skipped: over the point limit at sel 1.0%", limited.cell(1, "note"));
    assertFalse(limited.cell(1, "ms") instanceof Number ms && ms.doubleValue() > 0, "no time");
    IndexJoinBenchmark.main(new String[] {"--sizes", "0.0001", "--probe-keys", "100", "--selectivities", "1",
        "--sweep-gib", "0.0001", "--windows", "none", "--kinds", "RADIXSPLINE", "--joins", "cpu-inlj,cpu-nopa",
        "--runs", "1", "--threads", "2", "--budget-s", "0.000001", "--out", out.toString(), "--cpu-only"});
    BenchReport spent = BenchReport.readCsv("index join", out.resolve("index-join.csv"));
    assertEquals(4, spent.rowCount(), "both cases, both joins");
    for (int row = 0; row < spent.rowCount(); row++) {
      assertEquals("budget spent", spent.cell(row, "note"));
    }
  }

  @Test
  void sortedKeysHaveGapsAndProbesMissInThem() {
    long rows = 1000;
    long[] probes = SortedKeys.probes(rows, 100_000, 0.25, 7);
    long misses = java.util.Arrays.stream(probes).filter(k -> SortedKeys.rowOf(k, rows) < 0).count();
    assertEquals(0.25, misses / 100_000.0, 0.01);
    for (long k : probes) {
      assertTrue(k >= 0 && k < SortedKeys.key(rows), "within R's range: " + k);
    }
    assertEquals(7, SortedKeys.rowOf(SortedKeys.key(7), rows));
    assertEquals(-1, SortedKeys.rowOf(SortedKeys.key(7) + 1, rows));
    assertEquals(-1, SortedKeys.rowOf(SortedKeys.key(rows), rows), "beyond the last row");
    assertTrue(java.util.Arrays.equals(probes, SortedKeys.probes(rows, 100_000, 0.25, 7)), "the seed decides");
  }

  @Test
  void crossoverInterpolatesWhereTheCurvesMeet() {
    double[] x = {0.1, 1, 10};
    // INLJ twice as fast at 1%, twice as slow at 10%: they meet halfway on the log scale
    assertEquals(Math.sqrt(10), IndexJoinBenchmark.crossover(x, new double[] {1, 1, 2}, new double[] {3, 2, 1}),
        1e-9);
    assertEquals(1.0, IndexJoinBenchmark.crossover(x, new double[] {1, 2, 3}, new double[] {2, 2, 1}));
    assertTrue(Double.isNaN(IndexJoinBenchmark.crossover(x, new double[] {1, 1, 1}, new double[] {2, 2, 2})));
    assertTrue(Double.isNaN(IndexJoinBenchmark.crossover(x, new double[] {3, 3, 3}, new double[] {2, 2, 2})));
  }

  @Test
  void rejectsBadArguments() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> IndexJoinBenchmark.main(new String[] {"--joins", "hash"}));
    assertTrue(e.getMessage().startsWith("--sizes and --sweep-gib are positive GiB"), e.getMessage());
    e = assertThrows(IllegalArgumentException.class, () -> IndexJoinBenchmark.main(new String[] {"--runs"}));
    assertTrue(e.getMessage().startsWith("--runs needs a value"), e.getMessage());
  }
}
