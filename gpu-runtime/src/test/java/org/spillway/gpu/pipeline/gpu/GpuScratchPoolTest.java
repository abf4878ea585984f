package org.spillway.gpu.pipeline.gpu;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The idle pools of GPU pipeline scratch (device buffers, pinned buffers, streams, events): a buffer given back stays
 * idle as the most recently used, and the pool frees those idle longest beyond its caps. Before, a full pool refused
 * the buffer given back, so that in a long-lived process the join key staging every run takes was pinned and freed
 * anew in each run.
 */
class GpuScratchPoolTest {
  private static final long MB = 1L << 20;

  /** Items are sizes in bytes. */
  private static List<Long> keep(Deque<Long> idle, long item, long cap) {
    return GpuScratch.keep(idle, item, Long::longValue, cap);
  }

  @Test void aBufferEveryRunUsesStaysIdleOnceOtherSizesFilledThePool() {
    Deque<Long> idle = new ArrayDeque<>();
    List<Long> freed = new ArrayList<>();
    for (int i = 0; i < GpuScratch.MAX_IDLE; i++) {
      freed.addAll(keep(idle, MB + i, Long.MAX_VALUE));  // assorted sizes fill the pool's count
    }
    assertEquals(List.of(), freed);
    for (int run = 0; run < 5; run++) {
      freed.addAll(keep(idle, 16 * MB, Long.MAX_VALUE));
      assertTrue(idle.remove(16 * MB), "the staging buffer is idle after run " + run);
    }
    assertEquals(List.of(MB), freed, "the first release frees the buffer idle longest, not the one given back; later"
        + " runs take and give back the same buffer");
  }

  @Test void theBytesCapFreesTheLongestIdleFirst() {
    Deque<Long> idle = new ArrayDeque<>();
    assertEquals(List.of(), keep(idle, 40 * MB, 100 * MB));
    assertEquals(List.of(), keep(idle, 50 * MB, 100 * MB));
    assertEquals(List.of(40 * MB), keep(idle, 30 * MB, 100 * MB));
    assertEquals(List.of(30 * MB, 50 * MB), idle.stream().toList());
    assertEquals(List.of(200 * MB), keep(idle, 200 * MB, 100 * MB), "a buffer over the cap alone is freed itself");
    assertEquals(2, idle.size());
  }
}
