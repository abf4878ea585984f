package org.spillway.gpu.transfer;

import java.util.ArrayList;
import java.util.List;
import org.spillway.gpu.device.CudaDevice;
import org.spillway.gpu.device.DeviceBuffer;

/** Device buffers that receive copied chunks: one per pipeline slot and column, reused across runs. */
final class DeviceSlots implements AutoCloseable {
  private final CudaDevice device;
  private final int slots;
  private final List<DeviceBuffer[]> buffers = new ArrayList<>();  // per column, per slot
  private long bytesPerBuffer;

  DeviceSlots(CudaDevice device, int slots) {
    this.device = device;
    this.slots = slots;
  }

  /** Ensures {@code columns} buffers per slot of at least {@code bytes} each. */
  void ensure(int columns, long bytes) {
    if (bytes > bytesPerBuffer) {
      close();
      bytesPerBuffer = bytes;
    }
    while (buffers.size() < columns) {
      DeviceBuffer[] perSlot = new DeviceBuffer[slots];
      for (int s = 0; s < slots; s++) {
        perSlot[s] = device.allocator().allocate(bytesPerBuffer, "transfer chunk buffer");
      }
      buffers.add(perSlot);
    }
  }

  DeviceBuffer get(int column, int slot) {
    return buffers.get(column)[slot];
  }

  @Override
  public void close() {
    for (DeviceBuffer[] perSlot : buffers) {
      for (DeviceBuffer b : perSlot) {
        if (b != null) {
          b.close();
        }
      }
    }
    buffers.clear();
  }
}
