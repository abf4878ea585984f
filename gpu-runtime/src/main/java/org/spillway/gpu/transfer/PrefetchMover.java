package org.spillway.gpu.transfer;

import static jcuda.driver.JCudaDriver.cuMemPrefetchAsync;

import java.util.List;
import jcuda.driver.CUdevice;
import org.spillway.gpu.device.CudaDevice;
import org.spillway.gpu.device.CudaException;
import org.spillway.gpu.device.CudaStream;
import org.spillway.gpu.device.DevicePointer;

/**
 * UM prefetch: each chunk of unified memory is prefetched to the GPU on its slot's stream, so the
 * kernel that follows on that stream finds it resident; the next chunk's prefetch overlaps it.
 */
final class PrefetchMover implements ChunkMover {
  private final CudaDevice device;

  PrefetchMover(CudaDevice device) {
    this.device = device;
  }

  @Override
  public void reserve(int columns, long bytes) {}

  @Override
  public long[] move(int slot, List<HostColumn> columns, long firstRow, long rows, CudaStream stream) {
    long[] addresses = new long[columns.size()];
    for (int c = 0; c < columns.size(); c++) {
      HostColumn column = columns.get(c);
      addresses[c] = column.addressOf(firstRow);
      prefetch(addresses[c], column.bytes(rows), device.handle(), stream);
    }
    return addresses;
  }

  /** Enqueues the migration of a managed range to {@code target} (a GPU, or CU_DEVICE_CPU). */
  static void prefetch(long address, long bytes, CUdevice target, CudaStream stream) {
    CudaException.check(cuMemPrefetchAsync(new DevicePointer(address), bytes, target, stream.handle()),
        "cuMemPrefetchAsync(" + bytes + " bytes)");
  }

  @Override
  public void close() {}
}
