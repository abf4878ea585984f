package org.spillway.gpu.plan;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.spillway.gpu.GpuTest;
import org.spillway.gpu.device.ArrowAllocators;
import org.spillway.gpu.device.CudaDevice;
import org.spillway.gpu.device.GpuRuntime;
import org.spillway.gpu.device.HostMemoryKind;
import org.spillway.gpu.index.GpuIndexLookup;

/**
 * A table's index built from a pinned allocator (as the storage allocator is on a GPU machine) lies wholly in pinned
 * memory, keys and structure, so the GPU lookup, which refuses any other memory, takes it; dropped, it leaves none.
 */
@GpuTest
class TableIndexGpuTest {
  @ParameterizedTest
  @ValueSource(strings = {"BINARY_SEARCH", "BTREE", "HARMONIA", "RADIXSPLINE"})
  void anIndexFromPinnedMemoryIsReadableByTheGpuLookup(String kind) {
    CudaDevice device = GpuRuntime.requireDevice();
    try (BufferAllocator pinned = ArrowAllocators.root(HostMemoryKind.PINNED);
         BigIntVector keys = new BigIntVector("k", pinned)) {
      int rows = 100_000;
      keys.allocateNew(rows);
      for (int i = 0; i < rows; i++) {
        keys.set(i, 3L * i + 1);
      }
      keys.setValueCount(rows);
      long table = pinned.getAllocatedMemory();
      VectorSchemaRoot batch = new VectorSchemaRoot(List.of(keys));  // keys closes it
      try (TableIndex index = TableIndex.build("t_k", List.of(batch), 0, kind,
          pinned.newChildAllocator("index", 0, Long.MAX_VALUE), 2)) {
        new GpuIndexLookup(device, index.index());  // throws unless column and structure are pinned
        assertEquals(rows - 1, index.index().lookup(3L * (rows - 1) + 1));
      }
      assertEquals(table, pinned.getAllocatedMemory(), "the index's pinned memory is freed");
    }
  }
}
