package org.spillway.gpu.pipeline;

import org.spillway.gpu.pipeline.scheduler.MorselScheduler;

/**
 * A worker thread's reusable buffers for {@link SelectionFilter}: the selection vector it refines and the
 * operands it widens, sized to a morsel and kept between morsels instead of allocated per filter.
 *
 * <p>Ownership: a buffer belongs to the one {@link #take} it was taken by, until {@link #release}; nothing that
 * outlives that call (a morsel's columns or selection, collected output, build sides, aggregates) may refer to
 * one. A nested take on the same thread gets buffers of its own.
 */
final class SelectionScratch {
  /** Larger requests (a stage over a whole aggregation result) get buffers that are not kept. */
  static final int CACHED_ROWS = 4 * MorselScheduler.MORSEL_ROWS;
  private static final ThreadLocal<SelectionScratch> OF_THREAD = ThreadLocal.withInitial(SelectionScratch::new);

  int[] positions = new int[0];
  int[] sourceRows = new int[0];
  long[] left = new long[0];
  long[] right = new long[0];
  boolean[] leftNulls = new boolean[0];
  boolean[] rightNulls = new boolean[0];
  private boolean taken;

  private SelectionScratch() {}

  /** This thread's buffers, each at least {@code rows} long. */
  static SelectionScratch take(int rows) {
    SelectionScratch s = rows <= CACHED_ROWS ? OF_THREAD.get() : new SelectionScratch();
    if (s.taken) {
      s = new SelectionScratch();
    }
    s.taken = true;
    if (s.positions.length < rows) {
      int size = Math.max(rows, Math.min(CACHED_ROWS, MorselScheduler.MORSEL_ROWS));
      s.positions = new int[size];
      s.sourceRows = new int[size];
      s.left = new long[size];
      s.right = new long[size];
      s.leftNulls = new boolean[size];
      s.rightNulls = new boolean[size];
    }
    return s;
  }

  /** Ends the take: the buffers may be handed out again. */
  void release() {
    taken = false;
  }
}
