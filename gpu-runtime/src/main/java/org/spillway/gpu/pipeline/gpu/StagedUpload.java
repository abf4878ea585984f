package org.spillway.gpu.pipeline.gpu;

import static jcuda.driver.JCudaDriver.cuMemcpyHtoDAsync;

import java.util.stream.IntStream;
import jcuda.Pointer;
import org.apache.arrow.memory.util.MemoryUtil;
import org.spillway.gpu.device.CudaDevice;
import org.spillway.gpu.device.CudaEvent;
import org.spillway.gpu.device.CudaException;
import org.spillway.gpu.device.CudaStream;
import org.spillway.gpu.device.DeviceBuffer;
import org.spillway.gpu.device.HostBuffer;
import org.spillway.gpu.device.HostCopy;
import org.spillway.gpu.device.HostPointer;
import org.spillway.gpu.vector.IndexedColumns;

/**
 * Copies a Java array, or a column that writes itself as 64-bit integers, into GPU memory through two pooled pinned
 * staging buffers: several threads fill one chunk while the previous chunk crosses the link. A copy straight from a Java array is a pageable copy, which the driver stages
 * through pinned memory of its own on one thread, several times slower than the link; a join's build columns of tens
 * of millions of rows spend most of their upload there.
 */
final class StagedUpload {
  /** Below this a plain pageable copy is as fast as staging. */
  static final long MIN_STAGED_BYTES = 4L << 20;
  private static final int CHUNK_LONGS = 2 << 20;
  /** Threads filling a chunk: half the cores, as memory bandwidth, not the cores, bounds the copy. */
  private static final int FILL_THREADS = Math.max(1, Math.min(8, Runtime.getRuntime().availableProcessors() / 2));

  private StagedUpload() {}

  /** Copies the first {@code count} values of {@code values} to {@code target} at byte {@code offset}. */
  static void longs(CudaDevice device, DeviceBuffer target, long offset, long[] values, int count, String what) {
    if (count * 8L < MIN_STAGED_BYTES) {
      GpuScratch.upload(target, offset, Pointer.to(values), count * 8L, what);
      return;
    }
    staged(device, target, offset, count, (from, n, address) -> HostCopy.put(address, values, from, n), what);
  }

  /**
   * Copies {@code count} values that {@code writer} writes as 64-bit integers (a table's Arrow column, read where it
   * is) to {@code target} at byte {@code offset}.
   */
  static void longs(CudaDevice device, DeviceBuffer target, long offset, IndexedColumns.LongWriter writer, int count,
      String what) {
    if (count * 8L < MIN_STAGED_BYTES) {  // written into plain native memory, copied as a pageable copy
      long address = MemoryUtil.allocateMemory(Math.max(8, count * 8L));
      try {
        writer.write(0, count, address);
        GpuScratch.upload(target, offset, new HostPointer(address), count * 8L, what);
      } finally {
        MemoryUtil.freeMemory(address);
      }
      return;
    }
    staged(device, target, offset, count, writer, what);
  }

  private static void staged(CudaDevice device, DeviceBuffer target, long offset, int count,
      IndexedColumns.LongWriter values, String what) {
    HostBuffer[] staging = {PinnedScratch.acquire(device, CHUNK_LONGS * 8L),
        PinnedScratch.acquire(device, CHUNK_LONGS * 8L)};
    CudaEvent[] copied = {GpuScratch.event(device), GpuScratch.event(device)};
    CudaStream stream = GpuScratch.stream(device);
    try {
      for (int chunk = 0, from = 0; from < count; chunk++, from += CHUNK_LONGS) {
        int b = chunk & 1;
        int n = Math.min(CHUNK_LONGS, count - from);
        if (chunk >= 2) {
          copied[b].synchronize();  // the chunk staged there two rounds ago has crossed
        }
        fill(staging[b].address(), values, from, n);
        CudaException.check(cuMemcpyHtoDAsync(target.pointer(offset + from * 8L), new HostPointer(staging[b].address()),
            n * 8L, stream.handle()), "cuMemcpyHtoDAsync(" + what + ", " + n * 8L + " bytes)");
        copied[b].record(stream);
      }
    } finally {
      stream.synchronize();  // nothing may still read a staging buffer that goes back to the pool
      GpuScratch.release(device, stream);
      for (int b = 0; b < 2; b++) {
        GpuScratch.release(device, copied[b]);
        PinnedScratch.release(device, staging[b]);
      }
    }
  }

  /** Writes {@code n} values from {@code from} into pinned memory, in parts on several threads. */
  private static void fill(long address, IndexedColumns.LongWriter values, int from, int n) {
    int part = (n + FILL_THREADS - 1) / FILL_THREADS;
    IntStream.range(0, FILL_THREADS).parallel().forEach(t -> {
      int start = t * part;
      int length = Math.min(part, n - start);
      if (length > 0) {
        values.write(from + start, length, address + start * 8L);
      }
    });
  }
}
