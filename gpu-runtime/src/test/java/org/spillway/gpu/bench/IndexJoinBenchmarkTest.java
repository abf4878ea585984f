package org.spillway.gpu.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

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
    }
    assertEquals("size", report.cell(0, "sweep"));
    assertEquals("inlj/BINARY_SEARCH", report.cell(0, "join"));
    assertEquals(3000.0, report.cell(0, "S rows"));
    assertEquals("window", report.cell(report.rowCount() - 1, "sweep"));
    assertEquals("inlj/RADIXSPLINE", report.cell(report.rowCount() - 1, "join"));
    BenchReport crossover = BenchReport.readCsv("crossover", out.resolve("index-join-crossover.csv"));
    assertEquals(2, crossover.rowCount());  // selectivity and size, for the CPU index join
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
