package org.spillway.adapter;

import java.util.HashMap;
import java.util.Map;
import org.spillway.gpu.device.CudaDevice;
import org.spillway.gpu.pipeline.gpu.GpuColumnCache;

/**
 * The process-wide GPU column cache of each device, shared by every connection that sets {@code gpuCache}.
 * The first such connection creates it with its size, capped at the device's memory budget; later ones share
 * it as it is (EXPLAIN shows its capacity), because resizing would evict what other connections rely on.
 */
final class SpillwayGpuCaches {
  private static final Map<Integer, GpuColumnCache> CACHES = new HashMap<>();

  private SpillwayGpuCaches() {}

  /** The cache of {@code device}, created with {@code requestedBytes} (within the budget) on first use. */
  static synchronized GpuColumnCache of(CudaDevice device, long requestedBytes) {
    return CACHES.computeIfAbsent(device.ordinal(),
        ordinal -> new GpuColumnCache(device, Math.min(requestedBytes, device.allocator().budget())));
  }

  /** The capacity the cache of {@code device} has, or would have if created now with {@code requestedBytes}. */
  static synchronized long capacity(CudaDevice device, long requestedBytes) {
    GpuColumnCache cache = CACHES.get(device.ordinal());
    return cache != null ? cache.capacityBytes() : Math.min(requestedBytes, device.allocator().budget());
  }
}
