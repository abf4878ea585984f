package org.spillway.gpu.plan;

import java.util.HashMap;
import java.util.Map;
import org.spillway.gpu.device.CudaDevice;
import org.spillway.gpu.device.DeviceAllocator;
import org.spillway.gpu.pipeline.gpu.GpuColumnCache;

/**
 * The process-wide GPU column cache of each device, shared by every pipeline that reads through one (every
 * connection that sets {@code gpuCache}). The first request creates it with its size, capped at the device's
 * memory budget; later ones share it as it is, because resizing would evict what other connections rely on.
 */
public final class GpuColumnCaches {
  private static final Map<Integer, GpuColumnCache> CACHES = new HashMap<>();

  private GpuColumnCaches() {}

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

  /**
   * The bytes a cache size such as 40g, 512m or 1048576 means; a bad one throws {@link IllegalArgumentException}
   * (sizes read as the GPU memory budget's are).
   */
  public static long parseBytes(String size) {
    return DeviceAllocator.parseBytes("gpuCache", size);
  }
}
