package org.spillway.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.spillway.tpch.bench.ImportBenchmark;

/** ImportBenchmark end to end at SF 0.01 (slow: DuckDB generates lineitem): Spillway imports as many rows as DuckDB. */
@Tag("slow")
class ImportBenchmarkSmokeTest {
  @Test void spillwayImportsAsManyRowsAsDuckDb(@TempDir Path dir) throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ImportBenchmark.Result result = ImportBenchmark.run(0.01, 2, 1, "zstd", dir,
        new PrintStream(out, true, StandardCharsets.UTF_8));
    assertTrue(result.duckDbRows() > 50_000, String.valueOf(result));
    assertEquals(result.duckDbRows(), result.spillwayRows());
    assertTrue(result.spillwayMbPerSecond() > 0 && result.duckDbMbPerSecond() > 0, String.valueOf(result));
    assertTrue(out.toString(StandardCharsets.UTF_8).contains("spillway import"), out.toString(StandardCharsets.UTF_8));
    // each Spillway run is followed by its phases, elapsed and CPU seconds
    assertTrue(out.toString(StandardCharsets.UTF_8).matches("(?s).*spillway import, run 1: [^\n]*\n    phases: open "
        + "[0-9.]+ s \\([0-9.]+ CPU-s\\), parallel .*"), out.toString(StandardCharsets.UTF_8));
  }
}
