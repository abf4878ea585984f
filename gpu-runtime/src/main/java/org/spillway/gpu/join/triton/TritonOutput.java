package org.spillway.gpu.join.triton;

import static jcuda.driver.JCudaDriver.cuMemcpyDtoH;
import static jcuda.driver.JCudaDriver.cuMemsetD8Async;

import jcuda.Pointer;
import org.apache.arrow.memory.util.MemoryUtil;
import org.spillway.gpu.device.CudaDevice;
import org.spillway.gpu.device.CudaException;
import org.spillway.gpu.device.CudaStream;
import org.spillway.gpu.device.DeviceBuffer;
import org.spillway.gpu.device.DevicePointer;
import org.spillway.gpu.device.HostBuffer;
import org.spillway.gpu.device.HostMemoryKind;
import org.spillway.gpu.join.HostJoinInput;
import org.spillway.gpu.join.JoinOutput;
import org.spillway.gpu.join.JoinResult;
import org.spillway.gpu.join.JoinType;
import org.spillway.gpu.join.RowIdColumn;
import org.spillway.gpu.transfer.ColumnType;

/**
 * Where the Triton join's kernels put their output (triton_join.cu's {@code Output}) and its conversion into
 * a {@link JoinResult}: MATERIALIZED pairs of row ids are appended through one atomic cursor to pinned host
 * memory, written by the GPU over the link (Lutz et al., SIGMOD '22, Sec. 5.1: a linear allocator);
 * AGGREGATED output is a count and two payload sums added up in GPU memory. The cursor counts on past the
 * capacity, so that the caller can grow the arrays and run the join phase again.
 */
final class TritonOutput implements AutoCloseable {
  private final CudaDevice device;
  private final JoinOutput output;
  /** cursor, count, build sum, probe sum. */
  private final DeviceBuffer state;
  private HostBuffer buildRows;
  private HostBuffer probeRows;
  private long capacity;

  TritonOutput(CudaDevice device, JoinOutput output, long capacity) {
    this.device = device;
    this.output = output;
    this.state = device.allocator().allocate(32, "Triton join output state");
    try {
      grow(capacity);
    } catch (RuntimeException e) {
      close();
      throw e;
    }
  }

  /** Room for {@code pairs} materialized pairs (nothing for aggregated output). */
  void grow(long pairs) {
    if (output != JoinOutput.MATERIALIZED) {
      return;
    }
    if (pairs > Integer.MAX_VALUE - 8) {
      throw new IllegalStateException("Triton join output of " + pairs + " rows exceeds the " + (Integer.MAX_VALUE - 8)
          + " rows a materialized result holds");
    }
    closeRows();
    capacity = Math.max(1024, pairs);
    buildRows = device.pinnedAllocator().allocate(4 * capacity);
    probeRows = device.pinnedAllocator().allocate(4 * capacity);
  }

  long capacity() {
    return capacity;
  }

  /** Zeroes the cursor and the totals on {@code stream}. */
  void reset(CudaStream stream) {
    CudaException.check(cuMemsetD8Async(state.pointer(), (byte) 0, 32, stream.handle()), "cuMemsetD8Async(state)");
  }

  /** The kernels' output arguments: materialize, cursor, build rows, probe rows, capacity, totals. */
  Object[] kernelArgs() {
    boolean materialize = output == JoinOutput.MATERIALIZED;
    return new Object[] {materialize ? 1 : 0, state.pointer(),
        new DevicePointer(materialize ? HostMemoryKind.mappedDeviceAddress(device, buildRows.address()) : 0),
        new DevicePointer(materialize ? HostMemoryKind.mappedDeviceAddress(device, probeRows.address()) : 0),
        capacity, state.pointer(8)};
  }

  /** Rows the kernels produced (once they finished): the cursor, or the aggregated count. */
  long producedRows() {
    long[] words = readState();
    return output == JoinOutput.MATERIALIZED ? words[0] : words[1];
  }

  private long[] readState() {
    long[] words = new long[4];
    device.makeCurrent();
    CudaException.check(cuMemcpyDtoH(Pointer.to(words), state.pointer(), 32), "cuMemcpyDtoH(Triton output state)");
    return words;
  }

  /**
   * The join's result, once its kernels finished: the GPU's rows plus, for LEFT OUTER and ANTI, the probe
   * rows with a NULL key, which never entered a partition (read here from the host columns).
   */
  JoinResult result(String variant, HostJoinInput probe, JoinType type) {
    long[] words = readState();
    boolean nullRowsOut = probe.hasNulls() && (type == JoinType.LEFT_OUTER || type == JoinType.ANTI);
    if (output == JoinOutput.AGGREGATED) {
      long count = words[1];
      long probeSum = words[3];
      for (long row = 0; nullRowsOut && row < probe.rows(); row++) {
        if (isNull(probe, row)) {
          count++;
          probeSum += payload(probe, row);
        }
      }
      return JoinResult.aggregated(variant, count, words[2], probeSum);
    }
    if (words[0] > capacity) {
      throw new IllegalStateException("Triton join produced " + words[0] + " rows into room for " + capacity);
    }
    RowIdColumn build = new RowIdColumn();
    RowIdColumn probeRowIds = new RowIdColumn();
    for (long i = 0; i < words[0]; i++) {
      build.add(MemoryUtil.getInt(buildRows.address() + 4 * i));
      probeRowIds.add(MemoryUtil.getInt(probeRows.address() + 4 * i));
    }
    for (long row = 0; nullRowsOut && row < probe.rows(); row++) {
      if (isNull(probe, row)) {
        build.add(-1);
        probeRowIds.add((int) row);
      }
    }
    return JoinResult.materialized(variant, build, probeRowIds);
  }

  private static boolean isNull(HostJoinInput side, long row) {
    return (MemoryUtil.getByte(side.validityAddress() + (row >>> 3)) & (1 << (row & 7))) == 0;
  }

  private static long payload(HostJoinInput side, long row) {
    return side.payloads().type() == ColumnType.INT64 ? MemoryUtil.getLong(side.payloads().addressOf(row))
        : MemoryUtil.getInt(side.payloads().addressOf(row));
  }

  private void closeRows() {
    try (HostBuffer b = buildRows; HostBuffer p = probeRows) {
      buildRows = null;
      probeRows = null;
    }
  }

  @Override
  public void close() {
    try (DeviceBuffer s = state) {
      closeRows();
    }
  }
}
