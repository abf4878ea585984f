package org.spillway.gpu.join.triton;

import static jcuda.driver.JCudaDriver.cuMemsetD8Async;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.spillway.gpu.device.CudaDevice;
import org.spillway.gpu.device.CudaEvent;
import org.spillway.gpu.device.CudaException;
import org.spillway.gpu.device.CudaKernel;
import org.spillway.gpu.device.CudaModule;
import org.spillway.gpu.device.CudaStream;
import org.spillway.gpu.device.DeviceAllocator;
import org.spillway.gpu.device.DeviceBuffer;
import org.spillway.gpu.device.DevicePointer;
import org.spillway.gpu.join.JoinType;

/**
 * One of the Triton join phase's two streams (Lutz et al., SIGMOD '22, Sec. 5.2) with its buffers, sized for
 * the largest partition pair. Per first-pass partition it queues: the pass-2 prefix sum and transform of both
 * sides (triton_transform: the partition's regions, over the link where spilled, into contiguous GPU
 * memory), the scan of their histograms, the Shared second pass of both sides, and the joins of the
 * sub-partition pairs. Partitions alternate between the two streams, so one partition's transfer-bound
 * transform overlaps the other's compute-bound second pass and join.
 */
final class TritonStream implements AutoCloseable {
  static final String MODULE = "join/triton/triton_join";
  static final int TRANSFORM_THREADS = 1024;
  static final int JOIN_THREADS = 512;

  /** One side's first-pass output as the join phase reads it. */
  record Partitioned(PartitionArray array, PartitionLayout layout, DeviceBuffer regionOffsets,
      DeviceBuffer regionPrefix) {}

  /** The join-phase kernels of triton_join.cu. */
  record Kernels(CudaKernel transform, CudaKernel scan, CudaKernel join, CudaKernel overflow, CudaKernel finish) {
    static Kernels of(CudaDevice device) {
      CudaModule m = device.module(MODULE);
      return new Kernels(m.kernel("triton_transform"), m.kernel("triton_scan"), m.kernel("triton_join"),
          m.kernel("triton_join_overflow"), m.kernel("triton_join_finish"));
    }
  }

  private final CudaStream stream;
  private final CudaEvent done;
  private final Kernels kernels;
  private final SharedPartitioner pass2;
  private final TritonSizing.Plan plan;
  private final TritonSizing.Device device;
  private final int capacity;
  private final List<DeviceBuffer> buffers = new ArrayList<>();
  private final DeviceBuffer stagingBuild;
  private final DeviceBuffer stagingProbe;
  private final DeviceBuffer outBuild;
  private final DeviceBuffer outProbe;
  private final DeviceBuffer histBuild;
  private final DeviceBuffer histProbe;
  private final DeviceBuffer offBuild;
  private final DeviceBuffer offProbe;
  private final DeviceBuffer subBuild;
  private final DeviceBuffer subProbe;
  private final DeviceBuffer items;
  private final DeviceBuffer matched;

  TritonStream(CudaDevice cuda, CudaStream stream, Kernels kernels, SharedPartitioner pass2, TritonSizing.Plan plan,
      TritonSizing.Device device, int capacity, boolean matchFlags) {
    this.stream = stream;
    this.kernels = kernels;
    this.pass2 = pass2;
    this.plan = plan;
    this.device = device;
    this.capacity = capacity;
    this.done = cuda.newEvent(false);
    DeviceAllocator a = cuda.allocator();
    long regions = (1L << plan.bits2()) * device.pass2Blocks();
    try {
      stagingBuild = take(a, 16 * plan.maxBuildRows(), "build partition");
      stagingProbe = take(a, 16 * plan.maxProbeRows(), "probe partition");
      outBuild = take(a, 16 * plan.maxBuildRows(), "build sub-partitions");
      outProbe = take(a, 16 * plan.maxProbeRows(), "probe sub-partitions");
      histBuild = take(a, 4 * regions, "build pass-2 histogram");
      histProbe = take(a, 4 * regions, "probe pass-2 histogram");
      offBuild = take(a, 4 * regions, "build pass-2 offsets");
      offProbe = take(a, 4 * regions, "probe pass-2 offsets");
      subBuild = take(a, 4 * ((1L << plan.bits2()) + 1), "build sub-partition bounds");
      subProbe = take(a, 4 * ((1L << plan.bits2()) + 1), "probe sub-partition bounds");
      items = take(a, 8 * ((1L << plan.bits2()) + 1), "overflow work items");
      matched = matchFlags ? take(a, plan.maxProbeRows(), "probe match flags") : null;
      if (matched != null) {
        CudaException.check(cuMemsetD8Async(matched.pointer(), (byte) 0, matched.bytes(), stream.handle()),
            "cuMemsetD8Async(match flags)");
      }
    } catch (RuntimeException e) {
      close();
      throw e;
    }
  }

