package org.spillway.gpu.calibrate;

import static jcuda.driver.JCudaDriver.cuMemcpyDtoH;
import static jcuda.driver.JCudaDriver.cuMemsetD8Async;

import java.util.List;
import jcuda.Pointer;
import org.spillway.gpu.bench.MethodTimer;
import org.spillway.gpu.bench.RandomFill;
import org.spillway.gpu.device.CudaDevice;
import org.spillway.gpu.device.CudaEvent;
import org.spillway.gpu.device.CudaException;
import org.spillway.gpu.device.CudaKernel;
import org.spillway.gpu.device.CudaStream;
import org.spillway.gpu.device.DeviceBuffer;
import org.spillway.gpu.device.DevicePointer;
import org.spillway.gpu.device.GpuRuntime;
import org.spillway.gpu.device.HostMemoryKind;
import org.spillway.gpu.transfer.ColumnType;
import org.spillway.gpu.transfer.HostColumn;

/**
 * Times the link_probe kernels (src/main/cuda/link_probe.cu): reads at a granularity, sequential or
 * random (over one region, over its slices one launch each, or sweeping it window by window in one launch), from any
 * device-visible memory (mapped pinned host memory, or device memory), and sequential writes. Each measurement is a
 * warm-up plus {@code reps} runs timed with CUDA events.
 */
public final class LinkProbe implements AutoCloseable {
  private static final int BLOCK_THREADS = 256;

  private final CudaDevice device;
  private final CudaKernel read;
  private final CudaKernel sweep;
  private final CudaKernel write;
  private final CudaStream stream;
  private final CudaEvent start;
  private final CudaEvent end;
  private final DeviceBuffer sink;
  private final int blocks;

  public LinkProbe(CudaDevice device) {
    this.device = device;
    this.read = device.module("calibrate/link_probe").kernel("link_read");
    this.sweep = device.module("calibrate/link_probe").kernel("link_read_sweep");
    this.write = device.module("calibrate/link_probe").kernel("link_write");
    this.stream = device.newStream();
    this.start = device.newEvent(true);
    this.end = device.newEvent(true);
    this.sink = device.allocator().allocate(8, "link probe sink");
    // Eight blocks of 256 threads per SM: enough independent loads in flight to cover PCIe latency.
    this.blocks = device.multiprocessors() * 8;
  }

  /** Median seconds of {@code reps} runs of read({@code accesses} accesses of {@code granularity} bytes). */
  public double readSeconds(long address, long bufferBytes, int granularity, boolean random, long accesses, int reps) {
    long slots = powerOfTwoSlots(bufferBytes, granularity);
    return time(reps, () -> read.launch(blocks, BLOCK_THREADS, stream, new DevicePointer(address), slots,
        granularity, random ? 1 : 0, accesses, sink.pointer()));
  }

  /**
   * Median seconds of {@code reps} passes of random reads of {@code granularity} bytes over {@code slices}
   * consecutive slices of {@code sliceBytes} from {@code address}: one launch of {@code accesses} reads per slice,
   * launched one after another on one stream and timed together, so that every pass starts each slice with the
   * translations the slice before left cached (as the windowed index join's sliced lookups do).
   */
  public double slicedReadSeconds(long address, long sliceBytes, int slices, int granularity, long accesses,
      int reps) {
    long slots = powerOfTwoSlots(sliceBytes, granularity);
    return time(reps, () -> {
      for (int s = 0; s < slices; s++) {
        read.launch(blocks, BLOCK_THREADS, stream, new DevicePointer(address + s * sliceBytes), slots, granularity, 1,
            accesses, sink.pointer());
      }
    });
  }

  /**
   * Median seconds of {@code reps} launches of {@code accesses} random reads of {@code granularity} bytes that sweep
   * {@code windows} consecutive windows of {@code windowBytes} from {@code address} in one launch (link_read_sweep):
   * the reads of a window after those of the one before, so at any moment they fall into a window or two, as a
   * partitioned window's lookups in one launch walk an index column.
   */
  public double sweepReadSeconds(long address, long windowBytes, long windows, int granularity, long accesses,
      int reps) {
    long slots = powerOfTwoSlots(windowBytes, granularity);
    return time(reps, () -> sweep.launch(blocks, BLOCK_THREADS, stream, new DevicePointer(address), slots, windows,
        granularity, accesses, sink.pointer()));
  }

  /** The slots of {@code granularity} bytes in {@code bytes}, which must be a power of two of them. */
  private static long powerOfTwoSlots(long bytes, int granularity) {
    if (granularity != 4 && granularity != 8 && granularity % 16 != 0) {
      throw new IllegalArgumentException("granularity must be 4, 8 or a multiple of 16 bytes, got " + granularity);
    }
    long slots = bytes / granularity;
    if (Long.bitCount(slots) != 1) {
      throw new IllegalArgumentException("buffer of " + bytes + " bytes must hold a power-of-two number of "
          + granularity + "-byte slots");
    }
    return slots;
  }

  /** Median seconds of {@code reps} sequential 16-byte-store passes over {@code bytes} at {@code address}. */
  public double writeSeconds(long address, long bytes, int reps) {
    int[] seed = {1};
    return time(reps, () -> write.launch(blocks, BLOCK_THREADS, stream, new DevicePointer(address), bytes, seed[0]++));
  }

  /** The XOR of all data the last read launch read (see link_probe.cu), for checking the probe. */
  public long lastReadChecksum() {
    stream.synchronize();
    long[] value = {0};
    CudaException.check(cuMemcpyDtoH(Pointer.to(value), sink.pointer(), 8), "cuMemcpyDtoH(link probe sink)");
    return value[0];
  }

  private double time(int reps, Runnable launch) {
    double[] seconds = new double[reps];
    for (int r = -1; r < reps; r++) {
      CudaException.check(cuMemsetD8Async(sink.pointer(), (byte) 0, 8, stream.handle()), "cuMemsetD8Async(sink)");
      start.record(stream);
      launch.run();
      end.record(stream);
      double s = end.elapsedMillisSince(start) / 1e3;
      if (r >= 0) {
        seconds[r] = s;
      }
    }
    return MethodTimer.median(seconds);
  }

  /**
   * {@code LinkProbe [MiB]}: sequential zero-copy reads of pinned memory next to raw pinned cuMemcpy of
   * the same buffer, three rounds: a quick check of how close kernel reads over the link come to DMA.
   */
  public static void main(String[] args) {
    long bytes = (args.length > 0 ? Long.parseLong(args[0]) : 1024) << 20;
    CudaDevice device = GpuRuntime.requireDevice();
    try (var host = device.pinnedAllocator().allocate(bytes);
         LinkProbe probe = new LinkProbe(device)) {
      RandomFill.fill(host.address(), ColumnType.INT64, bytes / 8, 5);
      long mapped = HostMemoryKind.mappedDeviceAddress(device, host.address());
      var column = new HostColumn("probe", ColumnType.INT64, host.address(), bytes / 8);
      for (int round = 0; round < 3; round++) {
        double raw = MethodTimer.median(MethodTimer.rawPinnedCopy(device, List.of(column), 5));
        double plain = bytes / probe.readSeconds(mapped, bytes, 16, false, bytes / 16, 5) / 1e9;
        System.out.printf("raw pinned copy %.2f GB/s, zero-copy read %.2f GB/s (%.3f of raw)%n", raw, plain,
            plain / raw);
      }
    }
  }

  @Override
  public void close() {
    sink.close();
    start.close();
    end.close();
    stream.close();
  }
}
