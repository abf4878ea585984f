package org.spillway.adapter;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.RelRoot;
import org.apache.calcite.runtime.Hook;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.spillway.adapter.jdbc.SpillwayDriver;
import org.spillway.storage.StoredTable;
import org.spillway.tpch.ProgressListener;
import org.spillway.tpch.TpchGenerator;

/** The groups a pipeline's GPU hash table is sized and priced for. */
class SpillwayBackendGroupsTest {
  @TempDir static Path dir;

  @BeforeAll static void generate() {
    TpchGenerator.generate(dir, 0.001, 1, ProgressListener.NONE);
  }

  @AfterAll static void closeCatalogs() {
    CatalogRegistry.close(dir);
  }

  /**
   * TPC-H Q16's shape: a DISTINCT over two keys, counted per one of them. The pipeline's hash table holds the first
   * aggregation's groups (every supplier and part pair), not the second's (the suppliers): sized for the second, the
   * GPU run of Q16 was priced at a fraction of its time.
   */
  @Test void aPipelineIsSizedForItsFirstAggregation() throws Exception {
    AtomicReference<RelNode> plan = new AtomicReference<>();
    try (Hook.Closeable hook = Hook.PLAN_BEFORE_IMPLEMENTATION.addThread(
        (Consumer<RelRoot>) root -> plan.set(root.rel))) {
      SpillwayAssert.rows(SpillwayDriver.CONNECT_STRING_PREFIX + "dataDir=" + dir + ";device=cpu",
          "select ps_suppkey, count(*) as parts from (select ps_suppkey, ps_partkey from partsupp "
              + "group by ps_suppkey, ps_partkey) as pairs group by ps_suppkey");
    }
    assertNotNull(plan.get());
    StoredTable partsupp = CatalogRegistry.open(dir).table("partsupp").orElseThrow();
    long pairs = Math.min(partsupp.rowCount(), partsupp.statistics().column("ps_partkey").distinctCount()
        * partsupp.statistics().column("ps_suppkey").distinctCount());
    assertEquals(pairs, SpillwayBackend.groups(plan.get()));
  }
}
