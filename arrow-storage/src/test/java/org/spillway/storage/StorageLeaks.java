package org.spillway.storage;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The check the storage tests run after each test: no Arrow memory of the catalog and no staged batch is left. */
final class StorageLeaks {
  private StorageLeaks() {}

  static void assertNone() {
    assertEquals(0, StorageAllocator.root().getAllocatedMemory());
    assertEquals(0, RecycledMemory.shared().outstandingBytes(), "staged batches not released");
  }
}
