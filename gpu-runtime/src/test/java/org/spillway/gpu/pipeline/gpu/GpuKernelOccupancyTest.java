package org.spillway.gpu.pipeline.gpu;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.spillway.gpu.GpuTest;
import org.spillway.gpu.device.CudaDevice;
import org.spillway.gpu.device.CudaKernel;
import org.spillway.gpu.device.GpuRuntime;

/**
 * The pipeline kernels' grids hold no more blocks per multiprocessor than their registers and shared memory (with
 * the tiles' staged text) let stay resident.
 */
@GpuTest
class GpuKernelOccupancyTest {
  @Test void gridsFitOneResidentWave() {
    CudaDevice device = GpuRuntime.requireDevice();
    GpuKernels kernels = new GpuKernels(device);
    int threads = GpuColumnarPipeline.blockThreads();
    for (CudaKernel kernel : List.of(kernels.global, kernels.grouped, kernels.rows, kernels.selectionBranching)) {
      int resident = kernel.residentBlocksPerMultiprocessor(threads, 0);
      assertTrue(resident >= 1 && resident * threads <= 2048, kernel.name() + ": " + resident + " blocks resident");
      int text = GpuPass.MAX_STAGED_TEXT_COLUMNS * GpuPass.TEXT_TILE_BYTES;
      int withText = kernel.residentBlocksPerMultiprocessor(threads, text);
      assertTrue(withText >= 1 && withText <= resident, kernel.name() + ": " + withText + " blocks with staged text");
      assertEquals(resident, kernel.residentBlocksPerMultiprocessor(threads, 0), "asked again");
      int perSm = GpuPass.residentPerSm(kernel, GpuColumnarPipeline.BLOCKS_PER_SM, 0);
      assertEquals(Math.min(GpuColumnarPipeline.BLOCKS_PER_SM, resident), perSm, kernel.name());
      long manyTiles = 1L << 40;
      assertEquals(device.multiprocessors() * perSm, GpuPass.blocks(device.multiprocessors(), perSm, manyTiles));
      assertEquals(3, GpuPass.blocks(device.multiprocessors(), perSm, 3), "a small launch takes a block a tile");
    }
  }
}
