package org.spillway.gpu.transfer;

import static jcuda.driver.JCudaDriver.cuMemcpyHtoDAsync;

import java.util.List;
import org.spillway.gpu.device.CudaDevice;
import org.spillway.gpu.device.CudaException;
import org.spillway.gpu.device.CudaStream;
import org.spillway.gpu.device.DevicePointer;
import org.spillway.gpu.device.HostPointer;

/**
 * Pageable copy and pinned copy: cuMemcpyHtoDAsync of each chunk into a slot's device buffer. From
 * pinned memory this is asynchronous DMA on a copy engine; from pageable memory the driver stages it.
 */
final class CopyMover implements ChunkMover {
  private final DeviceSlots slots;

  CopyMover(CudaDevice device, int slots) {
    this.slots = new DeviceSlots(device, slots);
  }

  @Override
  public void reserve(int columns, long bytes) {
    slots.ensure(columns, bytes);
  }

  static int maxWidth(List<HostColumn> columns) {
    return columns.stream().mapToInt(c -> c.type().width()).max().orElse(1);
  }

  @Override
  public long[] move(int slot, List<HostColumn> columns, long firstRow, long rows, CudaStream stream) {
    long[] addresses = new long[columns.size()];
    for (int c = 0; c < columns.size(); c++) {
      HostColumn column = columns.get(c);
      var target = slots.get(c, slot);
      copyAsync(target.address(), column.addressOf(firstRow), column.bytes(rows), stream);
      addresses[c] = target.address();
    }
    return addresses;
  }

  /** As {@link #move} for a part and the segments that join it, each piece copied after the one before. */
  long[] moveJoined(int slot, TransferPipeline.Part part, CudaStream stream) {
    long[] addresses = move(slot, part.columns(), part.firstRow(), part.rows(), stream);
    long before = part.rows();
    for (TransferPipeline.Segment segment : part.following()) {
      for (int c = 0; c < addresses.length; c++) {
        HostColumn column = segment.columns().get(c);
        copyAsync(addresses[c] + column.type().offset(before), column.addressOf(segment.firstRow()),
            column.bytes(segment.rows()), stream);
      }
      before += segment.rows();
    }
    return addresses;
  }

  static void copyAsync(long deviceAddress, long hostAddress, long bytes, CudaStream stream) {
    CudaException.check(cuMemcpyHtoDAsync(new DevicePointer(deviceAddress),
        new HostPointer(hostAddress), bytes, stream.handle()), "cuMemcpyHtoDAsync(" + bytes + " bytes)");
  }

  @Override
  public void close() {
    slots.close();
  }
}
