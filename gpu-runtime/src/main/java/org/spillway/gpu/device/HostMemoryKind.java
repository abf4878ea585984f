package org.spillway.gpu.device;

import static jcuda.driver.JCudaDriver.cuPointerGetAttribute;

import jcuda.Pointer;
import jcuda.driver.CUmemorytype;
import jcuda.driver.CUpointer_attribute;
import jcuda.driver.CUresult;

/** What kind of memory an address is, as the CUDA driver sees it; transfer methods check it up front. */
public enum HostMemoryKind {
  /** Ordinary (pageable) host memory the driver does not know: needs copying or pinning. */
  PAGEABLE,
  /** Page-locked host memory (cuMemHostAlloc or cuMemHostRegister): DMA and zero-copy capable. */
  PINNED,
  /** Unified memory (cuMemAllocManaged), migrated by page faults or prefetches. */
  MANAGED,
  /** Device memory. */
  DEVICE;

  /** Classifies {@code address}; any address the driver does not know is pageable. */
  public static HostMemoryKind of(CudaDevice device, long address) {
    device.makeCurrent();
    DevicePointer p = new DevicePointer(address);
    int[] managed = {0};
    if (cuPointerGetAttribute(Pointer.to(managed), CUpointer_attribute.CU_POINTER_ATTRIBUTE_IS_MANAGED, p)
        == CUresult.CUDA_SUCCESS && managed[0] != 0) {
      return MANAGED;
    }
    int[] type = {0};
    int rc = cuPointerGetAttribute(Pointer.to(type), CUpointer_attribute.CU_POINTER_ATTRIBUTE_MEMORY_TYPE, p);
    if (rc != CUresult.CUDA_SUCCESS) {
      return PAGEABLE;
    }
    return switch (type[0]) {
      case CUmemorytype.CU_MEMORYTYPE_HOST -> PINNED;
      case CUmemorytype.CU_MEMORYTYPE_DEVICE, CUmemorytype.CU_MEMORYTYPE_ARRAY -> DEVICE;
      default -> PAGEABLE;
    };
  }

  /** The address kernels use for pinned mapped host memory at {@code address} (zero-copy). */
  public static long mappedDeviceAddress(CudaDevice device, long address) {
    device.makeCurrent();
    long[] mapped = {0};
    CudaException.check(cuPointerGetAttribute(Pointer.to(mapped),
        CUpointer_attribute.CU_POINTER_ATTRIBUTE_DEVICE_POINTER, new DevicePointer(address)),
        "cuPointerGetAttribute(DEVICE_POINTER, 0x" + Long.toHexString(address) + ")");
    return mapped[0];
  }
}
