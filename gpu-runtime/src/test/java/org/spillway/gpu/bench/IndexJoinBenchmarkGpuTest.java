package org.spillway.gpu.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.spillway.gpu.GpuTest;

/** On a GPU the index join benchmark runs the GPU INLJ, NOPA and Triton beside the CPU INLJ, each checked. */
@GpuTest
class IndexJoinBenchmarkGpuTest {
  @Test
  void runsEveryGpuJoinOnTinyRelations(@TempDir Path out) throws Exception {
    IndexJoinBenchmark.main(new String[] {"--out", out.toString(), "--sizes", "0.0001", "--probe-keys", "3000",
        "--selectivities", "1,20", "--sweep-gib", "0.0002", "--windows", "8", "--runs", "1", "--threads", "2",
        "--joins", "nopa,triton,cpu-inlj"});
    BenchReport report = BenchReport.readCsv("index join", out.resolve("index-join.csv"));
    // sizes and selectivities: 4 kinds on both devices, NOPA and Triton; the window: 4 kinds on both devices
    assertEquals(3 * (8 + 2) + 8, report.rowCount());
    for (int row = 0; row < report.rowCount(); row++) {
      assertEquals("", report.cell(row, "note"), report.cell(row, "case") + " failed");
      assertTrue(((Number) report.cell(row, "ms")).doubleValue() > 0, report.cell(row, "case") + " took no time");
    }
    assertEquals("gpu", report.cell(0, "device"));
    assertEquals("inlj/BINARY_SEARCH", report.cell(0, "join"));
  }

  /** The target preset at a tiny R on the GPU: every join of every selectivity runs, checked, within its limits. */
  @Test
  void theTargetPresetRunsEveryJoinAtATinySize(@TempDir Path out) throws Exception {
    IndexJoinBenchmark.main(new String[] {"--preset", "target", "--sweep-gib", "0.001", "--out", out.toString()});
    BenchReport report = BenchReport.readCsv("index join", out.resolve("index-join.csv"));
    // 5 selectivities: RadixSpline and binary search on both devices, NOPA and Triton
    assertEquals(5 * 6, report.rowCount());
    for (int row = 0; row < report.rowCount(); row++) {
      assertEquals("", report.cell(row, "note"), report.cell(row, "case") + " failed");
      assertTrue(((Number) report.cell(row, "ms")).doubleValue() > 0, report.cell(row, "case") + " took no time");
    }
    assertEquals("inlj/RADIXSPLINE gpu", report.cell(0, "line"));
  }

  /**
   * With several translation reaches the GPU INLJ runs once per reach, checked, a finite reach on a line of its own
   * with the launches a window took; the engine's reach (1 GiB, beyond this R) keeps the plain line and one launch a
   * window.
   */
  @Test
  void everyTranslationReachIsARowOfItsOwn(@TempDir Path out) throws Exception {
    IndexJoinBenchmark.main(new String[] {"--preset", "target", "--sweep-gib", "0.001", "--selectivities", "1",
        "--kinds", "RADIXSPLINE", "--joins", "nopa", "--reaches", "1g,64k", "--out", out.toString()});
    BenchReport report = BenchReport.readCsv("index join", out.resolve("index-join.csv"));
    assertEquals(3, report.rowCount(), "RadixSpline on the GPU at two reaches, NOPA");
    for (int row = 0; row < report.rowCount(); row++) {
      assertEquals("", report.cell(row, "note"), report.cell(row, "case") + " failed");
    }
    assertEquals("inlj/RADIXSPLINE gpu", report.cell(0, "line"));
    assertEquals(1.0, ((Number) report.cell(0, "slices")).doubleValue());
    assertEquals("inlj/RADIXSPLINE gpu reach 64k", report.cell(1, "line"));
    assertEquals("inlj/RADIXSPLINE", report.cell(1, "join"), "the model's name of the join");
    assertTrue(((Number) report.cell(1, "slices")).doubleValue() > 1, "1 MiB of R in slices of 64 KiB");
  }

  /**
   * The sizes preset at tiny sizes on the GPU: at each size and selectivity RadixSpline and binary search on both
   * devices and GPU NOPA run, checked, and the crossover is reported per selectivity.
   */
  @Test
  void theSizesPresetRunsEveryJoinAtTinySizes(@TempDir Path out) throws Exception {
    IndexJoinBenchmark.main(new String[] {"--preset", "sizes", "--sizes", "0.001,0.004", "--out", out.toString()});
    BenchReport report = BenchReport.readCsv("index join", out.resolve("index-join.csv"));
    assertEquals(2 * 2 * 5, report.rowCount(), "2 sizes x 2 selectivities: 2 kinds on 2 devices and NOPA");
    for (int row = 0; row < report.rowCount(); row++) {
      assertEquals("", report.cell(row, "note"), report.cell(row, "case") + " failed");
      assertTrue(((Number) report.cell(row, "ms")).doubleValue() > 0, report.cell(row, "case") + " took no time");
    }
    BenchReport crossover = BenchReport.readCsv("crossover", out.resolve("index-join-crossover.csv"));
    assertEquals(2 * 2, crossover.rowCount(), "per selectivity, for the GPU and the CPU index join");
  }
}
