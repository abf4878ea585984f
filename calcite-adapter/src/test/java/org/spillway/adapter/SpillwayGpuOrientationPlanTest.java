package org.spillway.adapter;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.spillway.gpu.calibrate.MachineProfiles;
import org.spillway.storage.StoredTable;
import org.spillway.tpch.ProgressListener;
import org.spillway.tpch.TpchGenerator;
import org.spillway.tpch.TpchQueries;

/**
 * Which side of a join a GPU pipeline makes it build on, on a GPU site assumed with the H100's profile. At SF 0.01, as
 * at any larger scale, partsupp's (partkey, suppkey) pairs are distinct (at SF 0.001 the generator's supplier spread
 * repeats some, which the exact key check sees).
 */
class SpillwayGpuOrientationPlanTest {
  @TempDir static Path dir;
  private static AutoCloseable profile;

  @BeforeAll static void generate() {
    profile = MachineProfiles.pin(MachineProfiles.uncalibrated());
    TpchGenerator.generate(dir, 0.01, 1, ProgressListener.NONE);
  }

  @AfterAll static void closeCatalogs() throws Exception {
    CatalogRegistry.close(dir);
    profile.close();
  }

  /**
   * On a GPU, Q9 streams lineitem through all four probes in one GPU pipeline and aggregates there: partsupp's build
   * keys (partkey, suppkey) are unique together (checked on the table), each join builds on the side a GPU pipeline
   * can probe (partsupp, orders) rather than on lineitem's joined rows, and the group key o_year packs by the years of
   * o_orderdate's range.
   */
  @Test void q9StreamsLineitemThroughEveryProbeOnAGpu() throws Exception {
    try (AutoCloseable gpu = SpillwayGpuSite.assume(AssumedGpuSite.h100(true))) {
      SpillwayAssert.that(dir, "device=gpu").query(TpchQueries.sql(9))
          .explainContains("SpillwayAggregate(group=[{0, 1}], sum_profit=[$SUM0($2)], device=[gpu]")
          .explainContains("SpillwayTableScan(table=[[spillway, lineitem]], fields=[[0, 1, 2, 4, 5, 6]], device=[gpu]")
          .explainLacks("not known to be unique")
          .explainLacks("group keys")
          .explainContains("probe=[in a gpu pipeline]", 5);  // lineitem's four, and supplier's probe of nation
    }
  }

  /**
   * A semi- or anti-join built on its returned side (a mark join) is probed in a GPU pipeline: Q4's lineitem marks the
   * orders of the quarter, Q22's orders mark the customers (their build sides stay on the CPU: Q22's reads text), and
   * Q21's lineitem sets both marks of its EXISTS and NOT EXISTS, each under its residual, on build keys with
   * duplicates. Forced, the semi-join reduction leaves Q21's marking to the CPU after a GPU pass that keeps the lines
   * by the build side's order keys.
   */
  @Test void markJoinsOnUniqueKeysProbeInAGpuPipeline() throws Exception {
    try (AutoCloseable gpu = SpillwayGpuSite.assume(AssumedGpuSite.h100(true))) {
      SpillwayAssert.that(dir, "device=gpu").query(TpchQueries.sql(4))
          .explainContains("joinType=[semi], device=[gpu], algorithm=[nopa], placement=[gpu], "
              + "probe=[in a gpu pipeline], buildSide=[left]")
          .explainContains("SpillwayTableScan(table=[[spillway, lineitem]], fields=[[0, 11, 12]], device=[gpu]");
      SpillwayAssert.that(dir, "device=gpu").query(TpchQueries.sql(22))
          .explainContains("joinType=[anti], device=[gpu], algorithm=[nopa], placement=[gpu], "
              + "probe=[in a gpu pipeline], buildSide=[left]")
          .explainContains("SpillwayTableScan(table=[[spillway, orders]], fields=[[1]], device=[gpu]");
      SpillwayAssert.that(dir, "device=gpu").query(TpchQueries.sql(21))
          .explainContains("SpillwayMarkJoin(")
          .explainContains("device=[gpu], algorithm=[nopa], probe=[in a gpu pipeline]")
          .explainLacks("reduction=")
          .explainLacks("probes a mark join")
          .explainContains("SpillwayTableScan(table=[[spillway, lineitem]], fields=[[0, 2, 11, 12]], device=[gpu]", 2);
      System.setProperty(SpillwayBackend.MARK_REDUCTION_PROPERTY, "force");
      try {
        SpillwayAssert.that(dir, "device=gpu").query(TpchQueries.sql(21))
            .explainContains("buildSide=[left], reduction=[gpu semi-join])")
            .explainContains("SpillwayTableScan(table=[[spillway, lineitem]], fields=[[0, 2, 11, 12]], device=[gpu]");
      } finally {
        System.clearProperty(SpillwayBackend.MARK_REDUCTION_PROPERTY);
      }
    }
  }

  /**
   * Q13's orders pipeline, NOT LIKE(o_comment, '%special%requests%') and a COUNT per o_custkey, runs on the GPU: the
   * kernels match the pattern's pieces on o_comment's bytes, read in place.
   */
  @Test void q13FiltersOrdersByLikeOnAGpu() throws Exception {
    try (AutoCloseable gpu = SpillwayGpuSite.assume(AssumedGpuSite.h100(true))) {
      SpillwayAssert.that(dir, "device=gpu").query(TpchQueries.sql(13))
          .explainContains("SpillwayTableScan(table=[[spillway, orders]], fields=[[0, 1, 8]], device=[gpu]")
          .explainLacks("over plain text");
    }
    StoredTable customer = CatalogRegistry.open(dir).table("customer").orElseThrow();
    assertEquals(4 + 15, SpillwayTextWidths.of(customer, 4), "c_phone: an offset and 15 bytes, from the statistics");
    StoredTable orders = CatalogRegistry.open(dir).table("orders").orElseThrow();
    int comment = SpillwayTextWidths.of(orders, 8);
    assertTrue(comment >= 4 + 19 && comment <= 4 + 78, "o_comment: 19 to 78 characters, " + comment);
  }
}
