package org.spillway.adapter;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.common.collect.Range;
import java.util.List;
import org.spillway.gpu.vector.ExprType;
import org.spillway.gpu.pipeline.PipelineStage;
import org.spillway.gpu.expr.AggCall;
import org.junit.jupiter.api.Test;
import org.spillway.gpu.device.HostMemoryKind;
import org.spillway.gpu.pipeline.gpu.FilterVariant;
import org.spillway.gpu.transfer.TransferMethod;

/** The cost model's choices on the H100 profile: device, transfer method and filter variant. */
class SpillwayCostModelTest {
  private static final SpillwayCostModel H100 = new SpillwayCostModel(AssumedGpuSite.h100(true).profile());
  private static final long SF10_LINEITEM = 59_986_052;

  /** Q6 at SF 10: shipdate, then discount, then quantity filter; extendedprice is needed after all three. */
  private static SpillwayCostModel.Shape q6(long rows) {
    return new SpillwayCostModel.Shape(rows, List.of(new SpillwayCostModel.Column(8, 0.0394),
        new SpillwayCostModel.Column(8, 0.0181), new SpillwayCostModel.Column(8, 0.1446),
        new SpillwayCostModel.Column(4, 1.0)), 0.0181);
  }

  /** Q1 at SF 10: shipdate <= 1998-09-02 keeps 98.6 %, every other column is needed after it. */
  private static SpillwayCostModel.Shape q1(long rows) {
    List<SpillwayCostModel.Column> columns = List.of(new SpillwayCostModel.Column(8, 0.986),
        new SpillwayCostModel.Column(8, 0.986), new SpillwayCostModel.Column(8, 0.986),
        new SpillwayCostModel.Column(8, 0.986), new SpillwayCostModel.Column(4, 0.986),
        new SpillwayCostModel.Column(4, 0.986), new SpillwayCostModel.Column(4, 1.0));
    return new SpillwayCostModel.Shape(rows, columns, 0.986);
  }

  private static List<TransferMethod> pinnedMethods() {
    return H100.methodsFor(HostMemoryKind.PINNED);
  }

  /**
   * The CPU backend pays for every aggregate call and group key per selected row beyond the calibrated Q6 shape:
   * Q1's eight calls and two keys cost it more than its scan, a global SUM nothing more.
   */
  /**
   * A scan shared by the GPU and the CPU takes {@code 1 / (1/gpu + 1/cpu)}; it is chosen only where that is well
   * below the faster one alone, and EXPLAIN's cost says so.
   */
  @Test void sharingAScanPaysWhereTheDevicesAreComparable() {
    SpillwayCostModel.GpuRun run = new SpillwayCostModel.GpuRun(TransferMethod.PINNED_COPY,
        FilterVariant.PREDICATION, 1L << 30, 60);
    SpillwayCostModel.Estimate comparable = new SpillwayCostModel.Estimate(run, 40, false, true);
    assertEquals(24, comparable.sharedPrediction(), 1e-9);
    assertTrue(comparable.sharingPays());
    assertTrue(comparable.shared(true).label().endsWith(", cpu 40.000 ms, shared 24.000 ms"),
        comparable.shared(true).label());
    assertFalse(comparable.shared(false).label().contains("shared"));
    assertFalse(new SpillwayCostModel.Estimate(run, 2, false, true).sharingPays(), "the CPU alone is 30x faster");
    assertFalse(new SpillwayCostModel.Estimate(run, 4000, false, true).sharingPays(), "the GPU alone is 66x faster");
    assertFalse(new SpillwayCostModel.Estimate(null, 40, false, true).sharingPays(), "no GPU run");
    assertFalse(new SpillwayCostModel.Estimate(new SpillwayCostModel.GpuRun(TransferMethod.PINNED_COPY,
        FilterVariant.PREDICATION, 1L << 20, 6), 4, false, true).sharingPays(), "4 ms alone: too short to share");
    SpillwayCostModel.Shape rows = rows();
    assertTrue(comparable.sharingPays(rows, 0));
    assertFalse(comparable.sharingPays(new SpillwayCostModel.Shape(1_000_000,
        List.of(new SpillwayCostModel.Column(8, 1)), 0.025, 16), 0), "Q21's lineitem pipeline returns 2.5% of its rows");
    assertFalse(comparable.sharingPays(rows, SpillwayCostModel.SHARED_MAX_GROUPS + 1), "too many groups to merge");
    assertFalse(comparable.sharingPays(new SpillwayCostModel.Shape(1_000_000,
        List.of(new SpillwayCostModel.Column(8, 1)), 0.5, 16), 0), "half the rows come back to the GPU's host side");
    assertTrue(comparable.sharingPays(rows, 0, 5), "24 + 5 ms shared against 40 alone");
    assertFalse(comparable.sharingPays(rows, 0, 15), "the CPU's own tables (15 ms) are built before it shares");
  }

