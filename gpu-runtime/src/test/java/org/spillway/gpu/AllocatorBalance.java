package org.spillway.gpu;

import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.spillway.gpu.device.CudaDevice;
import org.spillway.gpu.device.GpuRuntime;
import org.spillway.gpu.pipeline.gpu.GpuColumnarPipeline;

/**
 * JUnit extension: a GPU test must leave device and pinned allocator accounting where it found it. What GPU
 * pipelines keep idle between runs (pooled transfer pipelines and scratch buffers) is freed before each
 * snapshot, so that only what a test really leaked shows.
 */
public final class AllocatorBalance implements BeforeEachCallback, AfterEachCallback {
  private static final ExtensionContext.Namespace NS = ExtensionContext.Namespace.create(AllocatorBalance.class);

  @Override
  public void beforeEach(ExtensionContext context) {
    GpuRuntime.device().ifPresent(d -> context.getStore(NS).put("before", snapshot(d)));
  }

  @Override
  public void afterEach(ExtensionContext context) {
    long[] before = context.getStore(NS).get("before", long[].class);
    if (before == null) {
      return;
    }
    long[] after = snapshot(GpuRuntime.requireDevice());
    if (after[0] != before[0] || after[1] != before[1] || after[2] != before[2] || after[3] != before[3]) {
      throw new AssertionError(String.format(
          "%s leaked GPU memory: device %d -> %d bytes (%d -> %d buffers), pinned %d -> %d bytes (%d -> %d buffers)",
          context.getDisplayName(), before[0], after[0], before[1], after[1], before[2], after[2], before[3],
          after[3]));
    }
  }

  private static long[] snapshot(CudaDevice d) {
    GpuColumnarPipeline.releaseIdleResources(d);
    return new long[] {d.allocator().allocatedBytes(), d.allocator().liveBuffers(),
        d.pinnedAllocator().allocatedBytes(), d.pinnedAllocator().liveBuffers()};
  }
}
