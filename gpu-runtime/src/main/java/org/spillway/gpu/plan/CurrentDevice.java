package org.spillway.gpu.plan;

import org.spillway.gpu.device.GpuRuntime;
import org.spillway.gpu.device.HostMemoryKind;
import org.spillway.gpu.transfer.TransferMethod;

/**
 * The CUDA device of this process as the planner asks about it while it chooses a GPU pipeline's transfer method
 * and cache: what kind of host memory a table lives in, which transfer methods the device runs, and the capacity
 * of its column cache. Every question needs the device ({@link GpuRuntime#device()} present).
 */
public final class CurrentDevice {
  private CurrentDevice() {}

  /** The kind of host memory at {@code address}. */
  public static HostMemoryKind memoryKind(long address) {
    return HostMemoryKind.of(GpuRuntime.requireDevice(), address);
  }

  /** Whether the device can run {@code method}. */
  public static boolean supports(TransferMethod method) {
    return method.support(GpuRuntime.requireDevice()).supported();
  }

  /** The capacity a column cache asked to hold {@code requestedBytes} has (the first request sizes it). */
  public static long cacheCapacity(long requestedBytes) {
    return GpuColumnCaches.capacity(GpuRuntime.requireDevice(), requestedBytes);
  }
}
