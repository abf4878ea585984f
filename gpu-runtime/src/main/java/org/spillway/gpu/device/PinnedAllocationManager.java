package org.spillway.gpu.device;

import org.apache.arrow.memory.AllocationManager;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.OutOfMemoryException;

/**
 * Arrow memory in pinned, mapped, 128-byte-aligned host memory, so that Arrow tables can be copied by
 * DMA (pinned copy) or read in place by kernels (zero-copy). Use as a RootAllocator's factory.
 */
public final class PinnedAllocationManager extends CudaAllocationManager {
  /** The factory for {@code RootAllocator.configBuilder().allocationManagerFactory(FACTORY)}. */
  public static final AllocationManager.Factory FACTORY = new AllocationManager.Factory() {
    @Override
    public AllocationManager create(BufferAllocator accountingAllocator, long size) {
      HostBuffer memory;
      try {
        // cuMemHostAlloc rejects 0 bytes; Arrow may ask for it.
        memory = requireDevice("PinnedAllocationManager").pinnedAllocator().allocate(Math.max(size, 1));
      } catch (GpuMemoryException e) {
        throw new OutOfMemoryException(e.getMessage());
      }
      return new PinnedAllocationManager(accountingAllocator, size, memory);
    }

    @Override
    public ArrowBuf empty() {
      return EMPTY;
    }
  };

  private PinnedAllocationManager(BufferAllocator accountingAllocator, long size, HostBuffer memory) {
    super(accountingAllocator, size, memory.address(), memory);
  }
}
