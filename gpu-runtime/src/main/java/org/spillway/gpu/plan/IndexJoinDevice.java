package org.spillway.gpu.plan;

import java.util.Optional;
import java.util.function.BooleanSupplier;
import org.spillway.gpu.join.JoinType;
import org.spillway.gpu.join.inlj.JoinIndex;
import org.spillway.gpu.join.inlj.WindowedIndexJoin;

/**
 * The device that runs the windowed index join of an {@link IndexJoinNode}: one call, the same on either device (the
 * probe keys in, the join index in probe order out), so that the node does not depend on where the lookups run.
 */
public enum IndexJoinDevice {
  /** {@link WindowedIndexJoin} on all cores. */
  CPU {
    @Override JoinIndex join(TableIndex index, long[] keys, boolean[] nulls, JoinType type, long windowBytes,
        int threads, BooleanSupplier cancelled) {
      return new WindowedIndexJoin(index.index(), windowBytes, threads).join(keys, nulls, type, cancelled);
    }

    @Override public Optional<String> unavailableReason() {
      return Optional.empty();
    }
  },
  /** The GPU's windowed index join, which reads the index in pinned host memory over the link. */
  GPU {
    @Override JoinIndex join(TableIndex index, long[] keys, boolean[] nulls, JoinType type, long windowBytes,
        int threads, BooleanSupplier cancelled) {
      throw new IllegalStateException(unavailableReason().orElseThrow());
    }

    @Override public Optional<String> unavailableReason() {
      return Optional.of("the GPU windowed index join is not in this build yet");
    }
  };

  /** Joins probe keys {@code keys} ({@code nulls} null when none is NULL) through {@code index}, in probe order. */
  abstract JoinIndex join(TableIndex index, long[] keys, boolean[] nulls, JoinType type, long windowBytes,
      int threads, BooleanSupplier cancelled);

  /** Why this device cannot run the join here, or empty when it can. */
  public abstract Optional<String> unavailableReason();

  /** The window the paper uses by default: 32 MiB of probe keys. */
  public static final long DEFAULT_WINDOW_BYTES = WindowedIndexJoin.DEFAULT_WINDOW_BYTES;
}
