package org.spillway.gpu.join.nopa;

import static jcuda.driver.JCudaDriver.cuMemcpyDtoH;
import static jcuda.driver.JCudaDriver.cuMemcpyDtoHAsync;
import static jcuda.driver.JCudaDriver.cuMemsetD8Async;

import java.util.ArrayList;
import java.util.List;
import jcuda.Pointer;
import org.apache.arrow.memory.util.MemoryUtil;
import org.spillway.gpu.device.CudaDevice;
import org.spillway.gpu.device.CudaException;
import org.spillway.gpu.device.CudaStream;
import org.spillway.gpu.device.DeviceBuffer;
import org.spillway.gpu.device.HostBuffer;
import org.spillway.gpu.device.HostPointer;
import org.spillway.gpu.join.RowIdColumn;
import org.spillway.gpu.transfer.DeviceChunk;

/**
 * The materialized output of NOPA's probe: per pipeline slot a device buffer for the (build row, probe row) pairs
 * of one chunk and a cursor the kernel's warps advance. When a slot takes its next chunk (the previous one is
 * finished by then) or at the end, the pairs come back to the host into RowIdColumns. A chunk that produced more
 * pairs than the buffer holds is not copied but remembered with its exact pair count, to be run again.
 */
final class NopaPairOutput implements AutoCloseable {
  /** A probe chunk whose pairs did not fit: its rows and how many pairs it has. */
  record Overflow(long firstRow, long rows, long pairs) {}

  private final CudaDevice device;
  private final long capacity;
  private final DeviceBuffer[] buffers;
  private final DeviceChunk[] pending;
  private final HostBuffer cursors;
  private final DeviceBuffer deviceCursors;
  private final RowIdColumn buildRows = new RowIdColumn();
  private final RowIdColumn probeRows = new RowIdColumn();
  private final List<Overflow> overflows = new ArrayList<>();
  private long bytesToHost;

  /** Output for {@code slots} pipeline slots of {@code capacity} pairs each (buffers allocated on first use). */
  NopaPairOutput(CudaDevice device, int slots, long capacity) {
    if (capacity < 1 || capacity > Integer.MAX_VALUE) {
      throw new IllegalArgumentException("NOPA output buffer of " + capacity + " pairs; materialized joins hold 1 to "
          + Integer.MAX_VALUE + " pairs per chunk");
    }
    this.device = device;
    this.capacity = capacity;
    this.buffers = new DeviceBuffer[slots];
    this.pending = new DeviceChunk[slots];
    this.deviceCursors = device.allocator().allocate(8L * slots, "NOPA output cursors");
    try {
      this.cursors = device.pinnedAllocator().allocate(8L * slots);
    } catch (RuntimeException e) {
      deviceCursors.close();
      throw e;
    }
  }

  /**
   * The sink parameters of a pairs-probe kernel for {@code chunk} on {@code slot}: build rows, probe rows,
   * capacity, cursor. Collects the slot's previous chunk first and resets its cursor on {@code stream}.
   */
  List<Object> args(int slot, DeviceChunk chunk, CudaStream stream) {
    collect(slot);
    if (buffers[slot] == null) {
      buffers[slot] = device.allocator().allocate(capacity * 2 * Integer.BYTES, "NOPA output pairs");
    }
    long cursor = deviceCursors.address() + 8L * slot;
    CudaException.check(cuMemsetD8Async(deviceCursors.pointer(8L * slot), (byte) 0, 8, stream.handle()),
        "cuMemsetD8Async(NOPA output cursor)");
    long base = buffers[slot].address();
    return List.of(base, base + capacity * Integer.BYTES, capacity, cursor);
  }

  /** After the kernel: brings the cursor back to pinned memory on {@code stream}, read at collection. */
  void launched(int slot, DeviceChunk chunk, CudaStream stream) {
    CudaException.check(cuMemcpyDtoHAsync(new HostPointer(cursors.address() + 8L * slot),
        deviceCursors.pointer(8L * slot), 8, stream.handle()), "cuMemcpyDtoHAsync(NOPA output cursor)");
    pending[slot] = chunk;
  }

  /** Collects every slot; call when the pipeline has finished all chunks. */
  void collectAll() {
    for (int s = 0; s < pending.length; s++) {
      collect(s);
    }
  }

  private void collect(int slot) {
    DeviceChunk chunk = pending[slot];
    if (chunk == null) {
      return;
    }
    pending[slot] = null;
    long pairs = MemoryUtil.getLong(cursors.address() + 8L * slot);
    bytesToHost += 8;
    if (pairs > capacity) {
      overflows.add(new Overflow(chunk.firstRow(), chunk.rowCount(), pairs));
      return;
    }
    int n = (int) pairs;
    int[] build = new int[n];
    int[] probe = new int[n];
    if (n > 0) {
      CudaException.check(cuMemcpyDtoH(Pointer.to(build), buffers[slot].pointer(), 4L * n), "cuMemcpyDtoH(build rows)");
      CudaException.check(cuMemcpyDtoH(Pointer.to(probe), buffers[slot].pointer(capacity * Integer.BYTES), 4L * n),
          "cuMemcpyDtoH(probe rows)");
      bytesToHost += 8L * n;
    }
    buildRows.addAll(build, n);
    probeRows.addAll(probe, n);
  }

  RowIdColumn buildRows() {
    return buildRows;
  }

  RowIdColumn probeRows() {
    return probeRows;
  }

  List<Overflow> overflows() {
    return overflows;
  }

  long bytesToHost() {
    return bytesToHost;
  }

  @Override
  public void close() {
    for (DeviceBuffer b : buffers) {
      if (b != null) {
        b.close();
      }
    }
    deviceCursors.close();
    cursors.close();
  }
}