  /**
   * Sharing a zero-copy scan costs the GPU its launches over tables of batches: its side is priced
   * {@link SpillwayCostModel#SHARED_ZERO_COPY_SLOWDOWN} slower, so a GPU much faster than the CPU keeps the scan alone
   * (TPC-H Q19 at SF 10 on the H200 host: 25.6 ms alone, 31.9 ms shared with a CPU twice as slow).
   */
  @Test void aSharedZeroCopyScanGivesUpTheGpusTables() {
    SpillwayCostModel.GpuRun pinned = new SpillwayCostModel.GpuRun(TransferMethod.PINNED_COPY,
        FilterVariant.PREDICATION, 1L << 30, 30);
    SpillwayCostModel.GpuRun zeroCopy = new SpillwayCostModel.GpuRun(TransferMethod.ZERO_COPY,
        FilterVariant.BRANCHING, 1L << 30, 30);
    SpillwayCostModel.Estimate copied = new SpillwayCostModel.Estimate(pinned, 60, false, true);
    SpillwayCostModel.Estimate pulled = new SpillwayCostModel.Estimate(zeroCopy, 60, false, true);
    assertEquals(20, copied.sharedPrediction(), 1e-9);
    double gpuSide = 30 * SpillwayCostModel.SHARED_ZERO_COPY_SLOWDOWN;
    assertEquals(gpuSide * 60 / (gpuSide + 60), pulled.sharedPrediction(), 1e-9);
    assertTrue(copied.sharingPays(rows(), 0, 5), "20 + 5 ms shared against 30 alone");
    assertFalse(pulled.sharingPays(rows(), 0, 5), "the GPU's side launches per batch: 23.6 + 5 ms against 30 alone");
  }

  private static SpillwayCostModel.Shape rows() {
    return new SpillwayCostModel.Shape(1_000_000, List.of(new SpillwayCostModel.Column(8, 1)), 0.005, 16);
  }

  /**
   * Q13's orders pipeline at SF 10: NOT LIKE over o_comment (plain text, about 53 bytes a row with its offset, read
   * in place by the GPU) first, then o_custkey and o_orderkey. The text crosses the link under every method and even
   * when the fixed-width columns are resident in the column cache, which holds no text.
   */
  @Test void plainTextCrossesTheLinkUnderEveryMethod() {
    long rows = 15_000_000;
    SpillwayCostModel.Column comment = new SpillwayCostModel.Column(53, 1, true);
    SpillwayCostModel.Shape q13 = new SpillwayCostModel.Shape(rows, List.of(new SpillwayCostModel.Column(8, 0.99),
        new SpillwayCostModel.Column(4, 0.99), comment), 0.99);
    long text = rows * 53;
    assertEquals(text, q13.inPlaceBytes(false));
    assertEquals(text, q13.inPlaceBytes(true), "LIKE runs first: every row's text is read");
    assertEquals(rows * (8 + 4 + 53), q13.bytes());
    for (TransferMethod method : pinnedMethods()) {
      for (FilterVariant variant : FilterVariant.values()) {
        SpillwayCostModel.GpuRun run = H100.gpuRun(q13, method, variant, false);
        assertTrue(run.linkBytes() >= text, method + " " + variant + ": " + run);
        assertEquals(text, H100.gpuRun(q13, method, variant, true).linkBytes(), method + " " + variant + " resident");
      }
    }
    SpillwayCostModel.Shape later = new SpillwayCostModel.Shape(rows, List.of(new SpillwayCostModel.Column(4, 1),
        new SpillwayCostModel.Column(53, 0.001, true)), 0.001);
    assertTrue(later.inPlaceBytes(true) < later.inPlaceBytes(false) / 10,
        "behind a selective filter, branching reads the text of few rows");
  }

