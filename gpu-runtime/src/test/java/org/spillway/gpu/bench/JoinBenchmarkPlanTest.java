package org.spillway.gpu.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The experiments' plans without a GPU: sizes against the budget, the joins each case runs, what fits the GPU
 * machine's host (128 GiB, -Xmx64g as in the documented commands), and the ratios derived per case.
 */
class JoinBenchmarkPlanTest {
  /** The device host: 85% of 128 GiB for the whole case, 64 GiB of Java heap. */
  private static final JoinBenchmarkPlan.Limits DEVICE_HOST = new JoinBenchmarkPlan.Limits((long) (0.85 * (128L << 30)),
      64L << 30);

  private static List<JoinBenchmarkPlan.Case> cases(String experiment, String... argv) {
    return JoinBenchmarkPlan.cases(experiment, JoinBenchmarkArgs.parse(argv));
  }

  @Test
  void tritonScalingGrowsTheWorkingSetFromAQuarterToFourTimesTheBudget() {
    var quick = cases("triton-scaling", "--quick");
    assertEquals(List.of(1L << 22, 1L << 23, 1L << 24, 1L << 25, 1L << 26),
        quick.stream().map(c -> c.spec().buildRows()).toList());
    assertEquals(List.of(0.25, 0.5, 1.0, 2.0, 4.0), quick.stream().map(JoinBenchmarkPlan.Case::x).toList());
    for (var c : quick) {
      assertEquals(c.spec().buildRows(), c.spec().probeRows());
      assertEquals(c.x(), 16.0 * c.spec().tuples() / (512L << 20), 1e-12);  // 16-byte tuples over the budget
      assertEquals(512L << 20, c.budget());
      assertTrue(c.spec().perfectHash());
    }
    assertEquals(List.of("nopa", "nopa@gpu:full", "triton", "duckdb", "cpu-nopa", "cpu-radix", "nopa@host"),
        quick.get(0).joins());
    assertEquals(List.of(1L << 25, 1L << 29), cases("triton-scaling").stream().map(c -> c.spec().buildRows())
        .filter(n -> n == 1L << 25 || n == 1L << 29).toList());
    assertEquals(List.of(1L << 30), cases("triton-scaling", "--budget", "8g", "--sizes", "30").stream()
        .map(c -> c.spec().buildRows()).toList());
  }

  @Test
  void budgetExperimentsPlaceTheirTablesAroundTheBudget() {
    var scaling = cases("scaling", "--quick");  // P1 Fig. 17: NOPA's 16-byte slots from 1/4 to 2x the budget
    assertEquals(List.of(0.25, 0.5, 1.0, 2.0), scaling.stream().map(JoinBenchmarkPlan.Case::x).toList());
    assertEquals(List.of("nopa@gpu", "nopa@host", "nopa", "triton", "duckdb", "cpu-nopa", "cpu-radix"),
        scaling.get(0).joins());
    var ratios = cases("ratios-budget", "--quick");  // P2 Fig. 21: |S| fixed, 1:1 is 4x the budget
    assertEquals(List.of(1L << 26, 1L << 24, 1L << 22), ratios.stream().map(c -> c.spec().buildRows()).toList());
    assertTrue(ratios.stream().allMatch(c -> c.spec().probeRows() == 1L << 26));
    assertEquals(4.0, 16.0 * ratios.get(0).spec().tuples() / (512L << 20), 1e-12);
    assertEquals(List.of(1.0, 4.0, 16.0), ratios.stream().map(JoinBenchmarkPlan.Case::x).toList());
    assertTrue(ratios.get(0).joins().contains("nopa@gpu:full"));
    var both = cases("zipf-both", "--quick");  // Sioulas et al.'s 2^25 tuples per side, / 2^4
    assertTrue(both.stream().allMatch(c -> c.spec().bothSides() && c.spec().buildRows() == 1L << 21
        && c.spec().probeRows() == 1L << 21 && !c.spec().perfectHash()));
    assertEquals(List.of(0.0, 0.5, 0.75), both.stream().map(JoinBenchmarkPlan.Case::x).toList());
    var methods = cases("methods", "--quick");
    assertTrue(methods.stream().allMatch(c -> c.joins().equals(List.of("nopa", "triton"))), "GPU joins only");
    assertEquals(4, methods.size());
    var zipf = cases("zipf");
    assertEquals(8, zipf.size());
    assertEquals(List.of("nopa", "nopa@host", "triton", "duckdb", "cpu-nopa", "cpu-radix"), zipf.get(0).joins());
    assertEquals(1L << 24, zipf.get(0).spec().buildRows());  // A = 2^27 x 2^31 at P1 / 2^3
    assertEquals(1L << 28, zipf.get(0).spec().probeRows());
  }

