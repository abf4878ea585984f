package org.spillway.adapter;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;
import org.apache.calcite.schema.SchemaPlus;
import org.apache.calcite.tools.Frameworks;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.spillway.adapter.jdbc.SpillwayDriver;
import org.spillway.gpu.pipeline.gpu.FilterVariant;
import org.spillway.gpu.plan.IndexJoinNode;
import org.spillway.gpu.transfer.TransferMethod;
import org.spillway.tpch.ProgressListener;
import org.spillway.tpch.TpchGenerator;

/** The connection properties transfer, filterVariant and gpuCache: parsing, errors, and queries that use them. */
class SpillwayOptionsTest {
  @TempDir static Path dir;

  @BeforeAll static void generate() {
    TpchGenerator.generate(dir, 0.001, 1, ProgressListener.NONE, TpchGenerator.parseSelection("nation region"));
  }

  @AfterAll static void closeCatalogs() {
    CatalogRegistry.close(dir);
  }

  @Test void theIndexJoinWindowIsAByteCountWithSuffixesAndTheFirstRunsDefault() {
    assertEquals(SpillwayOptions.SIZED_BY_INDEX, SpillwayOptions.DEFAULT.indexJoinWindowBytes());
    assertEquals(SpillwayOptions.SIZED_BY_INDEX,
        SpillwayOptions.parse(null, null, null, null, null, null).indexJoinWindowBytes());
    // sized by the index: the paper's 32 MiB up to 2 GiB of indexed keys, 1/64 of them beyond, at most 512 MiB
    assertEquals(32L << 20, IndexJoinNode.windowBytes(SpillwayOptions.SIZED_BY_INDEX, 1e6));
    assertEquals(32L << 20, IndexJoinNode.windowBytes(SpillwayOptions.SIZED_BY_INDEX, (double) (1L << 28)));
    assertEquals(128L << 20, IndexJoinNode.windowBytes(SpillwayOptions.SIZED_BY_INDEX, (double) (1L << 30)));
    assertEquals(512L << 20, IndexJoinNode.windowBytes(SpillwayOptions.SIZED_BY_INDEX, (double) (1L << 32)));
    assertEquals(512L << 20, IndexJoinNode.windowBytes(SpillwayOptions.SIZED_BY_INDEX, (double) (1L << 34)));
    assertEquals(4L << 20, IndexJoinNode.windowBytes(4L << 20, (double) (1L << 32)), "the user's window stands");
    assertEquals(4L << 20, SpillwayOptions.parse(null, null, null, null, null, "4M").indexJoinWindowBytes());
    assertEquals(512L << 10, SpillwayOptions.parse(null, null, null, null, null, "512k").indexJoinWindowBytes());
    assertEquals(1L << 30, SpillwayOptions.parse(null, null, null, null, null, "1g").indexJoinWindowBytes());
    assertEquals(8, SpillwayOptions.parse(null, null, null, null, null, "8").indexJoinWindowBytes());
    SpillwayOptions inlj = SpillwayOptions.parse(null, null, null, null, null, "4m")
        .withJoinAlgorithm(SpillwayJoinAlgorithm.INLJ);
    assertEquals(4L << 20, inlj.indexJoinWindowBytes(), "another algorithm keeps the window");
    for (String bad : new String[] {"4", "2g", "-1m", "lots"}) {
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
          () -> SpillwayOptions.parse(null, null, null, null, null, bad));
      assertEquals("Property 'indexJoinWindow' must be a byte count from 8 to 1g, such as 4m, 32m or 1g, not '" + bad
          + "'", e.getMessage());
    }
  }

  @Test void valuesParseCaseInsensitivelyWithAutoAndOffAsDefaults() {
    SpillwayOptions o = SpillwayOptions.parse("GPU", "Zero-Copy", "Predication", "40g");
    assertEquals(SpillwayDevice.GPU, o.device());
    assertEquals(TransferMethod.ZERO_COPY, o.transfer());
    assertEquals(FilterVariant.PREDICATION, o.filterVariant());
    assertEquals(40L << 30, o.gpuCacheBytes());
    assertEquals(TransferMethod.PINNED_COPY, SpillwayOptions.parse(null, "pinned copy", null, null).transfer());
    assertEquals(TransferMethod.UM_PREFETCH, SpillwayOptions.parse(null, "um-prefetch", null, null).transfer());
    assertEquals(SpillwayOptions.DEFAULT, SpillwayOptions.parse(null, "auto", "AUTO", "off"));
    assertEquals(SpillwayOptions.DEFAULT, SpillwayOptions.parse("auto", null, null, "0"));
    assertEquals(512L << 20, SpillwayOptions.parse(null, null, null, "512m").gpuCacheBytes());
  }

  @Test void badValuesNameThePropertyAndTheAcceptedValues() {
    assertEquals("Property 'transfer' must be auto or one of pageable copy, staged copy, dynamic pinning, pinned copy,"
        + " UM prefetch, UM migration, zero-copy, coherence, not 'warp drive'",
        assertThrows(IllegalArgumentException.class, () -> SpillwayOptions.parse(null, "warp drive", null, null))
            .getMessage());
    assertEquals("Property 'filterVariant' must be auto, branching or predication, not 'maybe'",
        assertThrows(IllegalArgumentException.class, () -> SpillwayOptions.parse(null, null, "maybe", null))
            .getMessage());
    assertEquals("Property 'gpuCache' must be off or a byte count such as 40g, 512m or 1048576, not 'lots'",
        assertThrows(IllegalArgumentException.class, () -> SpillwayOptions.parse(null, null, null, "lots"))
            .getMessage());
    assertEquals("Property 'device': device 'tpu' is not one of cpu, gpu, auto",
        assertThrows(IllegalArgumentException.class, () -> SpillwayOptions.parse("tpu", null, null, null))
            .getMessage());
  }

  @Test void theDriverRejectsBadValuesAndAcceptsGoodOnes() throws SQLException {
    String base = SpillwayDriver.CONNECT_STRING_PREFIX + "dataDir=" + dir;
    SQLException bad = assertThrows(SQLException.class, () -> DriverManager.getConnection(base + ";gpuCache=-3"));
    assertTrue(bad.getMessage().startsWith("Property 'gpuCache' must be off or a byte count"), bad.getMessage());
    assertEquals("08001", bad.getSQLState());
    try (Connection c = DriverManager.getConnection(base + ";transfer=zero-copy;filterVariant=branching;gpuCache=1g");
         Statement s = c.createStatement();
         ResultSet rs = s.executeQuery("select sum(n_regionkey) from nation where n_nationkey > 3")) {
      rs.next();
      assertEquals(50 - 3, rs.getInt(1), "5 nations per region 0..4, less nations 0..3 in regions 0, 1, 1, 1");
    }
  }

  @Test void modelOperandsTakeTheSameValues() {
    SchemaPlus root = Frameworks.createRootSchema(false);
    SpillwaySchema schema = (SpillwaySchema) SpillwaySchemaFactory.INSTANCE.create(root, "tpch",
        Map.of("dataDir", dir.toString(), "transfer", "staged copy", "gpuCache", "2g"));
    assertEquals(TransferMethod.STAGED_COPY, schema.options().transfer());
    assertNull(schema.options().filterVariant());
    assertEquals(2L << 30, schema.options().gpuCacheBytes());
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> SpillwaySchemaFactory.INSTANCE
        .create(root, "tpch", Map.of("dataDir", dir.toString(), "filterVariant", "both")));
    assertTrue(e.getMessage().startsWith("Spillway schema 'tpch': Property 'filterVariant' must be"), e.getMessage());
  }
}
