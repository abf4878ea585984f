package org.spillway.gpu.device;

import org.apache.arrow.memory.AllocationManager;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.OutOfMemoryException;

/**
 * Arrow memory in CUDA unified (managed) memory, for the UM prefetch and UM migration transfer methods.
 * It is counted against the GPU budget, since it may all end up resident on the GPU.
 */
public final class ManagedAllocationManager extends CudaAllocationManager {
  /** The factory for {@code RootAllocator.configBuilder().allocationManagerFactory(FACTORY)}. */
  public static final AllocationManager.Factory FACTORY = new AllocationManager.Factory() {
    @Override
    public AllocationManager create(BufferAllocator accountingAllocator, long size) {
      DeviceBuffer memory;
      try {
        memory = requireDevice("ManagedAllocationManager").allocator()
            .allocateManaged(Math.max(size, 1), "Arrow managed buffer");
      } catch (GpuMemoryException e) {
        throw new OutOfMemoryException(e.getMessage());
      }
      return new ManagedAllocationManager(accountingAllocator, size, memory);
    }

    @Override
    public ArrowBuf empty() {
      return EMPTY;
    }
  };

  private ManagedAllocationManager(BufferAllocator accountingAllocator, long size, DeviceBuffer memory) {
    super(accountingAllocator, size, memory.address(), memory);
  }
}