  @Test
  void theFullRunFitsTheDeviceHostAndTheLargestPointsSkipWhatDoesNot() {
    for (String experiment : JoinBenchmark.EXPERIMENTS) {
      for (String[] argv : List.of(new String[0], new String[] {"--quick"}, new String[] {"--quick", "--budget", "1g"})) {
        for (var c : cases(experiment, argv)) {
          for (String join : c.joins()) {
            assertNull(JoinBenchmarkPlan.doesNotFit(join, c.spec(), c.budget(), DEVICE_HOST),
                experiment + " " + c.name() + " " + join);
          }
        }
      }
    }
    // P2 / 2: |R| = |S| = 2^30 under an 8 GiB budget: 32 GiB of data; CPU radix and DuckDB do not fit beside it
    var largest = cases("triton-scaling", "--budget", "8g", "--sizes", "30").get(0);
    List<String> skipped = new ArrayList<>();
    for (String join : largest.joins()) {
      if (JoinBenchmarkPlan.doesNotFit(join, largest.spec(), largest.budget(), DEVICE_HOST) != null) {
        skipped.add(join);
      }
    }
    assertEquals(List.of("duckdb", "cpu-radix"), skipped);
    assertEquals(32L << 30, largest.spec().planBytes());
    String why = JoinBenchmarkPlan.doesNotFit("cpu-radix", largest.spec(), largest.budget(), DEVICE_HOST);
    assertTrue(why.contains("Java heap"), why);
    why = JoinBenchmarkPlan.doesNotFit("duckdb", largest.spec(), largest.budget(),
        new JoinBenchmarkPlan.Limits(100L << 30, 64L << 30));
    assertTrue(why.contains("over the limit of 100.0 GiB"), why);
  }

  @Test
  void ratiosCompareEachCaseWithTheBestCpuJoinDuckDbAndNopaInAndOutOfBudget() {
    List<Object[]> rows = new ArrayList<>();
    rows.add(row("nopa", "nopa/perfect-hash/hybrid(0.50)", 0.5));
    rows.add(row("nopa@host", "nopa/perfect-hash/host", 0.25));
    rows.add(row("nopa@gpu:full", "nopa/perfect-hash/gpu", 3.0));
    rows.add(row("triton", "triton/bits=8+9/cache=0.40", 2.4));
    rows.add(row("duckdb", "duckdb/hash-join", 0.2));
    rows.add(row("cpu-nopa", "nopa/perfect-hash", 0.3));
    rows.add(row("cpu-radix", "radix/bits=10+0", 0.15));
    rows.add(row("nopa@gpu", "does not fit the GPU budget", Double.NaN));
    JoinBenchmarkCases.derive(rows);
    Object[] triton = rows.get(3);
    assertEquals(8.0, (Double) cell(triton, "x best CPU"), 1e-9);
    assertEquals(12.0, (Double) cell(triton, "x DuckDB"), 1e-9);
    assertEquals(0.8, (Double) cell(triton, "x in-budget NOPA"), 1e-9);
    assertEquals(4.8, (Double) cell(triton, "x spilled NOPA"), 1e-9);  // the faster spilled NOPA: hybrid
    assertEquals(1.0, (Double) cell(rows.get(5), "x best CPU"), 1e-9);
    assertTrue(Double.isNaN((Double) cell(rows.get(0), "x in-budget NOPA")), "only Triton rows get NOPA ratios");
    assertTrue(Double.isNaN((Double) cell(rows.get(7), "x best CPU")));
  }

  private static Object[] row(String join, String variant, double rate) {
    Object[] row = new Object[JoinBenchmark.COLUMNS.size()];
    java.util.Arrays.fill(row, Double.NaN);
    row[JoinBenchmark.COLUMNS.indexOf("join")] = join;
    row[JoinBenchmark.COLUMNS.indexOf("variant")] = variant;
    row[JoinBenchmark.COLUMNS.indexOf("G tuples/s")] = rate;
    return row;
  }

  private static Object cell(Object[] row, String column) {
    return row[JoinBenchmark.COLUMNS.indexOf(column)];
  }
}
