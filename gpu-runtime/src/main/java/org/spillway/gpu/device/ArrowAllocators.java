package org.spillway.gpu.device;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;

/** Arrow root allocators whose buffers live in pageable, pinned or managed memory. */
public final class ArrowAllocators {
  private ArrowAllocators() {}

  /** A new root allocator of {@code kind} memory (PAGEABLE: Arrow's default, Netty direct memory). */
  public static BufferAllocator root(HostMemoryKind kind) {
    return switch (kind) {
      case PINNED -> new RootAllocator(RootAllocator.configBuilder()
          .allocationManagerFactory(PinnedAllocationManager.FACTORY).build());
      case MANAGED -> new RootAllocator(RootAllocator.configBuilder()
          .allocationManagerFactory(ManagedAllocationManager.FACTORY).build());
      case PAGEABLE -> new RootAllocator();
      case DEVICE -> throw new IllegalArgumentException("Arrow buffers cannot live in device memory");
    };
  }
}