  @Test void aggregationWorkWeighsOnTheCpuBackend() {
    SpillwayCostModel.Shape q1 = q1(SF10_LINEITEM);
    AggCall sum = new AggCall(AggCall.Kind.SUM, 0, ExprType.INT64);
    PipelineStage.Aggregate global = new PipelineStage.Aggregate(new int[0], List.of(sum));
    PipelineStage.Aggregate q1Like = new PipelineStage.Aggregate(new int[] {0, 1},
        List.of(sum, sum, sum, sum, sum, sum, sum, sum));
    assertEquals(0, H100.cpuAggregateMillis(q1, List.of(global), 0), 1e-9);
    double extra = H100.cpuAggregateMillis(q1, List.of(q1Like), 4);
    assertTrue(extra > H100.cpuMillis(q1), extra + " ms against a scan of " + H100.cpuMillis(q1) + " ms");
    assertEquals(0, H100.cpuAggregateMillis(q1, List.of(), 0), 1e-9, "no aggregation, nothing to add");
  }

  /**
   * Q18's aggregation of lineitem by order: 15 M groups outgrow the caches, and each row's update misses into memory;
   * so do Q13's million customers, which each of the 16 cores' tables holds; groups that fit the caches in every
   * core's table cost the key's share alone.
   */
  @Test void groupsBeyondTheCachesCostAMissPerRow() {
    SpillwayCostModel.Shape q18 = q1(SF10_LINEITEM);
    PipelineStage.Aggregate byOrder = new PipelineStage.Aggregate(new int[] {0},
        List.of(new AggCall(AggCall.Kind.SUM0, 1, ExprType.INT64)));
    long cores = AssumedGpuSite.h100(true).profile().cpuCores();
    double cached = H100.cpuAggregateMillis(q18, List.of(byOrder), SpillwayCostModel.CPU_CACHE_GROUPS / cores);
    double missing = H100.cpuAggregateMillis(q18, List.of(byOrder), 15_000_000);
    assertEquals(cached * (1 + SpillwayCostModel.CPU_AGGREGATE_MISS_NANOS_PER_ROW
        / SpillwayCostModel.CPU_AGGREGATE_CALL_NANOS_PER_ROW), missing, 1e-6);
    assertEquals(missing, H100.cpuAggregateMillis(q18, List.of(byOrder), 1_000_000), 1e-6,
        "Q13's million customers in each core's table");
  }

  /** A byte of plain text (a LIKE's operand) weighs more on the CPU backend than a byte of numbers (Q20's part names). */
  @Test void textWeighsMoreOnTheCpu() {
    long rows = 2_000_000;
    SpillwayCostModel.Shape numbers = new SpillwayCostModel.Shape(rows, List.of(new SpillwayCostModel.Column(4, 1),
        new SpillwayCostModel.Column(33, 1)), 0.01);
    SpillwayCostModel.Shape names = new SpillwayCostModel.Shape(rows, List.of(new SpillwayCostModel.Column(4, 1),
        new SpillwayCostModel.Column(33, 1, true)), 0.01);
    assertEquals(numbers.bytes(), names.bytes());
    double numeric = H100.cpuMillis(numbers);
    assertEquals(numeric * (4 + 33 * SpillwayCostModel.CPU_TEXT_BYTE_WEIGHT) / 37, H100.cpuMillis(names), 1e-9);
  }

  /**
   * A CPU pipeline that returns rows pays for copying each out on a core, beyond its scan (TPC-H Q21's 7.3 M orders);
   * one that aggregates pays nothing of the kind.
   */
  @Test void returnedRowsWeighOnTheCpu() {
    List<SpillwayCostModel.Column> columns = List.of(new SpillwayCostModel.Column(8, 1), new SpillwayCostModel.Column(4, 1));
    SpillwayCostModel.Shape aggregated = new SpillwayCostModel.Shape(15_000_000, columns, 0.49);
    SpillwayCostModel.Shape returned = new SpillwayCostModel.Shape(15_000_000, columns, 0.49, 8);
    long cores = AssumedGpuSite.h100(true).profile().cpuCores();
    assertEquals(15_000_000 * 0.49 * SpillwayCostModel.CPU_RETURNED_ROW_NANOS / cores / 1e6,
        H100.cpuMillis(returned) - H100.cpuMillis(aggregated), 1e-9);
    assertTrue(H100.cpuMillis(returned) > 2 * H100.cpuMillis(aggregated), "the copies outweigh the scan");
  }

