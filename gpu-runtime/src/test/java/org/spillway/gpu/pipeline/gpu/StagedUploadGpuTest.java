package org.spillway.gpu.pipeline.gpu;

import static jcuda.driver.JCudaDriver.cuMemcpyDtoH;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Arrays;
import java.util.Random;
import jcuda.Pointer;
import org.junit.jupiter.api.Test;
import org.spillway.gpu.GpuTest;
import org.spillway.gpu.device.CudaDevice;
import org.spillway.gpu.device.CudaException;
import org.spillway.gpu.device.DeviceBuffer;
import org.spillway.gpu.device.GpuRuntime;
import org.spillway.gpu.device.HostCopy;
import org.spillway.gpu.vector.IndexedColumns;

/**
 * {@link StagedUpload}: random arrays (or columns that write themselves) of sizes around its chunks (below the staging threshold, exactly one chunk, a
 * partial last chunk, several rounds through both staging buffers) and at an offset read back from GPU memory as they
 * were, with every device and pinned byte given back.
 */
@GpuTest
class StagedUploadGpuTest {
  private final CudaDevice device = GpuRuntime.device().orElse(null);

  @Test void arraysReadBackAsTheyWere() {
    long seed = System.nanoTime();
    Random random = new Random(seed);
    int chunk = 2 << 20;
    GpuColumnarPipeline.releaseIdleResources(device);
    long deviceBefore = device.allocator().allocatedBytes();
    long pinnedBefore = device.pinnedAllocator().allocatedBytes();
    for (int count : new int[] {1000, chunk, chunk + 1, 5 * chunk - 7, 1 + random.nextInt(3 * chunk)}) {
      long[] values = random.longs(count + 3).toArray();
      long offset = 8L * random.nextInt(4);
      try (DeviceBuffer target = device.allocator().allocate(offset + count * 8L, "staged upload test")) {
        if (random.nextBoolean()) {
          StagedUpload.longs(device, target, offset, values, count, "test values");
        } else {  // as a column that writes itself, from a row other than its first
          long[] shifted = new long[count + 5];
          System.arraycopy(values, 0, shifted, 5, count);
          IndexedColumns.LongWriter writer = (from, n, address) -> HostCopy.put(address, shifted, from + 5, n);
          StagedUpload.longs(device, target, offset, writer, count, "test values");
        }
        long[] back = new long[count];
        CudaException.check(cuMemcpyDtoH(Pointer.to(back), target.pointer(offset), count * 8L), "cuMemcpyDtoH");
        assertArrayEquals(Arrays.copyOf(values, count), back, "seed " + seed + ", " + count + " values");
      }
    }
    GpuColumnarPipeline.releaseIdleResources(device);
    assertEquals(deviceBefore, device.allocator().allocatedBytes(), "device memory back");
    assertEquals(pinnedBefore, device.pinnedAllocator().allocatedBytes(), "pinned memory back");
  }
}
