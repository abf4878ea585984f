package org.spillway.gpu.join.nopa;

import static jcuda.driver.JCudaDriver.cuMemcpyHtoDAsync;

import org.spillway.gpu.device.CudaDevice;
import org.spillway.gpu.device.CudaException;
import org.spillway.gpu.device.CudaStream;
import org.spillway.gpu.device.DeviceBuffer;
import org.spillway.gpu.device.HostMemoryKind;
import org.spillway.gpu.device.HostPointer;
import org.spillway.gpu.transfer.DeviceChunk;

/**
 * The validity bitmap of a join side as kernels see it chunk by chunk: read in place where the GPU can
 * (pinned memory through its mapped address, managed memory as it is), otherwise copied per chunk into a
 * device buffer of the chunk's pipeline slot. Chunks start at multiples of 32 rows, so a chunk's bits start
 * on a byte (Arrow's bitmap layout).
 */
final class ValidityChunks implements AutoCloseable {
  private final CudaDevice device;
  private final long hostAddress;
  private final long deviceBase;
  private final DeviceBuffer[] slotBuffers;

  /** {@code address} 0 means no NULLs: every chunk reads validity address 0. */
  ValidityChunks(CudaDevice device, long address, int slots) {
    this.device = device;
    this.hostAddress = address;
    HostMemoryKind kind = address == 0 ? null : HostMemoryKind.of(device, address);
    this.deviceBase = kind == HostMemoryKind.PINNED ? HostMemoryKind.mappedDeviceAddress(device, address)
        : kind == HostMemoryKind.MANAGED || kind == HostMemoryKind.DEVICE ? address : 0;
    this.slotBuffers = kind == HostMemoryKind.PAGEABLE ? new DeviceBuffer[slots] : null;
  }

  /** Bytes of the bitmap for {@code rows} rows. */
  static long bytesFor(long rows) {
    return (rows + 7) / 8;
  }

  boolean present() {
    return hostAddress != 0;
  }

  /** The device address of the chunk's first validity byte (0 without NULLs); copies it first where needed. */
  long address(DeviceChunk chunk, CudaStream stream, int slot) {
    if (hostAddress == 0) {
      return 0;
    }
    if (chunk.firstRow() % 8 != 0) {
      throw new IllegalStateException("chunk at row " + chunk.firstRow() + " does not start on a validity byte");
    }
    long offset = chunk.firstRow() / 8;
    if (slotBuffers == null) {
      return deviceBase + offset;
    }
    long bytes = bytesFor(chunk.rowCount());
    DeviceBuffer buffer = slotBuffers[slot];
    if (buffer == null || buffer.bytes() < bytes) {
      if (buffer != null) {
        buffer.close();
      }
      buffer = device.allocator().allocate(bytes, "NOPA join validity chunk");
      slotBuffers[slot] = buffer;
    }
    CudaException.check(cuMemcpyHtoDAsync(buffer.pointer(), new HostPointer(hostAddress + offset), bytes,
        stream.handle()), "cuMemcpyHtoDAsync(validity, " + bytes + " bytes)");
    return buffer.address();
  }

  @Override
  public void close() {
    if (slotBuffers != null) {
      for (DeviceBuffer b : slotBuffers) {
        if (b != null) {
          b.close();
        }
      }
    }
  }
}
