package org.spillway.gpu.device;

import static jcuda.driver.JCudaDriver.cuMemFreeHost;
import static jcuda.driver.JCudaDriver.cuMemHostAlloc;
import static jcuda.driver.JCudaDriver.cuMemHostRegister;
import static jcuda.driver.JCudaDriver.cuMemHostUnregister;

import jcuda.driver.CUresult;
import jcuda.driver.JCudaDriver;
import org.apache.arrow.memory.util.MemoryUtil;

/**
 * Allocates pinned host memory that every context can use (PORTABLE) and kernels can read directly
 * (DEVICEMAP, the zero-copy method), 128-byte aligned, with exact accounting of live bytes.
 */
public final class PinnedHostAllocator {
  /** Alignment guaranteed to callers (Arrow wants 64; 128 keeps 16-byte vector loads and PCIe lines whole). */
  public static final int ALIGNMENT = 128;
  /**
   * JCuda's cuMemHostAlloc wraps the memory in a direct ByteBuffer, which cannot exceed 2^31 - 1 bytes;
   * larger buffers are allocated with malloc and pinned with cuMemHostRegister (same flags, same use).
   */
  public static final long HOST_ALLOC_LIMIT = Integer.MAX_VALUE;
  private static final long PAGE = 4096;

  private final CudaDevice device;
  private long allocated;
  private long peak;
  private int live;

  public PinnedHostAllocator(CudaDevice device) {
    this.device = device;
  }

  public synchronized long allocatedBytes() {
    return allocated;
  }

  public synchronized long peakBytes() {
    return peak;
  }

  public synchronized int liveBuffers() {
    return live;
  }

  /** {@code bytes} bytes of pinned mapped memory; the contents are undefined. */
  public HostBuffer allocate(long bytes) {
    if (bytes <= 0) {
      throw new IllegalArgumentException("pinned allocation must be positive, got " + bytes + " bytes");
    }
    device.makeCurrent();
    HostBuffer buffer = bytes <= HOST_ALLOC_LIMIT ? hostAlloc(bytes) : mallocAndRegister(bytes);
    synchronized (this) {
      allocated += bytes;
      peak = Math.max(peak, allocated);
      live++;
    }
    return buffer;
  }

  private HostBuffer hostAlloc(long bytes) {
    HostPointer p = new HostPointer();
    int rc = cuMemHostAlloc(p, bytes, JCudaDriver.CU_MEMHOSTALLOC_DEVICEMAP | JCudaDriver.CU_MEMHOSTALLOC_PORTABLE);
    if (rc != CUresult.CUDA_SUCCESS) {
      throw failure("cuMemHostAlloc", bytes, rc);
    }
    if (p.address() % ALIGNMENT != 0) {  // the driver returns page-aligned memory; check, never assume
      cuMemFreeHost(p);
      throw new GpuMemoryException("cuMemHostAlloc returned 0x" + Long.toHexString(p.address())
          + ", not " + ALIGNMENT + "-byte aligned");
    }
    return new HostBuffer(this, p, bytes, 0);
  }

  /**
   * Large buffers are malloc'ed (an mmap of fresh pages), aligned to a huge page and advised to use huge pages
   * ({@link HugePages}) before registering touches them, unless the property says otherwise.
   */
  private HostBuffer mallocAndRegister(long bytes) {
    boolean huge = HugePages.wanted();
    long align = huge ? HugePages.BYTES : PAGE;
    long raw;
    try {
      raw = MemoryUtil.allocateMemory(bytes + align);
    } catch (OutOfMemoryError e) {
      throw new GpuMemoryException("malloc of " + bytes + " bytes to pin failed: " + e.getMessage(), e);
    }
    HostPointer p = new HostPointer((raw + align - 1) / align * align);
    if (huge) {
      HugePages.advise(p.address(), (bytes + align - 1) / align * align);
    }
    int rc = cuMemHostRegister(p, bytes,
        JCudaDriver.CU_MEMHOSTREGISTER_DEVICEMAP | JCudaDriver.CU_MEMHOSTREGISTER_PORTABLE);
    if (rc != CUresult.CUDA_SUCCESS) {
      MemoryUtil.freeMemory(raw);
      throw failure("cuMemHostRegister", bytes, rc);
    }
    return new HostBuffer(this, p, bytes, raw);
  }

  private GpuMemoryException failure(String call, long bytes, int rc) {
    return new GpuMemoryException(call + " of " + bytes + " pinned bytes failed: " + CUresult.stringFor(rc) + " ("
        + allocatedBytes() + " pinned bytes already live in " + liveBuffers() + " buffers)");
  }

  void release(HostBuffer buffer) {
    device.makeCurrent();
    try {
      if (buffer.mallocAddress() == 0) {
        CudaException.check(cuMemFreeHost(buffer.pointer()), "cuMemFreeHost");
      } else {
        try {
          CudaException.check(cuMemHostUnregister(buffer.pointer()), "cuMemHostUnregister");
        } finally {
          MemoryUtil.freeMemory(buffer.mallocAddress());
        }
      }
    } finally {
      synchronized (this) {
        allocated -= buffer.bytes();
        live--;
      }
    }
  }
}
