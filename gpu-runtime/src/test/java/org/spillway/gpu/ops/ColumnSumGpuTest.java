package org.spillway.gpu.ops;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import static jcuda.driver.JCudaDriver.cuMemcpyDtoH;
import static jcuda.driver.JCudaDriver.cuMemsetD8;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import jcuda.Pointer;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.spillway.gpu.GpuTest;
import org.spillway.gpu.RandomColumns;
import org.spillway.gpu.device.CudaDevice;
import org.spillway.gpu.device.CudaException;
import org.spillway.gpu.device.GpuRuntime;
import org.spillway.gpu.transfer.ColumnType;
import org.spillway.gpu.transfer.HostColumn;
import org.spillway.gpu.transfer.TransferMethod;
import org.spillway.gpu.transfer.TransferOptions;
import org.spillway.gpu.transfer.TransferPipeline;

/** Every supported transfer method feeding the column_sum kernel, checked against the CPU backend. */
@GpuTest
class ColumnSumGpuTest {
  /** Small chunks so that modest sizes still span many chunks, pipeline slots and wrap-arounds. */
  private static final TransferOptions OPTIONS = TransferOptions.DEFAULT.withChunkBytes(64 << 10);
  /** 64 KiB chunks hold 8192 INT64 rows: these sizes hit 1 row, less than a warp, and ragged chunk ends. */
  private static final long[] ROWS = {1, 31, 1000, 8192 * 3, 8192 * 5 + 7, 1_000_003};

  private static CpuColumnSum cpu;
  private static long seed = System.nanoTime();

  @BeforeAll
  static void setUp() {
    cpu = new CpuColumnSum(4);
  }

  @AfterAll
  static void tearDown() {
    cpu.close();
  }

  static Stream<Arguments> methods() {
    CudaDevice device = GpuRuntime.device().orElse(null);
    List<Arguments> out = new ArrayList<>();
    for (TransferMethod m : TransferMethod.values()) {
      if (device == null || m.support(device).supported()) {
        out.add(Arguments.of(m));
      }
    }
    return out.stream();
  }

  @ParameterizedTest
  @MethodSource("methods")
  void sumsMatchCpuForEveryTypeAndRaggedSize(TransferMethod method) {
    CudaDevice device = GpuRuntime.requireDevice();
    try (BufferAllocator allocator = RandomColumns.allocatorFor(method);
         TransferPipeline pipeline = new TransferPipeline(device, method, OPTIONS)) {
      GpuColumnSum gpu = new GpuColumnSum(pipeline);
      for (ColumnType type : ColumnType.VALUES) {
        for (long rows : ROWS) {
          // One extra leading element: the column starts off the 16-byte vector alignment.
          try (ArrowBuf buf = allocator.buffer((rows + 1) * type.width())) {
            HostColumn column = RandomColumns.fill(buf, type.width(), type, rows, seed++);
            pipeline.evictToHost(List.of(column));
            assertSameSum(cpu.sum(column), gpu.sum(column), method + " " + type + " " + rows + " rows");
          }
        }
      }
    }
  }

  @Test
  void rowRangeInsideColumn() {
    CudaDevice device = GpuRuntime.requireDevice();
    try (BufferAllocator allocator = new RootAllocator();
         TransferPipeline pipeline = new TransferPipeline(device, TransferMethod.STAGED_COPY, OPTIONS);
         ArrowBuf buf = allocator.buffer(100_000L * 8)) {
      HostColumn column = RandomColumns.fill(buf, 0, ColumnType.INT64, 100_000, seed++);
      long[] sum = {0};
      GpuColumnSum gpu = new GpuColumnSum(pipeline);
      try (var acc = device.allocator().allocate(8, "test accumulator")) {
        CudaException.check(cuMemsetD8(acc.pointer(), (byte) 0, 8), "cuMemsetD8");
        pipeline.run(List.of(column), 12_345, 54_321, gpu.consumer(ColumnType.INT64, acc));
        CudaException.check(cuMemcpyDtoH(Pointer.to(sum), acc.pointer(), 8), "cuMemcpyDtoH");
      }
      long expected = 0;
      for (long r = 12_345; r < 12_345 + 54_321; r++) {
        expected += buf.getLong(r * 8);
      }
      assertEquals(expected, sum[0]);
    }
  }

  @ParameterizedTest
  @MethodSource("methods")
  void consumerFailureReleasesTheSlotsAndThePipelineStaysUsable(TransferMethod method) {
    CudaDevice device = GpuRuntime.requireDevice();
    try (BufferAllocator allocator = RandomColumns.allocatorFor(method);
         TransferPipeline pipeline = new TransferPipeline(device, method, OPTIONS);
         ArrowBuf buf = allocator.buffer(8192L * 9 * 8)) {
      HostColumn column = RandomColumns.fill(buf, 0, ColumnType.INT64, 8192L * 9, seed++);
      GpuColumnSum gpu = new GpuColumnSum(pipeline);
      var e = assertThrows(IllegalStateException.class, () -> pipeline.run(List.of(column), (chunk, stream) -> {
        if (chunk.index() == 3) {
          throw new IllegalStateException("consumer failed on chunk 3");
        }
      }));
      assertEquals("consumer failed on chunk 3", e.getMessage());
      pipeline.evictToHost(List.of(column));
      assertSameSum(cpu.sum(column), gpu.sum(column), method + " after a failed run");
    }
  }

  @Test
  void coherenceIsReportedUnsupportedOnPcie() {
    CudaDevice device = GpuRuntime.requireDevice();
    var support = TransferMethod.COHERENCE.support(device);
    if (!device.pageableMemoryAccess()) {
      assertFalse(support.supported());
      assertTrue(support.reason().contains("PAGEABLE_MEMORY_ACCESS = 0"), support.reason());
      var e = assertThrows(UnsupportedOperationException.class,
          () -> new TransferPipeline(device, TransferMethod.COHERENCE, OPTIONS));
      assertTrue(e.getMessage().contains("coherence"), e.getMessage());
    }
  }

  @Test
  void zeroCopyRejectsPageableMemory() {
    CudaDevice device = GpuRuntime.requireDevice();
    try (BufferAllocator allocator = new RootAllocator();
         TransferPipeline pipeline = new TransferPipeline(device, TransferMethod.ZERO_COPY, OPTIONS);
         ArrowBuf buf = allocator.buffer(4096)) {
      HostColumn column = RandomColumns.fill(buf, 0, ColumnType.INT64, 512, seed++);
      var e = assertThrows(IllegalArgumentException.class, () -> new GpuColumnSum(pipeline).sum(column));
      assertTrue(e.getMessage().contains("PAGEABLE"), e.getMessage());
    }
  }

  private static void assertSameSum(SumResult expected, SumResult actual, String what) {
    assertEquals(expected.rowCount(), actual.rowCount(), what);
    if (expected.type() == ColumnType.FLOAT64) {
      double tolerance = 1e-9 * Math.max(1, expected.rowCount() * 1e6);  // values in [-1e6, 1e6)
      assertEquals(expected.floatSum(), actual.floatSum(), tolerance, what);
    } else {
      assertEquals(expected.integerSum(), actual.integerSum(), what);
    }
  }
}
