package org.spillway.gpu.plan;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
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
import org.spillway.gpu.pipeline.ColumnBatch;
import org.spillway.gpu.vector.ColumnVector;
import org.spillway.gpu.vector.ExprType;

/**
 * A table's index built from a pinned allocator (as the storage allocator is on a GPU machine) lies wholly in pinned
 * memory, keys and structure, so the GPU lookup, which refuses any other memory, takes it, and the index join node
 * runs on the GPU with the CPU join's rows; dropped, the index leaves no memory.
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
        try (GpuIndexLookup lookup = new GpuIndexLookup(device, index.index())) {  // throws unless the column is pinned
          assertEquals(!kind.equals("BINARY_SEARCH"), lookup.structureOnDevice());
        }
        assertEquals(rows - 1, index.index().lookup(3L * (rows - 1) + 1));
        // the index join node on the GPU: no fallback, the rows of the CPU join
        ScanTable scan = new ScanTable() {
          @Override public List<VectorSchemaRoot> batches() {
            return List.of(batch);
          }

          @Override public long rowCount() {
            return rows;
          }

          @Override public String name() {
            return "t";
          }

          @Override public DeviceRuns deviceRuns() {
            return DeviceRuns.NONE;
          }
        };
        long[] probe = new long[5000];
        for (int i = 0; i < probe.length; i++) {
          probe[i] = (i * 7919L) % (3L * rows + 10);
        }
        int[] expected = null;
        for (boolean gpu : new boolean[] {false, true}) {
          IndexJoinNode node = new IndexJoinNode(probeSide(probe), 0, new IndexJoinNode.IndexedSide(scan,
              new int[] {0}, List.of(ExprType.INT64), index::acquire, null, null, null), JoinKind.LEFT, false, 1 << 12,
              gpu, DeviceRuns.NONE, "gpu test join");
          RunContext context = new RunContext(2, () -> false);
          NodeOutput out = node.run(context);
          int[] found = new int[out.rows()];
          ColumnVector column = out.column(1);
          for (int r = 0; r < found.length; r++) {
            found[r] = column.isNull(r) ? -1 : (int) column.longs[r];
          }
          assertEquals(gpu ? "gpu" : "cpu", context.reports().list().get(0).execution().device());
          if (expected == null) {
            expected = found;
          } else {
            assertArrayEquals(expected, found, kind + ": the GPU join's rows are the CPU join's");
          }
        }
      }
      assertEquals(table, pinned.getAllocatedMemory(), "the index's pinned memory is freed");
    }
  }

  private static PlanNode probeSide(long[] keys) {
    return new PlanNode() {
      @Override public List<ExprType> types() {
        return List.of(ExprType.INT64);
      }

      @Override public NodeOutput run(RunContext context) {
        return new BatchOutput(List.of(new ColumnBatch(new ColumnVector[] {
            ColumnVector.ofLongs(ExprType.INT64, keys, null, keys.length)}, keys.length)), types());
      }
    };
  }
}
