package org.spillway.gpu.bench;

import static jcuda.driver.JCudaDriver.cuMemcpyDtoH;
import static jcuda.driver.JCudaDriver.cuMemcpyHtoDAsync;
import static jcuda.driver.JCudaDriver.cuMemsetD8;

import java.lang.management.ManagementFactory;
import java.util.Arrays;
import java.util.List;
import jcuda.Pointer;
import org.spillway.gpu.device.CudaDevice;
import org.spillway.gpu.device.CudaEvent;
import org.spillway.gpu.device.CudaException;
import org.spillway.gpu.device.CudaStream;
import org.spillway.gpu.device.DeviceBuffer;
import org.spillway.gpu.device.HostPointer;
import org.spillway.gpu.ops.GpuColumnSum;
import org.spillway.gpu.ops.SumResult;
import org.spillway.gpu.transfer.ColumnType;
import org.spillway.gpu.transfer.HostColumn;
import org.spillway.gpu.transfer.TransferMethod;
import org.spillway.gpu.transfer.TransferOptions;
import org.spillway.gpu.transfer.TransferPipeline;

/**
 * Times one transfer method streaming INT64 columns into the sum kernel: a warm-up run, then
 * {@code reps} runs timed with CUDA events, each checked against the expected (CPU) sums.
 */
public final class MethodTimer {
  /** GB/s (1e9 bytes per second) and CPU cores busy (process CPU time over wall time) per repetition. */
  public record Timing(double[] gbPerSecond, double[] cpuCores) {
    public double medianGbPerSecond() {
      return median(gbPerSecond);
    }

    public double medianCpuCores() {
      return median(cpuCores);
    }
  }

  private MethodTimer() {}

  public static Timing time(CudaDevice device, TransferMethod method, TransferOptions options, List<HostColumn> columns,
      List<SumResult> expected, int reps) {
    return time(device, method, options, GpuColumnSum.DEFAULT_BLOCKS_PER_SM, columns, expected, reps);
  }

  /** As above, with the sum kernel's grid limited to {@code blocksPerSm} blocks per SM. */
  public static Timing time(CudaDevice device, TransferMethod method, TransferOptions options, int blocksPerSm,
      List<HostColumn> columns, List<SumResult> expected, int reps) {
    double[] gbs = new double[reps];
    double[] cores = new double[reps];
    long bytes = columns.stream().mapToLong(HostColumn::byteLength).sum();
    try (TransferPipeline pipeline = new TransferPipeline(device, method, options);
         DeviceBuffer sums = device.allocator().allocate(8L * columns.size(), "timed sums");
         CudaEvent start = device.newEvent(true);
         CudaEvent end = device.newEvent(true)) {
      GpuColumnSum gpu = new GpuColumnSum(pipeline, blocksPerSm);
      for (int r = -1; r < reps; r++) {  // r = -1 warms up (module load, pipeline buffers, JIT)
        pipeline.evictToHost(columns);  // UM methods start from host-resident pages every time
        CudaException.check(cuMemsetD8(sums.pointer(), (byte) 0, 8L * columns.size()), "cuMemsetD8");
        long cpu0 = processCpuNanos();
        long t0 = System.nanoTime();
        start.record(pipeline.firstStream());
        for (int c = 0; c < columns.size(); c++) {
          pipeline.run(List.of(columns.get(c)), gpu.consumer(ColumnType.INT64, sums, 8L * c));
        }
        end.record(pipeline.firstStream());
        float ms = end.elapsedMillisSince(start);
        long wall = System.nanoTime() - t0;
        check(sums, expected, method.label());
        if (r >= 0) {
          gbs[r] = bytes / (ms * 1e6);
          cores[r] = (processCpuNanos() - cpu0) / (double) wall;
        }
      }
    }
    return new Timing(gbs, cores);
  }

  /**
   * GB/s of plain cuMemcpyHtoDAsync of each (pinned) column into one device buffer, per repetition:
   * the link's DMA ceiling that the methods are compared with.
   */
  public static double[] rawPinnedCopy(CudaDevice device, List<HostColumn> columns, int reps) {
    long largest = columns.stream().mapToLong(HostColumn::byteLength).max().orElse(0);
    long bytes = columns.stream().mapToLong(HostColumn::byteLength).sum();
    double[] gbs = new double[reps];
    try (DeviceBuffer target = device.allocator().allocate(largest, "raw copy target");
         CudaStream stream = device.newStream();
         CudaEvent start = device.newEvent(true);
         CudaEvent end = device.newEvent(true)) {
      for (int r = -1; r < reps; r++) {  // r = -1 warms up
        start.record(stream);
        for (HostColumn c : columns) {
          CudaException.check(cuMemcpyHtoDAsync(target.pointer(), new HostPointer(c.address()), c.byteLength(),
              stream.handle()), "cuMemcpyHtoDAsync(" + c.byteLength() + " bytes)");
        }
        end.record(stream);
        float ms = end.elapsedMillisSince(start);
        if (r >= 0) {
          gbs[r] = bytes / (ms * 1e6);
        }
      }
    }
    return gbs;
  }

  private static void check(DeviceBuffer sums, List<SumResult> expected, String label) {
    long[] actual = new long[expected.size()];
    CudaException.check(cuMemcpyDtoH(Pointer.to(actual), sums.pointer(), 8L * actual.length), "cuMemcpyDtoH");
    for (int c = 0; c < actual.length; c++) {
      if (actual[c] != expected.get(c).integerSum()) {
        throw new IllegalStateException(label + ": GPU sum of column " + c + " is " + actual[c] + ", CPU says "
            + expected.get(c).integerSum());
      }
    }
  }

  /** CPU time of this process in nanoseconds (0 where the JVM does not report it). */
  public static long processCpuNanos() {
    var os = ManagementFactory.getOperatingSystemMXBean();
    return os instanceof com.sun.management.OperatingSystemMXBean sun ? sun.getProcessCpuTime() : 0;
  }

  public static double median(double[] values) {
    double[] v = values.clone();
    Arrays.sort(v);
    int n = v.length;
    return n == 0 ? Double.NaN : n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
  }
}
