package org.spillway.gpu;

import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.spillway.gpu.bench.RandomFill;
import org.spillway.gpu.device.ArrowAllocators;
import org.spillway.gpu.transfer.ColumnType;
import org.spillway.gpu.transfer.HostColumn;
import org.spillway.gpu.transfer.TransferMethod;

/** Test helper: Arrow buffers of fresh random values in the memory kind a transfer method wants. */
public final class RandomColumns {
  private RandomColumns() {}

  /** A root allocator whose memory is the kind {@code method} natively reads. */
  public static BufferAllocator allocatorFor(TransferMethod method) {
    return ArrowAllocators.root(method.nativeMemory());
  }

  /** Fills {@code rows} random values of {@code type} into {@code buffer} at byte {@code offset}. */
  public static HostColumn fill(ArrowBuf buffer, long offset, ColumnType type, long rows, long seed) {
    if (offset + rows * type.width() > buffer.capacity()) {
      throw new IllegalArgumentException("buffer of " + buffer.capacity() + " bytes cannot hold " + rows + " "
          + type + " rows at offset " + offset);
    }
    RandomFill.fill(buffer.memoryAddress() + offset, type, rows, seed);
    return new HostColumn("random_" + type, type, buffer.memoryAddress() + offset, rows);
  }
}
