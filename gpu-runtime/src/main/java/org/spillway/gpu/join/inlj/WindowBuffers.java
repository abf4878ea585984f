package org.spillway.gpu.join.inlj;

import static jcuda.driver.JCudaDriver.cuMemsetD32Async;

import java.util.ArrayList;
import java.util.List;
import org.spillway.gpu.device.CudaDevice;
import org.spillway.gpu.device.CudaException;
import org.spillway.gpu.device.CudaStream;
import org.spillway.gpu.device.DeviceBuffer;
import org.spillway.gpu.device.DevicePointer;

/**
 * The GPU memory of the windows one stream joins (the paper's per-window state): the window's keys in partition
 * order with their positions in the window, the rows the index found for them, the window's result in window
 * order, and the partition cursors ({@code fanout + 2} counters, see windowed_index_join.cu). Reused window after
 * window on its stream, which orders the uses.
 */
final class WindowBuffers implements AutoCloseable {
  private final int fanout;
  private final List<DeviceBuffer> all = new ArrayList<>();
  private final DeviceBuffer keys;
  private final DeviceBuffer positions;
  private final DeviceBuffer rows;
  private final DeviceBuffer result;
  private final DeviceBuffer cursors;

  /** Buffers for windows of up to {@code capacity} keys; frees what it took when an allocation fails. */
  WindowBuffers(CudaDevice device, int capacity, int fanout) {
    this.fanout = fanout;
    try {
      keys = allocate(device, (long) capacity * Long.BYTES, "partitioned probe keys");
      positions = allocate(device, (long) capacity * Integer.BYTES, "probe key positions in the window");
      rows = allocate(device, (long) capacity * Long.BYTES, "rows the index found");
      result = allocate(device, (long) capacity * Long.BYTES, "window result in probe order");
      cursors = allocate(device, (fanout + 2L) * Integer.BYTES, "partition cursors");
    } catch (RuntimeException e) {
      close();
      throw e;
    }
  }

  /** Device bytes a stream's buffers take for windows of {@code capacity} keys. */
  static long bytes(int capacity, int fanout) {
    return (long) capacity * (3 * Long.BYTES + Integer.BYTES) + (fanout + 2L) * Integer.BYTES;
  }

  private DeviceBuffer allocate(CudaDevice device, long bytes, String purpose) {
    DeviceBuffer buffer = device.allocator().allocate(bytes, "windowed index join: " + purpose);
    all.add(buffer);
    return buffer;
  }

  /** Zeroes the cursors on {@code stream}, before a window's histogram. */
  void clearCursors(CudaStream stream) {
    CudaException.check(cuMemsetD32Async(cursors.pointer(), 0, fanout + 2L, stream.handle()),
        "cuMemsetD32Async(windowed index join cursors)");
  }

  DevicePointer keys() {
    return keys.pointer();
  }

  DevicePointer positions() {
    return positions.pointer();
  }

  DevicePointer rows() {
    return rows.pointer();
  }

  DevicePointer result() {
    return result.pointer();
  }

  DevicePointer cursors() {
    return cursors.pointer();
  }

  /**
   * The slot after each partition's last key, once the window's scatter has run: the scatter moved each partition's
   * cursor from its first slot past its last (read by the sliced lookups, {@link TranslationSlices}).
   */
  DevicePointer partitionEnds() {
    return cursors.pointer();
  }

  /** The count of the window's matchable keys, which window_offsets writes behind the reject cursor. */
  DevicePointer matchable() {
    return cursors.pointer((fanout + 1L) * Integer.BYTES);
  }

  @Override
  public void close() {
    RuntimeException failure = null;
    for (DeviceBuffer buffer : all) {
      try {
        buffer.close();
      } catch (RuntimeException e) {
        failure = failure == null ? e : failure;
      }
    }
    all.clear();
    if (failure != null) {
      throw failure;
    }
  }
}