  @Test void lazyBytesFollowTheLineFetchFraction() {
    SpillwayCostModel.Shape all = new SpillwayCostModel.Shape(1000, List.of(new SpillwayCostModel.Column(8, 1.0)), 1);
    assertEquals(8000, all.lazyBytes());
    SpillwayCostModel.Shape none = new SpillwayCostModel.Shape(1000, List.of(new SpillwayCostModel.Column(8, 0.0)), 0);
    assertEquals(0, none.lazyBytes());
    // 16 values per 128-byte line: a line is fetched unless all 16 rows failed, 1 - 0.9^16 = 0.8147.
    SpillwayCostModel.Shape tenth = new SpillwayCostModel.Shape(1000, List.of(new SpillwayCostModel.Column(8, 0.1)), 0);
    assertEquals(Math.round(8000 * (1 - Math.pow(0.9, 16))), tenth.lazyBytes());
    assertEquals(28 * SF10_LINEITEM, q6(SF10_LINEITEM).bytes());
    assertTrue(q6(SF10_LINEITEM).lazyBytes() < 0.7 * q6(SF10_LINEITEM).bytes());
  }

  @Test void pinnedMemoryOffersTheCopyAndPullMethodsPinnedCopyFirst() {
    assertEquals(List.of(TransferMethod.PINNED_COPY, TransferMethod.PAGEABLE_COPY, TransferMethod.STAGED_COPY,
        TransferMethod.ZERO_COPY), pinnedMethods());
    assertEquals(List.of(TransferMethod.UM_PREFETCH, TransferMethod.UM_MIGRATION),
        H100.methodsFor(HostMemoryKind.MANAGED));
    assertFalse(H100.methodsFor(HostMemoryKind.PAGEABLE).contains(TransferMethod.COHERENCE),
        "coherence is unsupported");
  }

  @Test void selectiveQ6PullsWithBranchingAndCopiesWithPredication() {
    SpillwayCostModel.Shape shape = q6(SF10_LINEITEM);
    SpillwayCostModel.GpuRun zeroCopy = H100.gpuRun(shape, TransferMethod.ZERO_COPY, null, false);
    assertEquals(FilterVariant.BRANCHING, zeroCopy.variant());
    assertEquals(shape.lazyBytes(), zeroCopy.linkBytes());
    SpillwayCostModel.GpuRun pinned = H100.gpuRun(shape, TransferMethod.PINNED_COPY, null, false);
    assertEquals(FilterVariant.PREDICATION, pinned.variant(), "a copy moves every byte: no reason to diverge");
    assertEquals(shape.bytes(), pinned.linkBytes());
    SpillwayCostModel.Estimate best = H100.estimate(shape, pinnedMethods(), null, false);
    assertEquals(TransferMethod.ZERO_COPY, best.gpu().method(), "branching skips enough lines to beat the copy");
    assertEquals(FilterVariant.BRANCHING, best.gpu().variant());
  }

  @Test void unselectiveQ1CopiesWithPredication() {
    SpillwayCostModel.Estimate q1 = H100.estimate(q1(SF10_LINEITEM), pinnedMethods(), null, false);
    assertEquals(TransferMethod.PINNED_COPY, q1.gpu().method());
    assertEquals(FilterVariant.PREDICATION, q1.gpu().variant());
    assertEquals(FilterVariant.PREDICATION,
        H100.gpuRun(q1(SF10_LINEITEM), TransferMethod.ZERO_COPY, null, false).variant(),
        "branching saves under 5 % of the bytes at 98.6 % selectivity");
    // 44 bytes per row at 53.85 GB/s plus the 1 ms run cost.
    assertEquals(1.0 + 44.0 * SF10_LINEITEM / 53.85e6, q1.gpu().millis(), 1e-6);
  }

