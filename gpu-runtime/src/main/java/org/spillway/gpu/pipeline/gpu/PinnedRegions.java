package org.spillway.gpu.pipeline.gpu;

import static jcuda.driver.JCudaDriver.cuMemcpyHtoDAsync;

import java.util.List;
import org.spillway.gpu.device.CudaDevice;
import org.spillway.gpu.device.CudaException;
import org.spillway.gpu.device.CudaStream;
import org.spillway.gpu.device.DevicePointer;
import org.spillway.gpu.device.HostMemoryKind;
import org.spillway.gpu.device.HostPointer;
import org.spillway.gpu.vector.IndexedColumns.HeldValues;

/**
 * A join's build columns made in GPU memory straight from a table's batches where these lie in pinned host memory (a
 * bare scan's output: Q9's orders and partsupp, Q12's and Q7's orders): 8-byte values are copied by DMA, 4-byte ones
 * widened, and two 4-byte key columns packed into one 64-bit key, by kernels that read the batches through their
 * mapping. Each value crosses the link once, at its own width, and the host writes nothing: the staged upload writes
 * every value as 64 bits into pinned staging buffers first, on the host's cores, at a fraction of the link's rate.
 */
final class PinnedRegions {
  /** System property: {@code false} uploads such columns through the staged upload, as before (for comparisons). */
  static final String PROPERTY = "spillway.gpu.pinnedBuilds";
  static final boolean ENABLED = !"false".equals(System.getProperty(PROPERTY));

  private PinnedRegions() {}

  /**
   * The device-visible addresses of the regions' pinned host memory (0 for an empty region), or null where one does not
   * lie in pinned memory (pageable or managed batches go through the staged upload).
   */
  static long[] mapped(CudaDevice device, List<HeldValues> held) {
    long[] out = new long[held.size()];
    for (int i = 0; i < out.length; i++) {
      HeldValues h = held.get(i);
      if (h.rows() == 0) {
        continue;
      }
      if (HostMemoryKind.of(device, h.address()) != HostMemoryKind.PINNED) {
        return null;
      }
      out[i] = HostMemoryKind.mappedDeviceAddress(device, h.address());
    }
    return out;
  }

  /** Bytes of the regions' values: what crosses the link. */
  static long bytes(List<HeldValues> held) {
    return held.stream().mapToLong(h -> h.width() * h.rows()).sum();
  }

  /** Writes the regions' values, one region after the other, as 64-bit integers at {@code target} on {@code stream}. */
  static void widen(CudaDevice device, GpuKernels kernels, List<HeldValues> held, long[] mapped, long target,
      CudaStream stream) {
    long row = 0;
    for (int i = 0; i < held.size(); i++) {
      HeldValues h = held.get(i);
      if (h.rows() == 0) {
        continue;
      }
      long at = target + row * 8;
      if (h.width() == 8) {
        CudaException.check(cuMemcpyHtoDAsync(new DevicePointer(at), new HostPointer(h.address()), h.rows() * 8,
            stream.handle()), "cuMemcpyHtoDAsync(a build column's pinned batch, " + h.rows() * 8 + " bytes)");
      } else {
        kernels.widen.launch(blocks(device, h.rows()), 256, stream, mapped[i], at, h.rows());
      }
      row += h.rows();
    }
  }

  /** Whether two columns' regions pack on the GPU: 4-byte values in batches of the same rows. */
  static boolean packable(List<HeldValues> high, List<HeldValues> low) {
    if (high == null || low == null || high.size() != low.size()) {
      return false;
    }
    for (int i = 0; i < high.size(); i++) {
      if (high.get(i).width() != 4 || low.get(i).width() != 4 || high.get(i).rows() != low.get(i).rows()) {
        return false;
      }
    }
    return true;
  }

  /**
   * Writes the 64-bit keys packed from two {@link #packable} columns' regions (the high column's bits above the low
   * column's) at {@code target} on {@code stream}.
   */
  static void pack(CudaDevice device, GpuKernels kernels, List<HeldValues> high, long[] mappedHigh, long[] mappedLow,
      long target, CudaStream stream) {
    long row = 0;
    for (int i = 0; i < high.size(); i++) {
      long rows = high.get(i).rows();
      if (rows > 0) {
        kernels.packKeys.launch(blocks(device, rows), 256, stream, mappedHigh[i], mappedLow[i], target + row * 8, rows);
      }
      row += rows;
    }
  }

  private static int blocks(CudaDevice device, long rows) {
    return (int) Math.min((rows + 255) / 256, (long) device.multiprocessors() * 8);
  }
}
