package org.spillway.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.spillway.tpch.bench.TpchBenchmark;

/**
 * TpchBenchmark end to end at SF 0.01, every engine (the GPU configurations run on the CPU backend where there
 * is no GPU): each configuration's rows must equal DuckDB's and every other Spillway configuration's.
 */
@Tag("slow")
class TpchBenchmarkSmokeTest {
  @Test void everyConfigurationReturnsDuckDbsRows(@TempDir Path dir) throws Exception {
    PrintStream err = System.err;
    try {
      TpchBenchmark.main(new String[] {"--sf", "0.01", "--data-dir", dir.resolve("data").toString(), "--reps", "1",
          "--methods", "zero-copy", "--variants", "branching", "--gpu-cache", "1g", "--out", dir.resolve("out")
          .toString()});
    } finally {
      System.setErr(err);
      System.clearProperty("spillway.trace");
    }
    List<String> csv = Files.readAllLines(dir.resolve("out/tpch-sf0.01.csv"));
    assertEquals(1 + 2 * 6, csv.size(), String.join("\n", csv));  // Q1 and Q6: duckdb, cpu, 2 gpu, 2 auto
    for (String row : csv.subList(1, csv.size())) {
      assertTrue(row.endsWith(",ok"), row);
    }
    assertTrue(Files.exists(dir.resolve("out/results-sf0.01.tsv")));
  }
}