  @Test void uncachedQ6IsCheaperOnTheGpuThanOnTheCpuBackendAndCachedQ6FarCheaper() {
    SpillwayCostModel.Estimate uncached = H100.estimate(q6(SF10_LINEITEM), pinnedMethods(), null, false);
    assertEquals(28.0 * SF10_LINEITEM / 16e6, uncached.cpuMillis(), 1e-6);
    assertTrue(uncached.gpuIsFaster(), "a 16 GB/s CPU pipeline loses to a 49-54 GB/s link: " + uncached.label());
    SpillwayCostModel.Estimate cached = H100.estimate(q6(SF10_LINEITEM), pinnedMethods(), null, true);
    assertTrue(cached.gpuIsFaster(), cached.label());
    assertEquals(0, cached.gpu().linkBytes());
    assertEquals(TransferMethod.PINNED_COPY, cached.gpu().method(), "ties go to the memory's own method");
    assertTrue(cached.gpu().millis() < 2.0, cached.label());
  }

  @Test void withoutAMeasuredCpuPipelineTheRawScanRateMakesTheCpuCheaper() {
    SpillwayCostModel scanOnly = new SpillwayCostModel(AssumedGpuSite.h100(true, null).profile());
    SpillwayCostModel.Estimate uncached = scanOnly.estimate(q6(SF10_LINEITEM), pinnedMethods(), null, false);
    assertEquals(28.0 * SF10_LINEITEM / 91.41e6, uncached.cpuMillis(), 1e-6);
    assertFalse(uncached.gpuIsFaster(), "P1: a 91 GB/s CPU scan beats a 49-54 GB/s link: " + uncached.label());
  }

  @Test void tinyTablesStayOnTheCpu() {
    SpillwayCostModel.Estimate tiny = H100.estimate(q6(6000), pinnedMethods(), null, false);
    assertFalse(tiny.gpuIsFaster(), "the GPU's fixed cost per run dominates: " + tiny.label());
  }

  @Test void forcedVariantAndMethodAreKept() {
    SpillwayCostModel.Estimate forced = H100.estimate(q6(SF10_LINEITEM), List.of(TransferMethod.PINNED_COPY),
        FilterVariant.BRANCHING, false);
    assertEquals(TransferMethod.PINNED_COPY, forced.gpu().method());
    assertEquals(FilterVariant.BRANCHING, forced.gpu().variant());
    assertEquals(q6(SF10_LINEITEM).bytes(), forced.gpu().linkBytes(), "a copy moves every byte whatever the variant");
  }

  @Test void anUncalibratedProfileIsFlagged() {
    SpillwayCostModel assumed = new SpillwayCostModel(AssumedGpuSite.h100(false).profile());
    assertFalse(assumed.estimate(q6(6000), pinnedMethods(), null, false).calibrated());
    assertTrue(H100.estimate(q6(6000), pinnedMethods(), null, false).calibrated());
  }

  @Test void rangeSharesOfEvenlySpacedValues() {
    // l_discount: 0.00 .. 0.10 in steps of 0.01; BETWEEN 0.05 AND 0.07 keeps 3 of 11 values.
    assertEquals(3 / 11.0, SpillwaySelectivity.share(0, 0.10, 11, Range.closed(0.05, 0.07)), 1e-9);
    // l_quantity: 1 .. 50; < 24 keeps 23 of 50, <= 24 keeps 24, (1, 24) keeps 22.
    assertEquals(23 / 50.0, SpillwaySelectivity.share(1, 50, 50, Range.lessThan(24.0)), 1e-9);
    assertEquals(24 / 50.0, SpillwaySelectivity.share(1, 50, 50, Range.atMost(24.0)), 1e-9);
    assertEquals(22 / 50.0, SpillwaySelectivity.share(1, 50, 50, Range.open(1.0, 24.0)), 1e-9);
    assertEquals(1 / 50.0, SpillwaySelectivity.share(1, 50, 50, Range.singleton(7.0)), 1e-9);
    assertEquals(0.0, SpillwaySelectivity.share(1, 50, 50, Range.greaterThan(50.0)), 1e-9);
    assertEquals(1.0, SpillwaySelectivity.share(1, 50, 50, Range.atLeast(-3.0)), 1e-9);
  }
}
