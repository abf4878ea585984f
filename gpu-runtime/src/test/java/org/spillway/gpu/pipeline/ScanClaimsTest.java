package org.spillway.gpu.pipeline;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicIntegerArray;
import org.junit.jupiter.api.Test;

/** The two ends of a shared scan: every batch goes to exactly one side, under any interleaving of their claims. */
class ScanClaimsTest {
  @Test void theGpuStopsAtTheFirstGroupTheCpuHasABatchOf() {
    ScanClaims claims = new ScanClaims(10);
    assertTrue(claims.claimFront(4));
    assertTrue(claims.claimBack(9));
    assertTrue(claims.claimBack(6));
    assertTrue(claims.claimBack(8), "a batch behind the CPU's end is its own already");
    assertFalse(claims.claimFront(8), "the group 4..7 holds batch 6, which the CPU took");
    assertTrue(claims.claimFront(6));
    assertFalse(claims.claimBack(5), "batch 5 is the GPU's");
    assertEquals(6, claims.gpuBatches());
    assertEquals(4, claims.cpuBatches());
  }

  @Test void aClosedFrontLeavesTheRestToTheCpu() {
    ScanClaims claims = new ScanClaims(5);
    assertTrue(claims.claimFront(2));
    claims.closeFront();
    assertFalse(claims.claimFront(3));
    assertTrue(claims.claimFront(2), "what it holds stays its own");
    for (int b = 4; b >= 2; b--) {
      assertTrue(claims.claimBack(b));
    }
    assertFalse(claims.claimBack(1));
    assertEquals(2, claims.gpuBatches());
    assertEquals(3, claims.cpuBatches());
  }

  /** A GPU thread claiming groups from the front, CPU threads batches from the back: each batch exactly once. */
  @Test void concurrentClaimsGiveEachBatchToOneSide() throws InterruptedException {
    Random random = new Random(System.nanoTime());
    for (int round = 0; round < 50; round++) {
      int batches = 1 + random.nextInt(300);
      ScanClaims claims = new ScanClaims(batches);
      AtomicIntegerArray owner = new AtomicIntegerArray(batches);  // 0 none, 1 GPU, 2 CPU
      int group = 1 + random.nextInt(8);
      Thread gpu = new Thread(() -> {
        for (int first = 0; first < batches; first += group) {
          int end = Math.min(batches, first + group);
          if (!claims.claimFront(end)) {
            return;
          }
          for (int b = first; b < end; b++) {
            assertTrue(owner.compareAndSet(b, 0, 1), "batch " + b + " twice");
          }
        }
      });
      java.util.concurrent.atomic.AtomicInteger next = new java.util.concurrent.atomic.AtomicInteger(batches - 1);
      List<Thread> cpus = new ArrayList<>();
      for (int t = 0; t < 3; t++) {
        cpus.add(new Thread(() -> {
          for (int b = next.getAndDecrement(); b >= 0; b = next.getAndDecrement()) {
            if (claims.claimBack(b)) {
              assertTrue(owner.compareAndSet(b, 0, 2), "batch " + b + " twice");
            }
          }
        }));
      }
      gpu.start();
      cpus.forEach(Thread::start);
      gpu.join();
      for (Thread t : cpus) {
        t.join();
      }
      for (int b = 0; b < batches; b++) {
        assertTrue(owner.get(b) != 0, "batch " + b + " of " + batches + " taken by neither");
        assertEquals(b < claims.gpuBatches() ? 1 : 2, owner.get(b), "batch " + b);
      }
      assertEquals(batches, claims.gpuBatches() + claims.cpuBatches());
    }
  }
}
