package org.spillway.gpu.join.triton;

import org.spillway.gpu.device.CudaDevice;
import org.spillway.gpu.device.CudaKernel;
import org.spillway.gpu.device.CudaStream;
import org.spillway.gpu.device.DevicePointer;

/**
 * The Shared radix partitioner (Lutz et al., SIGMOD '22, Sec. 4.2; shared_partitioner.cu): software
 * write-combining buffers in shared memory, one per partition and shared by all warps of a block, filled
 * lock-free with atomic slot claims; the warp that finds a buffer full owns its lock and copies it out in
 * one coalesced write. The Triton join's second pass runs it from GPU memory to GPU memory on the hash bits
 * after the first pass's, without padding, so that every sub-partition is one contiguous range.
 */
final class SharedPartitioner {
  static final int BLOCK_THREADS = 1024;
  static final int MAX_L1_TUPLES = 32;
  /** Fewest tuples per buffer: 2 (32 bytes, one sector of GPU memory) at the largest fanout. */
  static final int MIN_L1_TUPLES = 2;

  private final CudaKernel partition;

  SharedPartitioner(CudaDevice device) {
    this.partition = device.module("join/triton/shared_partitioner").kernel("shared_partition");
  }

  /** Tuples per buffer at {@code bits} within {@code sharedBytes} per block, 0 if none fits. */
  static int l1Tuples(int bits, int sharedBytes) {
    long perPartition = sharedBytes / (1L << bits) - 12;
    long tuples = Math.min(MAX_L1_TUPLES, perPartition / 16);
    return tuples < MIN_L1_TUPLES ? 0 : Integer.highestOneBit((int) tuples);
  }

  static int sharedBytes(int bits, int l1Tuples) {
    return (1 << bits) * (16 * l1Tuples + 12);
  }

  /**
   * Launches the pass over {@code rows} tuples at {@code in} (device memory) into {@code out}: block b of
   * {@code blocks} takes rows {@code [b * chunk, (b + 1) * chunk)} with {@code chunk = ceil(rows / blocks)};
   * {@code offsets} holds the partition-major ({@code [p * blocks + b]}) int data offsets; the partition is
   * hash bits {@code [shift, shift + bits)}. With {@code padded} the offsets must leave 8 tuples in front of
   * every region, as a padded {@link PartitionLayout} does.
   */
  void partition(DevicePointer in, int rows, int blocks, DevicePointer offsets, DevicePointer out, int shift,
      int bits, int l1Tuples, boolean padded, CudaStream stream) {
    if (l1Tuples < (padded ? PartitionLayout.PAD_TUPLES : MIN_L1_TUPLES)) {
      throw new IllegalArgumentException("Shared partitioner buffers of " + l1Tuples + " tuples at " + bits
          + " bits are too small" + (padded ? " to hold a region's padding" : ""));
    }
    if (rows == 0) {
      return;
    }
    int chunk = (int) PartitionLayout.chunkRows(rows, blocks);
    partition.launch(blocks, BLOCK_THREADS, sharedBytes(bits, l1Tuples), stream, in, rows, chunk, offsets, out,
        shift, bits, l1Tuples, padded ? 1 : 0);
  }
}
