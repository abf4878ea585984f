package org.spillway.adapter;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
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
   * Q20's part names are the right side of two semi-joins (partsupp's, and lineitem's that the magic-set rule adds): the
   * plan makes them once, so partsupp's semi-join builds on them too rather than marking its own rows, which would scan
   * part a second time and end partsupp's pipeline before its aggregation. On the CPU as on an assumed GPU site.
   */
  @Test void aSemiJoinBuildsOnARightSideItSharesWithAnother() throws Exception {
    String partsuppBuildsOnPart = "SpillwayJoin(condition=[=($0, $6)], joinType=[semi], device=[";
    try (AutoCloseable gpu = SpillwayGpuSite.assume(AssumedGpuSite.h100(true))) {
      for (String device : List.of("auto", "gpu", "cpu")) {
        String plan = SpillwayAssert.that(dir, "device=" + device).query(TpchQueries.sql(20)).plan();
        String join = plan.substring(plan.indexOf(partsuppBuildsOnPart));
        join = join.substring(0, join.indexOf('\n'));
        assertTrue(join.contains("buildSide=[right]"), device + ": " + join);
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

  /**
   * An aggregation's group keys are unique although the column they come from is not: Q18's orders probe, in a GPU
   * pipeline, the order keys that {@code group by l_orderkey having} kept, and Q20's partsupp the {@code (l_partkey,
   * l_suppkey)} sums of lineitem (their columns repeat in lineitem, which the statistics alone see). Not for a LEFT
   * join: Q13's customers stay off the GPU's probes, as the counts they group by may be NULL-extended, which the GPU
   * cannot group (its pipeline had fallen back to the CPU after the orders' counts ran).
   */
  @Test void anAggregationsGroupKeysAreUniqueBuildKeys() throws Exception {
    try (AutoCloseable gpu = SpillwayGpuSite.assume(AssumedGpuSite.h100(true))) {
      SpillwayAssert.that(dir, "device=gpu").query(TpchQueries.sql(18))
          .explainContains("SpillwayTableScan(table=[[spillway, orders]], fields=[[0, 1, 3, 4]], device=[gpu]")
          .explainLacks("not known to be unique");
      SpillwayAssert.that(dir, "device=gpu").query(TpchQueries.sql(20))
          .explainContains("SpillwayTableScan(table=[[spillway, partsupp]], fields=[[0, 1, 2]], device=[gpu]")
          .explainLacks("not known to be unique");
      SpillwayAssert.that(dir, "device=gpu").query(TpchQueries.sql(13))
          .explainContains("SpillwayTableScan(table=[[spillway, orders]], fields=[[0, 1, 8]], device=[gpu]")
          .explainLacks("probe=[in a gpu pipeline]");
    }
  }

  /**
   * Q18's last pipeline groups by {@code c_name}, a TEXT key the GPU cannot group by: lineitem streams through the
   * probe of the orders (and their customers) that the subquery kept on the GPU, and the CPU aggregates the rows it returns.
   */
  @Test void aTextGroupKeySplitsThePipelineAtItsAggregation() throws Exception {
    try (AutoCloseable gpu = SpillwayGpuSite.assume(AssumedGpuSite.h100(true))) {
      SpillwayAssert.that(dir, "device=gpu").query(TpchQueries.sql(18))
          .explainContains("cpuBecause=[its aggregation runs on the CPU over the GPU pipeline's rows: group key of "
              + "type TEXT]")
          .explainContains("SpillwayAggregate(group=[{0, 1, 2, 4, 5}], sum_qty=[$SUM0($8)], device=[cpu]")
          .explainContains("SpillwayProject(c_name=[$1], c_custkey=[$0], o_orderkey=[$2], o_orderdate=[$4], "
              + "o_totalprice=[$3], sum_qty=[$5], device=[cpu]")
          .explainContains("joinType=[inner], device=[gpu], algorithm=[nopa], placement=[gpu], "
              + "probe=[in a gpu pipeline]", 3)  // lineitem's, and the orders pipeline's two
          .explainContains("SpillwayTableScan(table=[[spillway, lineitem]], fields=[[0, 4]], device=[gpu]", 2);
    }
  }
}
