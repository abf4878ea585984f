package org.spillway.gpu.join.nopa;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.spillway.gpu.transfer.TransferMethod;

/** The pure arithmetic of NopaHashJoin: table choice, sizing and placement against the GPU budget (runs in CI). */
class NopaTableLayoutTest {
  private static BuildKeyStats keys(long min, long max, long rows, long minusOnes) {
    return new BuildKeyStats(min, max, rows, minusOnes);
  }

  @Test
  void linearProbingTakesTwiceTheNextPowerOfTwoLikeTheCpuTable() {
    assertEquals(1, NopaTableLayout.linearProbingLogSlots(0));
    assertEquals(1, NopaTableLayout.linearProbingLogSlots(1));
    assertEquals(2, NopaTableLayout.linearProbingLogSlots(2));
    assertEquals(3, NopaTableLayout.linearProbingLogSlots(3));
    assertEquals(3, NopaTableLayout.linearProbingLogSlots(4));
    assertEquals(4, NopaTableLayout.linearProbingLogSlots(5));
    assertEquals(21, NopaTableLayout.linearProbingLogSlots(1 << 20));
    assertEquals(22, NopaTableLayout.linearProbingLogSlots((1 << 20) + 1));
    assertEquals(33, NopaTableLayout.linearProbingLogSlots(1L << 32));
    assertThrows(IllegalArgumentException.class, () -> NopaTableLayout.linearProbingLogSlots(1L << 40));
    NopaTableLayout lp = NopaTableLayout.plan(keys(-5, 1 << 30, 3000, 0), false, null, 1L << 30);
    assertEquals(8192, lp.slots());
    assertEquals(13, lp.logSlots());
    assertEquals(8192 * 16, lp.tableBytes());
  }

  @Test
  void arrayTableNeedsDenseKeysAndAtMostOneMinusOne() {
    assertTrue(keys(10, 109, 100, 0).denseEnoughForPerfectHashing());
    assertTrue(keys(10, 209, 100, 0).denseEnoughForPerfectHashing());
    assertFalse(keys(10, 210, 100, 0).denseEnoughForPerfectHashing());
    assertTrue(keys(-1, -1, 1, 1).denseEnoughForPerfectHashing());
    assertFalse(keys(-2, 5, 8, 2).denseEnoughForPerfectHashing());
    assertFalse(keys(Long.MIN_VALUE, Long.MAX_VALUE, 1L << 40, 0).denseEnoughForPerfectHashing());
    assertFalse(BuildKeyStats.EMPTY.denseEnoughForPerfectHashing());
    NopaTableLayout array = NopaTableLayout.plan(keys(1000, 1099, 100, 0), true, null, 1L << 30);
    assertEquals(100, array.slots());
    assertEquals(1000, array.minKey());
    assertEquals("nopa/perfect-hash/gpu", array.variant());
  }

  @Test
  void placementFollowsTheBudgetUnlessForced() {
    BuildKeyStats stats = keys(0, 1L << 40, 6000, 0);  // 16384 slots, 256 KiB
    assertEquals(HashTablePlacement.GPU, NopaTableLayout.plan(stats, false, null, 256 << 10).placement());
    NopaTableLayout hybrid = NopaTableLayout.plan(stats, false, null, 64 << 10);
    assertEquals(HashTablePlacement.HYBRID, hybrid.placement());
    assertEquals(4096, hybrid.gpuSlots());
    assertEquals(64 << 10, hybrid.gpuBytes());
    assertEquals(192 << 10, hybrid.hostBytes());
    assertEquals("nopa/linear-probing/hybrid(0.25)", hybrid.variant());
    NopaTableLayout host = NopaTableLayout.plan(stats, false, null, 15);
    assertEquals(HashTablePlacement.HOST, host.placement());
    assertEquals(0, host.gpuSlots());
    assertEquals("nopa/linear-probing/host", host.variant());
    assertEquals(0, NopaTableLayout.plan(stats, false, HashTablePlacement.HOST, 1L << 30).gpuSlots());
    assertEquals(16384, NopaTableLayout.plan(stats, false, HashTablePlacement.HYBRID, 1L << 30).gpuSlots());
    var tooBig = assertThrows(IllegalArgumentException.class,
        () -> NopaTableLayout.plan(stats, false, HashTablePlacement.GPU, 1 << 10));
    assertTrue(tooBig.getMessage().contains("262144 bytes"), tooBig.getMessage());
  }

  @Test
  void optionsRejectNonsense() {
    assertThrows(IllegalArgumentException.class, () -> NopaOptions.DEFAULT.withTableBudget(-1));
    assertThrows(IllegalArgumentException.class, () -> NopaOptions.DEFAULT.withBlocksPerSm(0));
    assertThrows(IllegalArgumentException.class, () -> NopaOptions.DEFAULT.withMethod(null));
    assertEquals(TransferMethod.PINNED_COPY, NopaOptions.DEFAULT.withMethod(TransferMethod.PINNED_COPY).method());
    assertEquals(HashTablePlacement.HYBRID, NopaOptions.DEFAULT.withPlacement(HashTablePlacement.HYBRID).placement());
    assertEquals(2, ValidityChunks.bytesFor(9));
    assertEquals(0, ValidityChunks.bytesFor(0));
  }
}
