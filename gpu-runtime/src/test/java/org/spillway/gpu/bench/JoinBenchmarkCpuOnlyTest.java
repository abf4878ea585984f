package org.spillway.gpu.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A dry run of the whole harness without a GPU ({@code --cpu-only}, tiny sizes): data generated and checked, the
 * CPU joins and (where its driver is on the class path) DuckDB timed, every run's answer checked, the CSVs
 * written with every column, and a run over the deadline skipping what is left.
 */
class JoinBenchmarkCpuOnlyTest {
  @Test
  void cpuJoinsAndDuckDbRunEveryCaseCheckedAndWriteTheCsv(@TempDir Path out) throws Exception {
    List<String> failures = JoinBenchmark.run(JoinBenchmarkArgs.parse(new String[] {"--cpu-only", "--quick",
        "--shift", "12", "--runs", "1", "--cpu-threads", "2", "--budget", "16m", "--sizes", "13,14",
        "--experiments", "workloads,zipf-both,triton-scaling", "--out", out.toString()}));
    assertEquals(List.of(), failures);
    BenchReport all = BenchReport.readCsv("all", out.resolve("join.csv"));
    assertEquals(JoinBenchmark.COLUMNS, all.columns());
    boolean duckdb = JoinBenchmarkDuckDb.unavailableReason() == null;
    Set<String> seen = new HashSet<>();
    for (int i = 0; i < all.rowCount(); i++) {
      String join = (String) all.cell(i, "join");
      seen.add(all.cell(i, "experiment") + "/" + join);
      assertFalse(JoinBenchmarkJoins.isGpu(join) && !join.equals("duckdb"), "no GPU join without a device: " + join);
      assertTrue(all.cell(i, "G tuples/s") instanceof Double rate && rate > 0, "row " + i + " of " + join);
      assertFalse(String.valueOf(all.cell(i, "variant")).startsWith("FAILED"));
    }
    for (String experiment : List.of("workloads", "zipf-both", "triton-scaling")) {
      assertTrue(seen.contains(experiment + "/cpu-nopa") && seen.contains(experiment + "/cpu-radix"), experiment);
      assertEquals(duckdb, seen.contains(experiment + "/duckdb"), experiment);
      assertTrue(Files.exists(out.resolve(experiment + ".csv")));
    }
    assertEquals(4 * 3 + 3 * 3 + 2 * 3 - (duckdb ? 0 : 4 + 3 + 2), all.rowCount());
  }

  @Test
  void aPassedDeadlineSkipsTheRestButKeepsTheCsv(@TempDir Path out) throws Exception {
    var args = JoinBenchmarkArgs.parse(new String[] {"--cpu-only", "--shift", "12", "--runs", "1", "--deadline", "1",
        "--joins", "cpu-nopa", "--experiments", "selectivity", "--out", out.toString()});
    while (java.lang.management.ManagementFactory.getRuntimeMXBean().getUptime() < 1100) {
      Thread.sleep(100);  // the deadline counts from the JVM's start: past it, nothing starts
    }
    assertEquals(List.of(), JoinBenchmark.run(args));
    assertEquals(0, BenchReport.readCsv("all", out.resolve("join.csv")).rowCount());
  }
}
