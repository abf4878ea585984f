package org.spillway.gpu.device;

import jcuda.driver.CUdeviceptr;

/** A JCuda device pointer built from, and readable as, a raw address (device, managed or mapped host). */
public final class DevicePointer extends CUdeviceptr {
  private static final CUdeviceptr NULL = new CUdeviceptr();

  /** An empty pointer for calls that fill it in, such as cuMemAlloc. */
  public DevicePointer() {
    super();
  }

  public DevicePointer(long address) {
    super(NULL, address);
  }

  /** The address this pointer designates. */
  public long address() {
    return getNativePointer() + getByteOffset();
  }
}
