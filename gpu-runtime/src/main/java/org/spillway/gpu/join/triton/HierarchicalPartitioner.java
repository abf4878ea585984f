package org.spillway.gpu.join.triton;

import org.spillway.gpu.device.CudaDevice;
import org.spillway.gpu.device.CudaKernel;
import org.spillway.gpu.device.CudaModule;
import org.spillway.gpu.device.CudaStream;
import org.spillway.gpu.device.DeviceBuffer;
import org.spillway.gpu.device.DevicePointer;
import org.spillway.gpu.device.HostMemoryKind;
import org.spillway.gpu.join.HostJoinInput;
import org.spillway.gpu.transfer.ColumnType;

/**
 * The Hierarchical radix partitioner of the Triton join (Lutz et al., SIGMOD '22, Sec. 4.3;
 * hierarchical_partitioner.cu): reads a relation's key, payload and validity columns from pinned host memory
 * over the link and writes 16-byte {key, value} tuples into a {@link PartitionArray}. Each thread block
 * combines writes in shared-memory buffers, one per partition and shared by all its warps; a full buffer is
 * evicted into a second-level buffer in GPU memory, and only full second-level buffers are flushed, in
 * aligned multiples of 128 bytes, after being swapped with a spare so that the slow write over the link
 * happens outside the buffer's lock. Its prefix sum is a histogram per block of the top
 * {@link #HISTOGRAM_BITS} hash bits, which the host coarsens to the chosen fanout.
 */
final class HierarchicalPartitioner {
  static final String MODULE = "join/triton/hierarchical_partitioner";
  /** Bits of the prefix-sum histogram, hence the largest first-pass fanout. */
  static final int HISTOGRAM_BITS = 10;
  static final int BLOCK_THREADS = 1024;
  static final int WARPS = BLOCK_THREADS / 32;
  /** Tuples per shared-memory buffer: 32 fill one warp-wide 16-byte store; 8 are one 128-byte line. */
  static final int MAX_L1_TUPLES = 32;
  static final int MIN_L1_TUPLES = 8;
  /** Tuples per GPU-memory buffer: 8 KiB per partition and block, the paper's default. */
  static final int DEFAULT_L2_TUPLES = 512;

  private final CudaKernel histogram;
  private final CudaKernel partition;

  HierarchicalPartitioner(CudaDevice device) {
    CudaModule module = device.module(MODULE);
    this.histogram = module.kernel("hierarchical_histogram");
    this.partition = module.kernel("hierarchical_partition");
  }

  /**
   * One relation's columns as the kernels read them: mapped device addresses of the key column, the payload
   * column (0: the value carried is the row number) and the validity bitmap (0: no NULLs).
   */
  record Input(long keys, boolean wideKeys, long payloads, boolean widePayloads, long validity, long rows) {
    /** The columns of {@code side}, carrying payloads when {@code payloads} and row numbers otherwise. */
    static Input of(CudaDevice device, HostJoinInput side, boolean payloads) {
      long rows = side.rows();
      long keys = rows == 0 ? 0 : HostMemoryKind.mappedDeviceAddress(device, side.keys().address());
      long values = payloads && rows > 0 ? HostMemoryKind.mappedDeviceAddress(device, side.payloads().address()) : 0;
      long validity = side.hasNulls() && rows > 0 ? HostMemoryKind.mappedDeviceAddress(device, side.validityAddress())
          : 0;
      return new Input(keys, side.keys().type() == ColumnType.INT64, values,
          payloads && side.payloads().type() == ColumnType.INT64, validity, rows);
    }

    /** Bytes a pass over the keys (and validity) reads over the link. */
    long keyBytes() {
      return rows * (wideKeys ? 8 : 4) + (validity == 0 ? 0 : (rows + 7) / 8);
    }

    /** Bytes the partitioning pass reads over the link. */
    long passBytes() {
      return keyBytes() + (payloads == 0 ? 0 : rows * (widePayloads ? 8 : 4));
    }
  }

  /** Tuples per shared-memory buffer at {@code bits} within {@code sharedBytes} per block, 0 if none fits. */
  static int l1Tuples(int bits, int sharedBytes) {
    long fanout = 1L << bits;
    long perPartition = (sharedBytes - 4L * WARPS) / fanout - 24;
    long tuples = Math.min(MAX_L1_TUPLES, perPartition / 16);
    return tuples < MIN_L1_TUPLES ? 0 : Integer.highestOneBit((int) tuples);
  }

  /** Dynamic shared memory of the partition kernel. */
  static int sharedBytes(int bits, int l1Tuples) {
    return (1 << bits) * (16 * l1Tuples + 24) + 4 * WARPS;
  }

  /** Bytes of the second-level buffers of {@code blocks} blocks: (fanout + warps) buffers each. */
  static long l2PoolBytes(int blocks, int bits, int l2Tuples) {
    return (long) blocks * ((1L << bits) + WARPS) * l2Tuples * 16;
  }

  /** Launches the prefix-sum histogram: {@code hist} holds blocks x 2^HISTOGRAM_BITS ints. */
  void histogram(Input in, int blocks, long chunk, DeviceBuffer hist, CudaStream stream) {
    if (in.rows == 0) {
      return;  // the caller zeroes hist; an empty column has no address to read
    }
    histogram.launch(blocks, BLOCK_THREADS, stream, new DevicePointer(in.keys), in.wideKeys ? 1 : 0,
        new DevicePointer(in.validity), in.rows, chunk, hist.pointer());
  }

  /**
   * Launches the partitioning pass of {@code in} into {@code out} on {@code bits} radix bits; {@code offsets}
   * holds the layout's block-major data offsets and {@code l2Pool} {@link #l2PoolBytes} bytes.
   */
  void partition(Input in, int blocks, long chunk, DeviceBuffer offsets, PartitionArray out, int bits, int l1Tuples,
      int l2Tuples, DeviceBuffer l2Pool, CudaStream stream) {
    if (l1Tuples < MIN_L1_TUPLES || l2Tuples % l1Tuples != 0) {
      throw new IllegalArgumentException("Hierarchical buffers of " + l1Tuples + " and " + l2Tuples
          + " tuples: the first must be >= " + MIN_L1_TUPLES + " and divide the second");
    }
    if (in.rows == 0) {
      return;  // no region holds data, and padding is never read
    }
    partition.launch(blocks, BLOCK_THREADS, sharedBytes(bits, l1Tuples), stream, new DevicePointer(in.keys),
        in.wideKeys ? 1 : 0, new DevicePointer(in.payloads), in.widePayloads ? 1 : 0, new DevicePointer(in.validity),
        in.rows, chunk, offsets.pointer(), out.pageTable(), out.logPage(), bits, l1Tuples, l2Tuples,
        l2Pool.pointer());
  }
}
