package org.spillway.gpu.pipeline.gpu;

import org.spillway.gpu.device.CudaDevice;
import org.spillway.gpu.device.HostBuffer;

/**
 * Pooled pinned, mapped host buffers for staging host data that a GPU operator reads, such as a join's key
 * columns: pinning fresh memory costs about as much as the copy into it, so buffers go back to the pool that GPU
 * pipelines use ({@link GpuColumnarPipeline#releaseIdleResources} frees what is idle).
 */
public final class PinnedScratch {
  private PinnedScratch() {}

  /** A pinned buffer of at least {@code bytes} bytes: an idle one that fits, else a new one. */
  public static HostBuffer acquire(CudaDevice device, long bytes) {
    return GpuScratch.acquireHost(device, bytes);
  }

  /** Gives back a buffer nothing reads or writes any more; beyond the pool's idle cap it is freed. */
  public static void release(CudaDevice device, HostBuffer buffer) {
    GpuScratch.release(device, buffer);
  }
}
