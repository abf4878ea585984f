package org.spillway.gpu.join.hash;

import java.util.ArrayDeque;
import org.spillway.gpu.pipeline.scheduler.MorselScheduler;

/**
 * A worker thread's reusable buffers for {@link JoinProbe.Cursor}: the candidate pairs of a run of probe rows, the
 * pairs that pass a residual, the positions that passed, and the morsel's probe keys when read straight from the
 * source. A probe makes these for every morsel;
 * keeping them per thread spares the allocation (and the memory traffic of zeroing) of a morsel's worth of
 * arrays each time.
 *
 * <p>Ownership: buffers belong to the cursor that {@link #take took} them until {@link #release}; a pipeline
 * with several probes nests cursors on one thread, so each take gets a set no open cursor holds. Buffers that grew
 * beyond a few morsels (a key with very many matches) are dropped on release instead of kept.
 */
final class PairBuffers {
  private static final int KEPT_CAPACITY = 4 * MorselScheduler.MORSEL_ROWS;
  private static final int KEPT_SETS = 8;
  private static final ThreadLocal<ArrayDeque<PairBuffers>> FREE = ThreadLocal.withInitial(ArrayDeque::new);

  final JoinProbe.Pairs candidates = new JoinProbe.Pairs();
  final JoinProbe.Pairs output = new JoinProbe.Pairs();
  private int[] passing = new int[16];
  private long[] keys = new long[16];
  private boolean[] keyNulls = new boolean[16];

  private PairBuffers() {}

  /** A set no open cursor of this thread holds. */
  static PairBuffers take() {
    PairBuffers free = FREE.get().pollFirst();
    return free != null ? free : new PairBuffers();
  }

  /** At least {@code n} places for the positions of the candidates that pass the residual. */
  int[] passing(int n) {
    if (passing.length < n) {
      passing = new int[n];
    }
    return passing;
  }

  /** At least {@code n} places for a morsel's probe keys, read straight from the source. */
  long[] keys(int n) {
    if (keys.length < n) {
      keys = new long[n];
    }
    return keys;
  }

  /** At least {@code n} places for the NULL flags of those keys. */
  boolean[] keyNulls(int n) {
    if (keyNulls.length < n) {
      keyNulls = new boolean[n];
    }
    return keyNulls;
  }

  /** Ends the take: the set may be handed to the thread's next cursor. */
  void release() {
    ArrayDeque<PairBuffers> free = FREE.get();
    boolean small = candidates.capacity() <= KEPT_CAPACITY && output.capacity() <= KEPT_CAPACITY
        && passing.length <= KEPT_CAPACITY + 1 && keys.length <= KEPT_CAPACITY;
    if (small && free.size() < KEPT_SETS) {
      free.addFirst(this);
    }
  }
}
