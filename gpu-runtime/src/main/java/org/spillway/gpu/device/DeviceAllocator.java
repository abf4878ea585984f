package org.spillway.gpu.device;

import static jcuda.driver.JCudaDriver.cuCtxSynchronize;
import static jcuda.driver.JCudaDriver.cuMemAlloc;
import static jcuda.driver.JCudaDriver.cuMemAllocManaged;
import static jcuda.driver.JCudaDriver.cuMemFree;

import java.util.List;
import java.util.Locale;
import jcuda.driver.CUmemAttach_flags;
import jcuda.driver.CUresult;

/**
 * Allocates device and managed memory under a GPU memory budget with exact accounting: every byte
 * handed out is counted until its buffer is closed. Managed memory counts too, because it occupies
 * GPU memory once prefetched or migrated, and asking for more than the GPU holds can hang the device.
 * <p>With {@link #POOL_PROPERTY} set, device memory a buffer frees is kept for an allocation of the same size
 * ({@link DeviceBlockPool}), after the device finished all work it was given: no kernel still running can meet a block
 * handed out again. Kept blocks count against the budget with the buffers in use, and go first when an allocation
 * needs their room. Off by default: in the session-18 scoreboard's JVM (cpu, gpu, auto and cache configurations one
 * after the other) TPC-H Q13 ran three times slower under auto and the column cache, not explained yet.
 */
public final class DeviceAllocator {
  /** System property: the budget in bytes (suffixes k, m, g accepted), overriding the default. */
  public static final String BUDGET_PROPERTY = "spillway.gpu.budget";
  /** System property: bytes kept free for the driver and other users (default max(512 MiB, 5%)). */
  public static final String RESERVE_PROPERTY = "spillway.gpu.reserve";
  /** System property: bytes of freed device memory kept for reuse (default 0: freed at once). */
  public static final String POOL_PROPERTY = "spillway.gpu.pool";

  private final CudaDevice device;
  private final long budget;
  private long allocated;
  private long peak;
  private int live;
  /** Freed device blocks kept for reuse (none unless {@link #POOL_PROPERTY} is set). */
  private final DeviceBlockPool pool;
  /** Calls of cuMemAlloc (managed too) and cuMemFree so far, blocks reused, and the time spent: for traces. */
  private long allocations;
  private long reuses;
  private long allocationNanos;
  private long frees;
  private long freeNanos;

  public DeviceAllocator(CudaDevice device, long budget) {
    this(device, budget, poolProperty());
  }

  /** An allocator that keeps up to {@code poolBytes} of freed device memory for reuse (0: none). */
  public DeviceAllocator(CudaDevice device, long budget, long poolBytes) {
    if (budget <= 0) {
      throw new IllegalArgumentException("GPU memory budget must be positive, got " + budget);
    }
    this.device = device;
    this.budget = budget;
    this.pool = new DeviceBlockPool(poolBytes);
  }

  private static long poolProperty() {
    String pooled = System.getProperty(POOL_PROPERTY);
    return pooled == null || pooled.trim().equals("0") ? 0 : parseBytes(POOL_PROPERTY, pooled);
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
    device.makeCurrent();
    if (!managed) {
      DevicePointer kept = pool.take(bytes);
      if (kept != null) {
        reused();
        return new DeviceBuffer(this, kept, bytes, false, purpose);
      }
      free(pool.evictTo(Math.max(0, budget - allocatedBytes())));  // kept blocks leave this allocation room
    }
    DevicePointer p = new DevicePointer();
    long start = System.nanoTime();
    int rc = managed
        ? cuMemAllocManaged(p, bytes, CUmemAttach_flags.CU_MEM_ATTACH_GLOBAL)
        : cuMemAlloc(p, bytes);
    if (rc == CUresult.CUDA_ERROR_OUT_OF_MEMORY && pool.bytes() > 0) {
      free(pool.evictTo(0));  // the GPU is fuller than the budget says (other users): kept blocks go, then again
      rc = managed ? cuMemAllocManaged(p, bytes, CUmemAttach_flags.CU_MEM_ATTACH_GLOBAL) : cuMemAlloc(p, bytes);
    }
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
      if (buffer.managed() || pool.capacity() == 0) {
        CudaException.check(cuMemFree(buffer.pointer()), "cuMemFree(" + buffer.purpose() + ")");
      } else {
        // the work given to the device so far may still read the block: it is kept once that work is done
        CudaException.check(cuCtxSynchronize(), "cuCtxSynchronize(freeing " + buffer.purpose() + ")");
        free(pool.put(buffer.pointer(), buffer.bytes()));
      }
    } finally {
      counted(false, System.nanoTime() - start);
      unreserve(buffer.bytes());
    }
  }

  /** Frees blocks the pool gave up. */
  private void free(List<DevicePointer> blocks) {
    for (DevicePointer block : blocks) {
      CudaException.check(cuMemFree(block), "cuMemFree(a kept device block)");
    }
  }

  /** Bytes of freed device memory kept for reuse. */
  public long pooledBytes() {
    return pool.bytes();
  }

  private synchronized void reused() {
    reuses++;
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

  /** The driver calls made so far and the time spent in them: what a run costs beside its work. */
  public synchronized Calls calls() {
    return new Calls(allocations, reuses, allocationNanos, frees, freeNanos);
  }

  /**
   * Counts of cuMemAlloc calls, of allocations served by a kept block instead, and of frees (cuMemFree, or a block
   * kept), and the nanoseconds spent in the calls.
   */
  public record Calls(long allocations, long reuses, long allocationNanos, long frees, long freeNanos) {
    /** The calls made since {@code before}, as a trace's words. */
    public String since(Calls before) {
      return String.format(Locale.ROOT, "%d device allocations in %.1f ms (%d more reused kept blocks), %d frees in "
          + "%.1f ms", allocations - before.allocations, (allocationNanos - before.allocationNanos) / 1e6,
          reuses - before.reuses, frees - before.frees, (freeNanos - before.freeNanos) / 1e6);
    }
  }

  private synchronized String describe() {
    return allocated + " of " + budget + " budget bytes in use by " + live + " buffers on " + device
        + (pool.bytes() > 0 ? ", " + pool.bytes() + " more kept for reuse" : "");
  }
}
