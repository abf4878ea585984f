package org.spillway.storage;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;

/**
 * Where a {@link TableWriter}'s batches live until the commit writes them: the process's {@link RecycledMemory},
 * through an allocator of their own (Arrow chooses the allocation manager per root), so that the memory one import
 * releases is not faulted in anew by the next batch or import. {@value #PROPERTY}{@code =false} keeps the writer's
 * allocator (the catalog's memory). Either way the memory is counted, and a buffer not released by {@link #close}
 * fails it as a leak.
 */
final class StagingMemory implements AutoCloseable {
  static final String PROPERTY = "spillway.writer.recycledMemory";

  private final BufferAllocator allocator;
  private final boolean recycled;

  private StagingMemory(BufferAllocator allocator, boolean recycled) {
    this.allocator = allocator;
    this.recycled = recycled;
  }

  /** Staging memory for a writer whose own allocator is {@code writerAllocator} (which the writer closes itself). */
  static StagingMemory forWriter(BufferAllocator writerAllocator) {
    if (!Boolean.parseBoolean(System.getProperty(PROPERTY, "true"))) {
      return new StagingMemory(writerAllocator, false);
    }
    return new StagingMemory(new RootAllocator(
        RootAllocator.configBuilder().allocationManagerFactory(RecycledMemory.shared()).build()), true);
  }

  BufferAllocator allocator() {
    return allocator;
  }

  /** Whether the batches are in {@link RecycledMemory}. */
  boolean recycled() {
    return recycled;
  }

  /** Closes the recycled memory's allocator, which fails on a buffer not released; the writer's is the writer's. */
  @Override
  public void close() {
    if (recycled) {
      allocator.close();
    }
  }
}
