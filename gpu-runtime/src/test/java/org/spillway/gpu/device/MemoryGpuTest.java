package org.spillway.gpu.device;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.junit.jupiter.api.Test;
import org.spillway.gpu.GpuTest;

/** Device budget and accounting, pinned and managed Arrow memory, and memory-kind detection. */
@GpuTest
class MemoryGpuTest {
  @Test
  void budgetIsEnforcedAndAccountingReturnsToZero() {
    CudaDevice device = GpuRuntime.requireDevice();
    DeviceAllocator small = new DeviceAllocator(device, 1 << 20);
    DeviceAllocator.Calls before = small.calls();
    try (DeviceBuffer a = small.allocate(600 << 10, "first")) {
      assertEquals(600 << 10, small.allocatedBytes());
      var e = assertThrows(GpuMemoryException.class, () -> small.allocate(600 << 10, "second"));
      assertTrue(e.getMessage().contains("budget exceeded") && e.getMessage().contains("second"), e.getMessage());
      assertEquals(1, small.liveBuffers());
      try (DeviceBuffer b = small.allocateManaged(400 << 10, "managed")) {
        assertEquals(1000 << 10, small.allocatedBytes());
        assertEquals(HostMemoryKind.MANAGED, HostMemoryKind.of(device, b.address()));
      }
      assertEquals(HostMemoryKind.DEVICE, HostMemoryKind.of(device, a.address()));
    }
    assertEquals(0, small.allocatedBytes());
    assertEquals(0, small.liveBuffers());
    assertTrue(small.peakBytes() >= 1000 << 10);
    // the refused allocation never reached the driver
    DeviceAllocator.Calls calls = small.calls();
    assertEquals(2, calls.allocations() - before.allocations());
    assertEquals(2, calls.frees() - before.frees());
    assertTrue(calls.since(before).startsWith("2 device allocations in "), calls.since(before));
  }

  /**
   * A freed buffer's memory is kept and handed to the next allocation of its size (no cuMemAlloc); kept memory counts
   * against the budget and goes when an allocation needs its room.
   */
  @Test
  void freedMemoryIsReusedAndGivesWayToTheBudget() {
    CudaDevice device = GpuRuntime.requireDevice();
    DeviceAllocator allocator = new DeviceAllocator(device, 8 << 20, 1 << 20);  // keeps up to 1 MiB
    long address;
    try (DeviceBuffer first = allocator.allocate(512 << 10, "first")) {
      address = first.address();
    }
    assertEquals(512 << 10, allocator.pooledBytes());
    assertEquals(0, allocator.allocatedBytes());
    DeviceAllocator.Calls before = allocator.calls();
    try (DeviceBuffer again = allocator.allocate(512 << 10, "again")) {
      assertEquals(address, again.address());
      assertEquals(0, allocator.pooledBytes());
    }
    DeviceAllocator.Calls calls = allocator.calls();
    assertEquals(0, calls.allocations() - before.allocations());
    assertEquals(1, calls.reuses() - before.reuses());
    try (DeviceBuffer big = allocator.allocate((8 << 20) - (256 << 10), "big")) {
      assertEquals(0, allocator.pooledBytes(), "the kept block gave the budget's room to the big buffer");
      assertEquals(HostMemoryKind.DEVICE, HostMemoryKind.of(device, big.address()));
    }
    assertEquals(0, allocator.pooledBytes(), "a buffer larger than the pool keeps is freed");
    assertEquals(0, allocator.liveBuffers());
  }

  @Test
  void defaultBudgetLeavesAReserve() {
    CudaDevice device = GpuRuntime.requireDevice();
    long budget = device.allocator().budget();
    assertTrue(budget > 0 && budget < device.totalMemory(), "budget " + budget);
  }

  @Test
  void impossibleAllocationIsAClearError() {
    CudaDevice device = GpuRuntime.requireDevice();
    var e = assertThrows(GpuMemoryException.class,
        () -> device.allocator().allocate(device.totalMemory() * 2, "oversized test buffer"));
    assertTrue(e.getMessage().contains("oversized test buffer"), e.getMessage());
  }

  @Test
  void arrowVectorsLiveInPinnedAlignedMemory() {
    CudaDevice device = GpuRuntime.requireDevice();
    PinnedHostAllocator pinned = device.pinnedAllocator();
    long before = pinned.allocatedBytes();
    try (BufferAllocator allocator = new RootAllocator(RootAllocator.configBuilder()
        .allocationManagerFactory(PinnedAllocationManager.FACTORY).build());
         BigIntVector v = new BigIntVector("v", allocator)) {
      v.allocateNew(10_000);
      for (int i = 0; i < 10_000; i++) {
        v.set(i, i * 3L);
      }
      v.setValueCount(10_000);
      long address = v.getDataBuffer().memoryAddress();
      assertEquals(0, address % PinnedHostAllocator.ALIGNMENT);
      assertEquals(HostMemoryKind.PINNED, HostMemoryKind.of(device, address));
      assertTrue(pinned.allocatedBytes() >= before + 80_000);
      assertEquals(29_997L, v.get(9_999));
    }
    assertEquals(before, pinned.allocatedBytes());
  }

  @Test
  void pinnedBuffersBeyondTwoGibAreRegisteredAndMapped() {
    CudaDevice device = GpuRuntime.requireDevice();
    PinnedHostAllocator pinned = device.pinnedAllocator();
    long bytes = PinnedHostAllocator.HOST_ALLOC_LIMIT + 4097;  // JCuda's cuMemHostAlloc cannot return this
    try (HostBuffer big = pinned.allocate(bytes)) {
      assertEquals(0, big.address() % (HugePages.wanted() ? HugePages.BYTES : PinnedHostAllocator.ALIGNMENT));
      assertEquals(HostMemoryKind.PINNED, HostMemoryKind.of(device, big.address()));
      assertEquals(HostMemoryKind.PINNED, HostMemoryKind.of(device, big.address() + bytes - 1));
      assertTrue(HostMemoryKind.mappedDeviceAddress(device, big.address()) != 0);
      assertTrue(pinned.allocatedBytes() >= bytes);
    }
  }

  @Test
  void managedAndPageableArrowMemoryAreClassified() {
    CudaDevice device = GpuRuntime.requireDevice();
    try (BufferAllocator managed = new RootAllocator(RootAllocator.configBuilder()
        .allocationManagerFactory(ManagedAllocationManager.FACTORY).build());
         BufferAllocator pageable = new RootAllocator();
         ArrowBuf m = managed.buffer(1 << 20);
         ArrowBuf p = pageable.buffer(1 << 20)) {
      m.setLong(8, 42);
      assertEquals(42, m.getLong(8));
      assertEquals(HostMemoryKind.MANAGED, HostMemoryKind.of(device, m.memoryAddress()));
      assertEquals(HostMemoryKind.PAGEABLE, HostMemoryKind.of(device, p.memoryAddress()));
      assertTrue(device.allocator().allocatedBytes() >= 1 << 20);
    }
  }
}
