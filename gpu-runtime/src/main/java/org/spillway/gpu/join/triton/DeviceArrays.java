package org.spillway.gpu.join.triton;

import static jcuda.driver.JCudaDriver.cuCtxSynchronize;
import static jcuda.driver.JCudaDriver.cuMemcpyDtoH;
import static jcuda.driver.JCudaDriver.cuMemcpyHtoD;
import static jcuda.driver.JCudaDriver.cuMemsetD8Async;

import jcuda.Pointer;
import org.spillway.gpu.device.CudaDevice;
import org.spillway.gpu.device.CudaException;
import org.spillway.gpu.device.CudaStream;
import org.spillway.gpu.device.DeviceBuffer;

/**
 * Small host arrays to and from device buffers for the Triton join's kernels. A synchronous copy from a Java
 * array may return before its DMA lands, and it runs on the legacy stream, which the join's non-blocking
 * streams do not wait for: uploads therefore end with a context synchronization, and downloads must follow
 * a synchronization of the stream that wrote the buffer.
 */
final class DeviceArrays {
  private DeviceArrays() {}

  /** A device buffer holding {@code values}, complete when this returns. */
  static DeviceBuffer upload(CudaDevice device, long[] values, String purpose) {
    return upload(device, Pointer.to(values), 8L * values.length, purpose);
  }

  /** A device buffer holding {@code values}, complete when this returns. */
  static DeviceBuffer upload(CudaDevice device, int[] values, String purpose) {
    return upload(device, Pointer.to(values), 4L * values.length, purpose);
  }

  private static DeviceBuffer upload(CudaDevice device, Pointer values, long bytes, String purpose) {
    DeviceBuffer b = device.allocator().allocate(Math.max(8, bytes), purpose);
    try {
      device.makeCurrent();
      CudaException.check(cuMemcpyHtoD(b.pointer(), values, bytes), "cuMemcpyHtoD(" + purpose + ")");
      CudaException.check(cuCtxSynchronize(), "cuCtxSynchronize(" + purpose + ")");
      return b;
    } catch (RuntimeException e) {
      b.close();
      throw e;
    }
  }

  /** Device memory of {@code bytes} bytes, zeroed in order on {@code stream}. */
  static DeviceBuffer zeroed(CudaDevice device, long bytes, String purpose, CudaStream stream) {
    DeviceBuffer b = device.allocator().allocate(bytes, purpose);
    try {
      CudaException.check(cuMemsetD8Async(b.pointer(), (byte) 0, bytes, stream.handle()),
          "cuMemsetD8Async(" + purpose + ")");
      return b;
    } catch (RuntimeException e) {
      b.close();
      throw e;
    }
  }

  /** The ints of {@code buffer}; the stream that wrote them must have been synchronized. */
  static int[] downloadInts(DeviceBuffer buffer, int count) {
    int[] out = new int[count];
    CudaException.check(cuMemcpyDtoH(Pointer.to(out), buffer.pointer(), 4L * count),
        "cuMemcpyDtoH(" + buffer.purpose() + ")");
    return out;
  }
}
