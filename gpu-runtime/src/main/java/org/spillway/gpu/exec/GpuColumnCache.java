package org.spillway.gpu.exec;

import org.spillway.gpu.cuda.CudaDevice;

/**
 * Keeps hot host columns resident in GPU memory within a byte budget, evicting the least recently used, so
 * that repeated pipelines over them transfer nothing. Shared by concurrent pipelines; close frees everything.
 */
public final class GpuColumnCache implements AutoCloseable {
  private final CudaDevice device;
  private final long capacityBytes;

  /** A cache on {@code device} holding at most {@code capacityBytes} of column data. */
  public GpuColumnCache(CudaDevice device, long capacityBytes) {
    this.device = device;
    this.capacityBytes = capacityBytes;
  }

  public CudaDevice device() {
    return device;
  }

  public long capacityBytes() {
    return capacityBytes;
  }

  /** Bytes of column data resident now. */
  public long residentBytes() {
    return 0;  // TODO(#4): implemented by the cache work
  }

  /** Column chunks served from GPU memory since creation. */
  public long hits() {
    return 0;
  }

  /** Column chunks that had to cross the link since creation. */
  public long misses() {
    return 0;
  }

  /** Evicts everything. */
  public void clear() {
  }

  @Override
  public void close() {
    clear();
  }
}
