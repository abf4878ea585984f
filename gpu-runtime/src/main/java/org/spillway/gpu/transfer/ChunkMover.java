package org.spillway.gpu.transfer;

import java.util.List;
import org.spillway.gpu.cuda.CudaStream;

/**
 * The method-specific half of a transfer pipeline: makes one chunk of every column visible to the GPU on
 * a slot's stream. The pipeline calls recycle(slot) only after the slot's previous chunk is consumed.
 */
interface ChunkMover extends AutoCloseable {
  /** Checks the columns' memory and sizes per-slot resources for chunks of {@code chunkRows} rows. */
  void begin(List<HostColumn> columns, long chunkRows);

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
