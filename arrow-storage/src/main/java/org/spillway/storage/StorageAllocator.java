package org.spillway.storage;

import org.apache.arrow.memory.AllocationManager;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;

import java.util.ServiceLoader;

/**
 * The one allocator seam: every Arrow buffer of the catalog comes from the process-wide root here, so
 * that the GPU runtime can swap in a pinned-memory allocation manager before the first allocation.
 */
public final class StorageAllocator {
  private static AllocationManager.Factory factory;
  private static RootAllocator root;

  private StorageAllocator() {
  }

  /**
   * Installs the allocation manager factory used by the root allocator. Must be called before the first
   * call to {@link #root()} or {@link #newChild}; later calls fail because live buffers already exist.
   */
  public static synchronized void useAllocationManager(AllocationManager.Factory newFactory) {
    if (root != null) {
      throw new StorageException("the storage root allocator is already in use; install the allocation"
          + " manager factory before the first allocation");
    }
    factory = newFactory;
  }

  /**
   * The process-wide root allocator, created on first use with the factory installed before, else the
   * first one a {@link HostMemoryProvider} on the class path offers, else Arrow's default.
   */
  public static synchronized BufferAllocator root() {
    if (root == null) {
      if (factory == null) {
        for (HostMemoryProvider provider : ServiceLoader.load(HostMemoryProvider.class)) {
          factory = provider.allocationManager().orElse(null);
          if (factory != null) {
            break;
          }
        }
      }
      // Arrow 19 keeps the config types package-private, so the builder is only used in a chain
      root = factory == null
          ? new RootAllocator()
          : new RootAllocator(RootAllocator.configBuilder().allocationManagerFactory(factory).build());
    }
    return root;
  }

  /** A child allocator of the root, for per-table or per-query accounting; the caller closes it. */
  public static BufferAllocator newChild(String name) {
    return root().newChildAllocator(name, 0, Long.MAX_VALUE);
  }
}
