package org.spillway.storage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.TimeUnit;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.junit.jupiter.api.Test;

/** Released memory is kept and handed out again by size, up to the limit, and freed once idle. */
class RecycledMemoryTest {
  private static final long MB = 1 << 20;

  private static BufferAllocator over(RecycledMemory memory) {
    return new RootAllocator(RootAllocator.configBuilder().allocationManagerFactory(memory).build());
  }

  private static RecycledMemory memory(long limit) {
    return new RecycledMemory(limit, TimeUnit.HOURS.toNanos(1));
  }

  @Test
  void aReleasedBufferIsHandedOutAgainForTheSameSize() {
    RecycledMemory memory = memory(64 * MB);
    try (BufferAllocator allocator = over(memory)) {
      long address;
      try (ArrowBuf first = allocator.buffer(MB)) {
        address = first.memoryAddress();
        assertEquals(MB, memory.outstandingBytes());
      }
      assertEquals(MB, memory.keptBytes());
      assertEquals(0, memory.outstandingBytes());
      try (ArrowBuf other = allocator.buffer(2 * MB); ArrowBuf again = allocator.buffer(MB)) {
        assertEquals(address, again.memoryAddress());
        assertNotEquals(address, other.memoryAddress());
        assertEquals(0, memory.keptBytes());
      }
      assertEquals(3 * MB, memory.keptBytes());
    } finally {
      memory.freeKept();
    }
    assertEquals(0, memory.keptBytes());
  }

  @Test
  void memoryHandedOutAgainHoldsWhatANewVectorWrites() {
    // recycled memory is not cleared: a vector must read back its own values and NULLs, not the last user's
    RecycledMemory memory = memory(64 * MB);
    try (BufferAllocator allocator = over(memory)) {
      try (BigIntVector dirty = new BigIntVector("dirty", allocator)) {
        dirty.allocateNew(100_000);
        for (int i = 0; i < 100_000; i++) {
          dirty.set(i, -1L);
        }
        dirty.setValueCount(100_000);
      }
      assertTrue(memory.keptBytes() > 0);
      try (BigIntVector fresh = new BigIntVector("fresh", allocator)) {
        fresh.allocateNew(100_000);
        fresh.set(7, 7L);
        fresh.setValueCount(100_000);
        assertEquals(1, 100_000 - fresh.getNullCount());
        assertEquals(7L, fresh.get(7));
        assertTrue(fresh.isNull(8));
      }
    } finally {
      memory.freeKept();
    }
  }

  @Test
  void smallBuffersAndBuffersBeyondTheLimitAreFreed() {
    RecycledMemory memory = memory(3 * MB);
    try (BufferAllocator allocator = over(memory)) {
      ArrowBuf small = allocator.buffer(RecycledMemory.MIN_KEPT_BYTES / 2);
      ArrowBuf a = allocator.buffer(2 * MB);
      ArrowBuf b = allocator.buffer(2 * MB);
      small.close();
      assertEquals(0, memory.keptBytes());
      a.close();
      b.close();
      assertEquals(2 * MB, memory.keptBytes(), "the second block would exceed the limit");
      assertEquals(0, memory.outstandingBytes());
    } finally {
      memory.freeKept();
    }
  }

  @Test
  void keptMemoryIsFreedOnceIdle() throws InterruptedException {
    RecycledMemory memory = new RecycledMemory(64 * MB, TimeUnit.MILLISECONDS.toNanos(50));
    try (BufferAllocator allocator = over(memory)) {
      allocator.buffer(MB).close();
      assertEquals(MB, memory.keptBytes());
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
      while (memory.keptBytes() > 0 && System.nanoTime() < deadline) {
        Thread.sleep(10);
      }
      assertEquals(0, memory.keptBytes());
    }
  }

  @Test
  void anUnreleasedBufferIsReportedAsALeak() {
    RecycledMemory memory = memory(64 * MB);
    BufferAllocator allocator = over(memory);
    allocator.buffer(MB);
    assertThrows(IllegalStateException.class, allocator::close);
    // Arrow cannot release into a closed allocator: the megabyte stays out, in this test's own instance
    assertEquals(MB, memory.outstandingBytes());
  }
}
