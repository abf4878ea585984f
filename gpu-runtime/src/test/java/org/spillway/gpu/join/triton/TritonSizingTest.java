package org.spillway.gpu.join.triton;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.spillway.gpu.device.GpuMemoryException;

/** TritonJoin's sizing rules on the CPU (CI): B1 by the C/2 rule, B2 by the table, the cache share. */
class TritonSizingTest {
  /** An H200: 132 SMs, 227 KiB of opt-in shared memory per block. */
  private static final TritonSizing.Device H200 = new TritonSizing.Device(132, 232_448);
  private static final long GIB = 1L << 30;

  /** Uniform bins: {@code rows} spread evenly over the 1024 histogram bins. */
  private static long[] uniform(long rows) {
    long[] bins = new long[1 << HierarchicalPartitioner.HISTOGRAM_BITS];
    Arrays.fill(bins, rows / bins.length);
    bins[0] += rows % bins.length;
    return bins;
  }

  private static TritonSizing.Demand demand(long buildRows, long probeRows) {
    return new TritonSizing.Demand(uniform(buildRows), uniform(probeRows), 132, 132, false);
  }

  @Test
  void largeInputsTakeB1SoThatTheSecondPassStaysWithinTenBits() {
    // 2^29 x 2^29 rows (16 GiB of tuples) in 40 GiB: memory allows B1 = 3, the second pass wants B1 >= 8.
    TritonSizing.Plan plan = TritonSizing.plan(demand(1L << 29, 1L << 29), H200, TritonOptions.DEFAULT, 40 * GIB);
    assertEquals(8, plan.bits1());
    assertEquals(10, plan.bits2());
    assertTrue(plan.maxBuildRows() >> plan.bits2() <= TritonOptions.DEFAULT_TABLE_CAPACITY / 2, plan.toString());
    assertEquals(1.0, plan.cacheShare(), 1e-9);  // everything fits: cache it all
  }

  @Test
  void smallBudgetsRaiseB1ByTheHalfBudgetRule() {
    // 2^27 + 2^27 rows with 64 MiB: two stream's pairs plus their outputs (4 pairs) must fit 32 MiB.
    long budget = 64L << 20;
    TritonSizing.Demand d = demand(1L << 27, 1L << 27);
    TritonSizing.Plan plan = TritonSizing.plan(d, H200, TritonOptions.DEFAULT, budget);
    assertTrue(plan.pipelineBytes() <= budget / 2, plan.toString());
    TritonSizing.Plan fewer = TritonSizing.plan(d, H200, TritonOptions.DEFAULT.withBits(plan.bits1() - 1, -1),
        budget);
    assertTrue(fewer.pipelineBytes() > budget / 2, "B1 - 1 would break the rule: " + fewer);
    assertEquals(0.0, plan.cacheShare(), 0.02);  // 4 GiB of tuples, 64 MiB of budget
  }

  @Test
  void cacheShareIsWhatTheBudgetLeavesAfterTheLargerPhase() {
    TritonSizing.Demand d = demand(1L << 26, 1L << 26);  // 2 GiB of tuples
    long budget = GIB;
    TritonSizing.Plan plan = TritonSizing.plan(d, H200, TritonOptions.DEFAULT, budget);
    long needed = Math.max(plan.pass1Bytes(), plan.pipelineBytes()) + TritonSizing.SLACK_BYTES;
    assertEquals((double) (budget - needed) / plan.arrayBytes(), plan.cacheShare(), 1e-9);
    assertTrue(plan.cacheShare() > 0.3 && plan.cacheShare() < 0.5, plan.toString());
    assertTrue(plan.pass1Bytes() <= budget / TritonSizing.L2_POOL_DIVISOR + (8L << 20), plan.toString());
  }

  @Test
  void forcedValuesWinWhenTheyFit() {
    TritonOptions o = TritonOptions.DEFAULT.withBits(4, 7).withCacheShare(0.25).withL2Tuples(64);
    TritonSizing.Plan plan = TritonSizing.plan(demand(1 << 20, 1 << 21), H200, o, 4 * GIB);
    assertEquals(4, plan.bits1());
    assertEquals(7, plan.bits2());
    assertEquals(0.25, plan.cacheShare());
    assertEquals(64, plan.l2Tuples());
    assertEquals(32, plan.l1Tuples());  // fanout 16 leaves room for the largest shared-memory buffers
    assertThrows(GpuMemoryException.class, () -> TritonSizing.plan(demand(1 << 20, 1 << 21), H200,
        TritonOptions.DEFAULT.withCacheShare(1.0), 64L << 20));
  }

  @Test
  void l1BuffersShrinkWithFanout() {
    assertEquals(32, HierarchicalPartitioner.l1Tuples(8, H200.sharedBytesPerBlock()));
    assertEquals(16, HierarchicalPartitioner.l1Tuples(9, H200.sharedBytesPerBlock()));
    assertEquals(8, HierarchicalPartitioner.l1Tuples(10, H200.sharedBytesPerBlock()));
    assertEquals(0, HierarchicalPartitioner.l1Tuples(10, 48 << 10));
    assertEquals(8, SharedPartitioner.l1Tuples(10, H200.sharedBytesPerBlock()));
    assertEquals(2, SharedPartitioner.l1Tuples(12, H200.sharedBytesPerBlock()));
    assertTrue(HierarchicalPartitioner.sharedBytes(10, 8) <= H200.sharedBytesPerBlock());
  }

  @Test
  void skewedBuildPartitionsCapB2AndFailOnlyWhenNoB1Fits() {
    long[] skewed = uniform(1 << 20);
    skewed[5] += 1L << 24;  // one hot key: no radix bit splits it
    TritonSizing.Demand d = new TritonSizing.Demand(skewed, uniform(1 << 20), 64, 64, true);
    TritonSizing.Plan plan = TritonSizing.plan(d, H200, TritonOptions.DEFAULT, 4 * GIB);
    assertEquals(TritonSizing.MAX_BITS2, plan.bits2());
    assertTrue(plan.maxBuildRows() >= 1L << 24, plan.toString());
    GpuMemoryException e = assertThrows(GpuMemoryException.class,
        () -> TritonSizing.plan(d, H200, TritonOptions.DEFAULT, 256L << 20));
    assertTrue(e.getMessage().contains("TritonJoin") && e.getMessage().contains("budget"), e.getMessage());
  }

  @Test
  void bits2LeavesHalfATablePerSubPartition() {
    assertEquals(0, TritonSizing.bits2For(2048, 4096));
    assertEquals(1, TritonSizing.bits2For(2049, 4096));
    assertEquals(10, TritonSizing.bits2For(2048L << 10, 4096));
    assertEquals(0, TritonSizing.bits2For(0, 4096));
  }

  @Test
  void optionsRejectValuesOutOfRange() {
    assertThrows(IllegalArgumentException.class, () -> TritonOptions.DEFAULT.withBits(11, -1));
    assertThrows(IllegalArgumentException.class, () -> TritonOptions.DEFAULT.withBits(-1, 13));
    assertThrows(IllegalArgumentException.class, () -> TritonOptions.DEFAULT.withCacheShare(1.5));
    assertThrows(IllegalArgumentException.class, () -> TritonOptions.DEFAULT.withTableCapacity(70_000));
    assertThrows(IllegalArgumentException.class, () -> TritonOptions.DEFAULT.withL2Tuples(100));
    assertThrows(IllegalArgumentException.class, () -> TritonSizing.plan(demand(10, 10), H200,
        TritonOptions.DEFAULT.withTableCapacity(20_000), GIB));
  }
}
