package org.spillway.gpu.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The index benchmark runs end to end on tiny sizes: a row per shape, size, kind and thread count, all checked. */
class IndexLookupBenchmarkTest {
  @Test
  void writesOneRowPerCase(@TempDir Path out) throws Exception {
    IndexLookupBenchmark.main(new String[] {"--out", out.toString(), "--sizes", "0,12", "--lookups", "20000",
        "--threads", "2", "--runs", "1", "--hits", "0.5", "--calls", "vector,single"});
    BenchReport report = BenchReport.readCsv("index", out.resolve("index-lookup.csv"));
    assertEquals(2 * 2 * 4 * 2 * 2, report.rowCount());
    assertEquals("BINARY_SEARCH", report.cell(0, "index"));
    assertEquals(0.0, ((Number) report.cell(0, "index KiB")).doubleValue());
  }

  @Test
  void rejectsBadArguments() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> IndexLookupBenchmark.main(new String[] {"--shapes", "zipf"}));
    assertEquals("--sizes are 0..34 (log2 of the rows), --lookups, --threads and --runs at least 1, --hits 0..1,"
        + " --shapes dense or sparse and --calls vector or single; got [20, 23, 26], 4194304, "
        + Runtime.getRuntime().availableProcessors() + ", 5, 1.0, [zipf], [vector]", e.getMessage());
  }
}
