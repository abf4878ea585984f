package org.spillway.storage;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The root allocator consults the host-memory services before it is created, and is fixed afterwards. */
class HostMemoryProviderTest {
  @Test void rootAllocatorAsksTheProviders() {
    StorageAllocator.root();
    assertTrue(RecordingHostMemoryProvider.asked);
    assertThrows(StorageException.class, () -> StorageAllocator.useAllocationManager(null));
  }
}
