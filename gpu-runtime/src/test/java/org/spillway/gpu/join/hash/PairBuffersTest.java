package org.spillway.gpu.join.hash;

import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;

import org.junit.jupiter.api.Test;
import org.spillway.gpu.pipeline.scheduler.MorselScheduler;

class PairBuffersTest {
  @Test
  void nestedTakesOnOneThreadGetTheirOwnBuffers() {
    PairBuffers outer = PairBuffers.take();
    PairBuffers inner = PairBuffers.take();
    assertNotSame(outer, inner);
    assertNotSame(outer.candidates, inner.candidates);
    inner.release();
    outer.release();
  }

  @Test
  void aReleasedSetIsHandedOutAgain() {
    PairBuffers first = PairBuffers.take();
    first.release();
    PairBuffers again = PairBuffers.take();
    assertSame(first, again);
    again.release();
  }

  @Test
  void buffersThatGrewBeyondAFewMorselsAreNotKept() {
    PairBuffers big = PairBuffers.take();
    big.candidates.cleared(8 * MorselScheduler.MORSEL_ROWS);
    big.release();
    PairBuffers next = PairBuffers.take();
    assertNotSame(big, next);
    next.release();
  }
}
