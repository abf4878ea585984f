package org.spillway.gpu.device;

import static jcuda.driver.JCudaDriver.cuMemAlloc;
import static jcuda.driver.JCudaDriver.cuMemAllocManaged;
import static jcuda.driver.JCudaDriver.cuMemFree;

import java.util.Locale;
import jcuda.driver.CUmemAttach_flags;
import jcuda.driver.CUresult;

/**
 * Allocates device and managed memory under a GPU memory budget with exact accounting: every byte
 * handed out is counted until its buffer is closed. Managed memory counts too, because it occupies
 * GPU memory once prefetched or migrated, and asking for more than the GPU holds can hang the device.
 */
public final class DeviceAllocator {
  /** System property: the budget in bytes (suffixes k, m, g accepted), overriding the default. */
  public static final String BUDGET_PROPERTY = "spillway.gpu.budget";
  /** System property: bytes kept free for the driver and other users (default max(512 MiB, 5%)). */
  public static final String RESERVE_PROPERTY = "spillway.gpu.reserve";

  private final CudaDevice device;
  private final long budget;
  private long allocated;
  private long peak;
  private int live;
  /** Calls of cuMemAlloc (managed too) and cuMemFree so far, and the time spent in them: for traces. */
  private long allocations;
  private long allocationNanos;
  private long frees;
  private long freeNanos;

  public DeviceAllocator(CudaDevice device, long budget) {
    if (budget <= 0) {
      throw new IllegalArgumentException("GPU memory budget must be positive, got " + budget);
    }
    this.device = device;
    this.budget = budget;
  }

  /** Free memory minus the reserve, unless {@link #BUDGET_PROPERTY} sets it. */
  public static long defaultBudget(CudaDevice device) {
    String configured = System.getProperty(BUDGET_PROPERTY);
    if (configured != null) {
      return parseBytes(BUDGET_PROPERTY, configured);
    }
    String reserveText = System.getProperty(RESERVE_PROPERTY);
    long reserve = reserveText != null
        ? parseBytes(RESERVE_PROPERTY, reserveText)
        : Math.max(512L << 20, device.totalMemory() / 20);
    return Math.max(1, device.freeMemory() - reserve);
  }

  /** Parses "123", "64m", "8g" etc. into bytes; the error names the property and the text. */
  public static long parseBytes(String what, String text) {
    String t = text.trim().toLowerCase(Locale.ROOT);
    long scale = 1;
    if (t.endsWith("k") || t.endsWith("m") || t.endsWith("g")) {
      scale = switch (t.charAt(t.length() - 1)) {
        case 'k' -> 1L << 10;
        case 'm' -> 1L << 20;
        default -> 1L << 30;
      };
      t = t.substring(0, t.length() - 1);
    }
    try {
      long v = Long.parseLong(t);
      if (v <= 0) {
        throw new NumberFormatException("not positive");
      }
      return Math.multiplyExact(v, scale);
    } catch (NumberFormatException | ArithmeticException e) {
      throw new IllegalArgumentException(what + "='" + text + "' is not a positive byte count (e.g. 512m, 8g)", e);
    }
  }

  public CudaDevice device() {
    return device;
  }

  public long budget() {
    return budget;
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

  public synchronized long availableBytes() {
    return budget - allocated;
  }

  /** Device memory of {@code bytes} bytes; {@code purpose} names the user in errors. */
  public DeviceBuffer allocate(long bytes, String purpose) {
    return allocate(bytes, purpose, false);
  }

  /** Managed (unified) memory of {@code bytes} bytes, attached globally, counted against the budget. */
  public DeviceBuffer allocateManaged(long bytes, String purpose) {
    return allocate(bytes, purpose, true);
  }

  private DeviceBuffer allocate(long bytes, String purpose, boolean managed) {
    if (bytes <= 0) {
      throw new IllegalArgumentException("allocation for " + purpose + " must be positive, got " + bytes + " bytes");
    }
    reserve(bytes, purpose);
    DevicePointer p = new DevicePointer();
    device.makeCurrent();
    long start = System.nanoTime();
    int rc = managed
        ? cuMemAllocManaged(p, bytes, CUmemAttach_flags.CU_MEM_ATTACH_GLOBAL)
        : cuMemAlloc(p, bytes);
    counted(true, System.nanoTime() - start);
    if (rc != CUresult.CUDA_SUCCESS) {
      unreserve(bytes);
      throw new GpuMemoryException((managed ? "cuMemAllocManaged" : "cuMemAlloc") + " of " + bytes + " bytes for "
          + purpose + " failed: " + CUresult.stringFor(rc) + " (" + describe() + ")");
    }
    return new DeviceBuffer(this, p, bytes, managed, purpose);
  }

  private synchronized void reserve(long bytes, String purpose) {
    if (bytes > budget - allocated) {
      throw new GpuMemoryException("GPU memory budget exceeded: " + purpose + " asks for " + bytes + " bytes, "
          + describe());
    }
    allocated += bytes;
    peak = Math.max(peak, allocated);
    live++;
  }

  private synchronized void unreserve(long bytes) {
    allocated -= bytes;
    live--;
  }

  void release(DeviceBuffer buffer) {
    device.makeCurrent();
    long start = System.nanoTime();
    try {
      CudaException.check(cuMemFree(buffer.pointer()), "cuMemFree(" + buffer.purpose() + ")");
    } finally {
      counted(false, System.nanoTime() - start);
      unreserve(buffer.bytes());
    }
  }

  private synchronized void counted(boolean allocation, long nanos) {
    if (allocation) {
      allocations++;
      allocationNanos += nanos;
    } else {
      frees++;
      freeNanos += nanos;
    }
  }

  /** The driver calls made so far: allocations and frees, and the time spent in each (what a run costs beside its work). */
  public synchronized Calls calls() {
    return new Calls(allocations, allocationNanos, frees, freeNanos);
  }

  /** Counts of cuMemAlloc and cuMemFree calls and the nanoseconds spent in them. */
  public record Calls(long allocations, long allocationNanos, long frees, long freeNanos) {
    /** The calls made since {@code before}, as a trace's words. */
    public String since(Calls before) {
      return String.format(java.util.Locale.ROOT, "%d device allocations in %.1f ms, %d frees in %.1f ms",
          allocations - before.allocations, (allocationNanos - before.allocationNanos) / 1e6, frees - before.frees,
          (freeNanos - before.freeNanos) / 1e6);
    }
  }

  private synchronized String describe() {
    return allocated + " of " + budget + " budget bytes in use by " + live + " buffers on " + device;
  }
}
