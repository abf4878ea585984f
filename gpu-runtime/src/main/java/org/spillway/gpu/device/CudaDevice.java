package org.spillway.gpu.device;

import static jcuda.driver.JCudaDriver.cuCtxSetCurrent;
import static jcuda.driver.JCudaDriver.cuDeviceGetAttribute;
import static jcuda.driver.JCudaDriver.cuDeviceGetName;
import static jcuda.driver.JCudaDriver.cuDevicePrimaryCtxRetain;
import static jcuda.driver.JCudaDriver.cuDeviceTotalMem;
import static jcuda.driver.JCudaDriver.cuMemGetInfo;

import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import jcuda.driver.CUcontext;
import jcuda.driver.CUdevice;
import jcuda.driver.CUdevice_attribute;

/** One CUDA device with its primary context, attributes, loaded kernel modules and memory allocator. */
public final class CudaDevice {
  private final int ordinal;
  private final CUdevice handle;
  private final CUcontext context = new CUcontext();
  private final String name;
  private final long totalMemory;
  private final Map<String, CudaModule> modules = new ConcurrentHashMap<>();
  private final ThreadLocal<Boolean> current = ThreadLocal.withInitial(() -> Boolean.FALSE);
  private volatile DeviceAllocator allocator;
  private final PinnedHostAllocator pinnedAllocator = new PinnedHostAllocator(this);

  /** Opens device {@code ordinal}; cuInit must have succeeded (GpuRuntime does that). */
  public CudaDevice(int ordinal, CUdevice handle) {
    this.ordinal = ordinal;
    this.handle = handle;
    // The primary context is shared with any other CUDA user in the process and is current on no
    // thread by default: makeCurrent() binds it to each thread that calls into the driver.
    CudaException.check(cuDevicePrimaryCtxRetain(context, handle), "cuDevicePrimaryCtxRetain");
    makeCurrent();
    byte[] buf = new byte[256];
    CudaException.check(cuDeviceGetName(buf, buf.length, handle), "cuDeviceGetName");
    int len = 0;
    while (len < buf.length && buf[len] != 0) {
      len++;
    }
    this.name = new String(buf, 0, len, StandardCharsets.US_ASCII);
    long[] total = {0};
    CudaException.check(cuDeviceTotalMem(total, handle), "cuDeviceTotalMem");
    this.totalMemory = total[0];
  }

  public int ordinal() {
    return ordinal;
  }

  public String name() {
    return name;
  }

  public CUdevice handle() {
    return handle;
  }

  public long totalMemory() {
    return totalMemory;
  }

  /** Binds this device's context to the calling thread (once per thread). */
  public void makeCurrent() {
    if (!current.get()) {
      CudaException.check(cuCtxSetCurrent(context), "cuCtxSetCurrent");
      current.set(Boolean.TRUE);
    }
  }

  /** Free device memory in bytes as the driver reports it now. */
  public long freeMemory() {
    makeCurrent();
    long[] free = {0};
    long[] total = {0};
    CudaException.check(cuMemGetInfo(free, total), "cuMemGetInfo");
    return free[0];
  }

  /** A device attribute, e.g. {@link CUdevice_attribute#CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT}. */
  public int attribute(int attribute) {
    int[] value = {0};
    CudaException.check(cuDeviceGetAttribute(value, attribute, handle),
        "cuDeviceGetAttribute(" + CUdevice_attribute.stringFor(attribute) + ")");
    return value[0];
  }

  public int multiprocessors() {
    return attribute(CUdevice_attribute.CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
  }

  /** True when kernels may dereference pageable host memory (HMM or ATS); false on plain PCIe. */
  public boolean pageableMemoryAccess() {
    return attribute(CUdevice_attribute.CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS) != 0;
  }

  /** True when that access goes through the host's page tables (ATS: NVLink-C2C class coherence). */
  public boolean pageableAccessUsesHostPageTables() {
    return attribute(CUdevice_attribute.CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS_USES_HOST_PAGE_TABLES) != 0;
  }

  public boolean managedMemory() {
    return attribute(CUdevice_attribute.CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY) != 0;
  }

  /**
   * The kernel module {@code name} (src/main/cuda/{name}.cu, e.g. "join/nopa/nopa_hash_join"), loaded once per
   * device.
   */
  public CudaModule module(String name) {
    makeCurrent();
    return modules.computeIfAbsent(name, n -> new CudaModule(this, n));
  }

  public CudaStream newStream() {
    return new CudaStream(this);
  }

  /** A new event; {@code timing} events can measure elapsed time, the others are cheaper for ordering. */
  public CudaEvent newEvent(boolean timing) {
    return new CudaEvent(this, timing);
  }

  /** The device memory allocator with this device's budget (see DeviceAllocator). */
  public DeviceAllocator allocator() {
    DeviceAllocator a = allocator;
    if (a == null) {
      synchronized (this) {
        if (allocator == null) {
          allocator = new DeviceAllocator(this, DeviceAllocator.defaultBudget(this));
        }
        a = allocator;
      }
    }
    return a;
  }

  /** The pinned, mapped host memory allocator (one per device, so its accounting is global). */
  public PinnedHostAllocator pinnedAllocator() {
    return pinnedAllocator;
  }

  @Override
  public String toString() {
    return "CUDA device " + ordinal + " (" + name + ", " + (totalMemory >> 20) + " MiB)";
  }
}
