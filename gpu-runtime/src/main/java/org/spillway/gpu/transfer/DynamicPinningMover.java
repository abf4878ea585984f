package org.spillway.gpu.transfer;

import static jcuda.driver.JCudaDriver.cuMemHostRegister;
import static jcuda.driver.JCudaDriver.cuMemHostUnregister;

import java.util.ArrayList;
import java.util.List;
import org.spillway.gpu.device.CudaDevice;
import org.spillway.gpu.device.CudaException;
import org.spillway.gpu.device.CudaStream;
import org.spillway.gpu.device.HostPointer;

/**
 * Dynamic pinning: each chunk's pages are registered with cuMemHostRegister, copied by DMA and
 * unregistered once the slot's chunk is consumed. Only whole pages inside the chunk are registered,
 * so neighbouring chunks in flight never register the same page; the few bytes before the first and
 * after the last whole page go as small pageable copies.
 */
final class DynamicPinningMover implements ChunkMover {
  static final long PAGE = 4096;

  private final DeviceSlots slots;
  private final List<List<HostPointer>> registered = new ArrayList<>();  // per slot

  DynamicPinningMover(CudaDevice device, int slotCount) {
    this.slots = new DeviceSlots(device, slotCount);
    for (int s = 0; s < slotCount; s++) {
      registered.add(new ArrayList<>());
    }
  }

  @Override
  public void reserve(int columns, long bytes) {
    slots.ensure(columns, bytes);
  }

  @Override
  public long[] move(int slot, List<HostColumn> columns, long firstRow, long rows, CudaStream stream) {
    long[] addresses = new long[columns.size()];
    for (int c = 0; c < columns.size(); c++) {
      HostColumn column = columns.get(c);
      long start = column.addressOf(firstRow);
      long end = start + column.bytes(rows);
      long device = slots.get(c, slot).address();
      addresses[c] = device;
      long pinStart = (start + PAGE - 1) / PAGE * PAGE;
      long pinEnd = end / PAGE * PAGE;
      if (pinEnd <= pinStart) {  // less than a whole page: nothing to pin
        CopyMover.copyAsync(device, start, end - start, stream);
        continue;
      }
      HostPointer pages = new HostPointer(pinStart);
      CudaException.check(cuMemHostRegister(pages, pinEnd - pinStart, 0),
          "cuMemHostRegister(" + (pinEnd - pinStart) + " bytes of column " + column.name() + ")");
      registered.get(slot).add(pages);
      if (pinStart > start) {
        CopyMover.copyAsync(device, start, pinStart - start, stream);
      }
      CopyMover.copyAsync(device + (pinStart - start), pinStart, pinEnd - pinStart, stream);
      if (end > pinEnd) {
        CopyMover.copyAsync(device + (pinEnd - start), pinEnd, end - pinEnd, stream);
      }
    }
    return addresses;
  }

  @Override
  public void recycle(int slot) {
    List<HostPointer> pages = registered.get(slot);
    RuntimeException failure = null;
    for (HostPointer p : pages) {
      try {
        CudaException.check(cuMemHostUnregister(p), "cuMemHostUnregister");
      } catch (RuntimeException e) {
        failure = failure == null ? e : failure;
      }
    }
    pages.clear();
    if (failure != null) {
      throw failure;
    }
  }

  @Override
  public void close() {
    for (int s = 0; s < registered.size(); s++) {
      recycle(s);
    }
    slots.close();
  }
}
