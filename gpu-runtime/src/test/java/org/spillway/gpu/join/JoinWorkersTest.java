package org.spillway.gpu.join;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicIntegerArray;
import org.junit.jupiter.api.Test;
import org.spillway.gpu.pipeline.scheduler.MorselScheduler;

class JoinWorkersTest {
  /**
   * A materialized join's morsels run once each, on the engine's one pool (and the calling thread, its worker 0),
   * with worker indexes below its threads.
   */
  @Test void morselsRunOnceEachOnTheEnginesPool() {
    assumeTrue(MorselScheduler.THREADS > 1, "one core: the caller runs every morsel");
    int morsels = 1000;
    AtomicIntegerArray runs = new AtomicIntegerArray(morsels);
    Set<String> threadNames = ConcurrentHashMap.newKeySet();
    try (JoinWorkers workers = new JoinWorkers(2, "test-join")) {
      workers.forEachMorsel(morsels, (worker, morsel) -> {
        assertTrue(worker >= 0 && worker < 2, "worker " + worker);
        runs.incrementAndGet(morsel);
        threadNames.add(Thread.currentThread().getName());
      });
    }
    for (int m = 0; m < morsels; m++) {
      assertEquals(1, runs.get(m), "morsel " + m);
    }
    String caller = Thread.currentThread().getName();
    assertTrue(threadNames.stream().allMatch(n -> n.startsWith("spillway-worker") || n.equals(caller)),
        threadNames.toString());
  }
}
