package org.spillway.gpu.transfer;

import static jcuda.driver.JCudaDriver.cuMemcpyDtoH;
import static jcuda.driver.JCudaDriver.cuMemsetD8;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import jcuda.Pointer;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.spillway.gpu.GpuTest;
import org.spillway.gpu.RandomColumns;
import org.spillway.gpu.device.CudaDevice;
import org.spillway.gpu.device.CudaException;
import org.spillway.gpu.device.DeviceBuffer;
import org.spillway.gpu.device.GpuRuntime;
import org.spillway.gpu.ops.GpuColumnSum;

/**
 * Multi-part streams: parts of ragged sizes (empty ones too) go through the slots back to back, every chunk
 * reaches the consumer with its part, and a pooled pipeline is reused by the next stream without being
 * created again.
 */
@GpuTest
class TransferPipelineStreamGpuTest {
  private static final long[] ROWS = {1000, 0, 64, 5003, 33, 4096};

  @ParameterizedTest
  @EnumSource(value = TransferMethod.class, names = {"PINNED_COPY", "ZERO_COPY", "STAGED_COPY", "PAGEABLE_COPY"})
  void partsStreamBackToBackThroughAPooledPipeline(TransferMethod method) {
    CudaDevice device = GpuRuntime.requireDevice();
    long seed = System.nanoTime();
    TransferPipelinePool pool = TransferPipelinePool.of(device);
    try (BufferAllocator allocator = RandomColumns.allocatorFor(method);
         DeviceBuffer sums = device.allocator().allocate(8L * ROWS.length, "per-part sums")) {
      List<ArrowBuf> buffers = new ArrayList<>();
      try {
        streamParts(device, pool, allocator, sums, buffers, method, seed);
      } finally {
        buffers.forEach(ArrowBuf::close);
      }
    }
  }

  /** Copy methods take a part joined by later batches' segments as one chunk of all their rows, in order. */
  @ParameterizedTest
  @EnumSource(value = TransferMethod.class, names = {"PINNED_COPY", "PAGEABLE_COPY", "ZERO_COPY"})
  void aPartJoinedBySegmentsTravelsAsOneChunk(TransferMethod method) {
    CudaDevice device = GpuRuntime.requireDevice();
    long seed = System.nanoTime();
    long[] rows = {64, 1000, 0, 4096, 33};  // all but the last a multiple of 8
    try (BufferAllocator allocator = RandomColumns.allocatorFor(method);
         DeviceBuffer sums = device.allocator().allocate(8, "joined sum")) {
      List<ArrowBuf> buffers = new ArrayList<>();
      try {
        List<HostColumn> columns = new ArrayList<>();
        long expected = 0;
        for (int p = 0; p < rows.length; p++) {
          ArrowBuf buf = allocator.buffer(Math.max(8, rows[p] * 8));
          buffers.add(buf);
          columns.add(RandomColumns.fill(buf, 0, ColumnType.INT64, rows[p], seed + p));
          for (long r = 0; r < rows[p]; r++) {
            expected += buf.getLong(r * 8);
          }
        }
        List<TransferPipeline.Segment> following = new ArrayList<>();
        for (int p = 1; p < rows.length; p++) {
          following.add(new TransferPipeline.Segment(List.of(columns.get(p)), 0, rows[p]));
        }
        TransferPipeline.Part part = new TransferPipeline.Part(7, List.of(columns.get(0)), 0, rows[0], following);
        try (TransferPipeline pipeline = new TransferPipeline(device, method, TransferOptions.DEFAULT)) {
          device.makeCurrent();
          CudaException.check(cuMemsetD8(sums.pointer(), (byte) 0, 8), "cuMemsetD8");
          GpuColumnSum sum = new GpuColumnSum(pipeline);
          AtomicBoolean handedOut = new AtomicBoolean();
          List<Long> chunkRows = new ArrayList<>();
          Runnable stream = () -> pipeline.stream(() -> handedOut.getAndSet(true) ? null : part, 8192,
              (p, chunk, s) -> {
                chunkRows.add(chunk.rowCount());
                sum.consumer(ColumnType.INT64, sums, 0).consume(chunk, s);
              });
          if (!method.joinsSegments()) {
            assertThrows(IllegalArgumentException.class, stream::run, method + " hands the kernel host memory");
            return;
          }
          stream.run();
          long[] actual = new long[1];
          CudaException.check(cuMemcpyDtoH(Pointer.to(actual), sums.pointer(), 8), "cuMemcpyDtoH");
          assertEquals(List.of(part.totalRows()), chunkRows, "one chunk of every row");
          assertEquals(expected, actual[0], method + ", seed " + seed);
        }
      } finally {
        buffers.forEach(ArrowBuf::close);
      }
    }
  }

  private static void streamParts(CudaDevice device, TransferPipelinePool pool, BufferAllocator allocator,
      DeviceBuffer sums, List<ArrowBuf> buffers, TransferMethod method, long seed) {
    List<TransferPipeline.Part> parts = new ArrayList<>();
    long[] expected = new long[ROWS.length];
    for (int p = 0; p < ROWS.length; p++) {
      ArrowBuf buf = allocator.buffer(Math.max(8, ROWS[p] * 8));
      buffers.add(buf);
      HostColumn column = RandomColumns.fill(buf, 0, ColumnType.INT64, ROWS[p], seed + p);
      for (long r = 0; r < ROWS[p]; r++) {
        expected[p] += buf.getLong(r * 8);
      }
      parts.add(new TransferPipeline.Part(p, List.of(column), 0, ROWS[p]));
    }
    TransferOptions options = TransferOptions.DEFAULT.withChunkBytes(4096);
    TransferPipeline first = pool.acquire(method, options);
    pool.release(first);
    long created = pool.createdCount();
    for (int run = 0; run < 2; run++) {
      device.makeCurrent();
      CudaException.check(cuMemsetD8(sums.pointer(), (byte) 0, 8L * ROWS.length), "cuMemsetD8");
      TransferPipeline pipeline = pool.acquire(method, options);
      GpuColumnSum sum = new GpuColumnSum(pipeline);
      AtomicInteger next = new AtomicInteger();
      List<Integer> seen = new ArrayList<>();
      pipeline.stream(() -> next.get() < parts.size() ? parts.get(next.getAndIncrement()) : null, 256,
          (part, chunk, stream) -> {
            seen.add(part.id());
            sum.consumer(ColumnType.INT64, sums, 8L * part.id()).consume(chunk, stream);
          });
      pool.release(pipeline);
      long[] actual = new long[ROWS.length];
      CudaException.check(cuMemcpyDtoH(Pointer.to(actual), sums.pointer(), 8L * ROWS.length), "cuMemcpyDtoH");
      assertArrayEquals(expected, actual, method + ", seed " + seed + ", run " + run);
      List<Integer> chunksPerPart = new ArrayList<>();
      for (int p = 0; p < ROWS.length; p++) {
        int id = p;
        chunksPerPart.add((int) seen.stream().filter(x -> x == id).count());
      }
      assertEquals(List.of(4, 0, 1, 20, 1, 16), chunksPerPart, "256-row chunks per part, none for the empty one");
    }
    assertEquals(created, pool.createdCount(), "the streams reused the pooled pipeline");
  }
}
