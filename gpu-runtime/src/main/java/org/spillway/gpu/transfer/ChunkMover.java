package org.spillway.gpu.transfer;

import java.util.List;
import org.spillway.gpu.device.CudaStream;

/**
 * The method-specific half of a transfer pipeline: makes one chunk of every column visible to the GPU on
 * a slot's stream. The pipeline calls recycle(slot) only after the slot's previous chunk is consumed.
 */
interface ChunkMover extends AutoCloseable {
  /**
   * Sizes per-slot resources for {@code columns} columns of chunks of at most {@code bytes} bytes each.
   * Called only while no chunk is in flight, or with the bytes of the calls before (then it only adds columns).
   */
  void reserve(int columns, long bytes);

  /** Called at the start of every run, before anything else of it. */
  default void reset() {}

  /** Called once before the chunks of a new set of columns (a part of a stream), after reserve. */
  default void begin(List<HostColumn> columns) {}

  /**
   * Called one chunk ahead of {@link #move} for the same slot and rows, once the slot is free: lets a
   * mover start host-side work (staging copies) that then overlaps the previous chunk's move.
   */
  default void prepare(int slot, List<HostColumn> columns, long firstRow, long rows) {}

  /** Enqueues what brings rows [firstRow, firstRow + rows) to the GPU; returns device addresses per column. */
  long[] move(int slot, List<HostColumn> columns, long firstRow, long rows, CudaStream stream);

  /** The slot's previous chunk is fully consumed: release what it held (pinned pages, staging). */
  default void recycle(int slot) {}

  @Override
  void close();
}
