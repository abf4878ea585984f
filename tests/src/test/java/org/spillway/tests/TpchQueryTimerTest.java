package org.spillway.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.spillway.tpch.bench.TpchQueryTimer;

/**
 * TpchQueryTimer end to end at SF 0.01 on the CPU (where there is no GPU, the GPU configurations run on the CPU
 * backend) with DuckDB first, its tables as loaded and compressed: every configuration's rows agree with DuckDB's,
 * and the CSV holds one row per query and configuration with its runs, the part of a run that preparing the statement
 * took, and its time over the first configuration's.
 */
class TpchQueryTimerTest {
  @Test void writesOneCsvRowPerQueryAndConfiguration(@TempDir Path dir) throws Exception {
    TpchQueryTimer.main(new String[] {"--sf", "0.01", "--data-dir", dir.resolve("data").toString(), "--queries",
        "3,5,17", "--warm", "0", "--runs", "2", "--configs",
        "duckdb=|duckdb-compressed=storage=compressed|cpu=device=cpu|gpu-nopa=device=gpu;joinAlgorithm=nopa",
        "--out", dir.resolve("out").toString()});
    List<String> csv = Files.readAllLines(dir.resolve("out/tpch-timer-sf0.01.csv"));
    assertEquals(1 + 3 * 4, csv.size(), String.join("\n", csv));
    assertTrue(csv.get(0).startsWith("query,config,label,median ms"), csv.get(0));
    List<String> header = List.of(csv.get(0).split(","));
    for (String row : csv.subList(1, csv.size())) {
      assertTrue(row.contains(",ok,"), row);
      String[] cells = row.split(",");
      assertEquals("2", cells[header.indexOf("runs")], "runs of " + row);
      double prepare = Double.parseDouble(cells[header.indexOf("median prepare ms")]);
      assertTrue(prepare > 0 && prepare <= Double.parseDouble(cells[header.indexOf("max ms")]),
          "the time preparing the statement is part of a run's: " + row);
    }
    assertTrue(csv.get(1).startsWith("Q3,duckdb,Q3 duckdb,") && csv.get(1).endsWith(",1.00"), csv.get(1));
  }
}