  private DeviceBuffer take(DeviceAllocator a, long bytes, String what) {
    DeviceBuffer b = a.allocate(Math.max(16, bytes), "Triton join phase: " + what);
    buffers.add(b);
    return b;
  }

  CudaStream stream() {
    return stream;
  }

  /** Queues the pass-2 partitioning and join of first-pass partition {@code p} of both sides. */
  void enqueue(Partitioned build, Partitioned probe, int p, JoinType type, TritonOutput output) {
    int rowsBuild = (int) build.layout().partitionRows(p);
    int rowsProbe = (int) probe.layout().partitionRows(p);
    if (rowsProbe == 0 || (rowsBuild == 0 && (type == JoinType.INNER || type == JoinType.SEMI))) {
      return;  // no output row can come from this pair
    }
    int bits1 = plan.bits1();
    int bits2 = plan.bits2();
    int blocks2 = device.pass2Blocks();
    transform(build, p, rowsBuild, stagingBuild, histBuild);
    transform(probe, p, rowsProbe, stagingProbe, histProbe);
    kernels.scan().launch(1, 1024, stream, histBuild.pointer(), histProbe.pointer(), 1 << bits2, blocks2,
        offBuild.pointer(), offProbe.pointer(), subBuild.pointer(), subProbe.pointer(), capacity,
        TritonSizing.PROBE_CHUNK, items.pointer());
    pass2.partition(stagingBuild.pointer(), rowsBuild, blocks2, offBuild.pointer(), outBuild.pointer(), bits1, bits2,
        plan.pass2L1Tuples(), false, stream);
    pass2.partition(stagingProbe.pointer(), rowsProbe, blocks2, offProbe.pointer(), outProbe.pointer(), bits1,
        bits2, plan.pass2L1Tuples(), false, stream);
    int tableBytes = TritonSizing.tableBytes(capacity);
    Object[] out = output.kernelArgs();
    kernels.join().launch(device.joinBlocks(), JOIN_THREADS, tableBytes, stream, concat(new Object[] {
        outBuild.pointer(), subBuild.pointer(), outProbe.pointer(), subProbe.pointer(), 1 << bits2, bits1 + bits2,
        capacity, type.ordinal()}, out));
    DevicePointer flags = new DevicePointer(matched == null ? 0 : matched.address());
    kernels.overflow().launch(device.joinBlocks(), JOIN_THREADS, tableBytes, stream, concat(new Object[] {
        outBuild.pointer(), subBuild.pointer(), outProbe.pointer(), subProbe.pointer(), 1 << bits2, bits1 + bits2,
        capacity, TritonSizing.PROBE_CHUNK, items.pointer(), type.ordinal(), flags}, out));
    if (type != JoinType.INNER) {
      kernels.finish().launch(device.joinBlocks(), JOIN_THREADS, stream, concat(new Object[] {
          subBuild.pointer(), outProbe.pointer(), subProbe.pointer(), 1 << bits2, capacity, type.ordinal(), flags},
          out));
    }
    done.record(stream);
  }

  private void transform(Partitioned side, int p, int rows, DeviceBuffer staging, DeviceBuffer hist) {
    int blocks = side.layout().blocks();
    int shared = 4 * (blocks + 1 + (1 << plan.bits2()));
    kernels.transform().launch(device.pass2Blocks(), TRANSFORM_THREADS, shared, stream, side.array().pageTable(),
        side.array().logPage(), side.regionOffsets().pointer(8L * p * blocks),
        side.regionPrefix().pointer(4L * p * (blocks + 1)), blocks, rows, staging.pointer(), hist.pointer(),
        plan.bits1(), plan.bits2());
  }

  private static Object[] concat(Object[] a, Object[] b) {
    Object[] out = Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, out, a.length, b.length);
    return out;
  }

  @Override
  public void close() {
    try {
      stream.synchronize();  // kernels in flight still use the buffers
    } finally {
      done.close();
      for (DeviceBuffer b : buffers) {
        b.close();
      }
    }
  }
}
