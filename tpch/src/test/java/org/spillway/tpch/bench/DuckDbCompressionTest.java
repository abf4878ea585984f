package org.spillway.tpch.bench;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.OutputStream;
import java.io.PrintStream;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * DuckDB's TPC-H tables as the benchmarks load them: uncompressed in memory after the CSV reader's inserts, compressed
 * as on disk once {@link DuckDbTpchTables#compress} checkpointed them; the Q1/Q6 lineitem of {@link DuckDbTpch}
 * compressed.
 */
class DuckDbCompressionTest {
  private static final PrintStream QUIET = new PrintStream(OutputStream.nullOutputStream());

  @Test void aCheckpointCompressesTheLoadedTables() throws Exception {
    try (DuckDbTpchTables tables = DuckDbTpchTables.load(0.01, 2, QUIET, "lineitem"::equals)) {
      List<String> loaded = DuckDbTpchTables.compression(tables.connection(), "lineitem");
      assertTrue(loaded.contains("l_returnflag: Uncompressed"), loaded.toString());
      tables.compress();
      List<String> compressed = DuckDbTpchTables.compression(tables.connection(), "lineitem");
      assertTrue(compressed.stream().noneMatch(c -> c.contains("Uncompressed")), compressed.toString());
    }
  }

  @Test void theQ1Q6LineitemIsCompressed() throws Exception {
    try (DuckDbTpch lineitem = DuckDbTpch.load(0.01, 2, QUIET)) {
      List<String> columns = DuckDbTpchTables.compression(lineitem.connection(), "lineitem");
      assertTrue(columns.size() == 7 && columns.stream().noneMatch(c -> c.contains("Uncompressed")),
          columns.toString());
    }
  }
}
