package org.spillway.gpu.join.triton;

import java.util.function.BooleanSupplier;
import jcuda.driver.CUdevice_attribute;
import org.spillway.gpu.device.CudaDevice;
import org.spillway.gpu.device.CudaStream;
import org.spillway.gpu.join.GpuEquiJoin;
import org.spillway.gpu.join.GpuJoinStats;
import org.spillway.gpu.join.HostJoinInput;
import org.spillway.gpu.join.JoinOutput;
import org.spillway.gpu.join.JoinResult;
import org.spillway.gpu.join.JoinType;
import org.spillway.gpu.join.JoinWorkers;

/**
 * The Triton join (Lutz et al., "Triton Join: Efficiently Scaling to a Large Join State on GPUs with Fast
 * Interconnects", SIGMOD '22): a radix-partitioned hash join run entirely by the GPU over relations in pinned
 * host memory, whose partitioned state may exceed GPU memory. Its phases:
 * <ol>
 *   <li>prefix sum: a histogram per thread block over both key columns, read over the link;</li>
 *   <li>first pass: {@link HierarchicalPartitioner} on B1 hash bits, reading keys and payloads (or
 *   generating row ids) over the link into a {@link PartitionArray} cached in GPU memory for a share of
 *   its pages and spilled to pinned host memory for the rest (the hybrid hash join's cache, Sec. 5.3);</li>
 *   <li>join phase, per partition pair on two alternating streams ({@link TritonStream}): the pair is
 *   copied into GPU memory, split by the {@link SharedPartitioner} on the next B2 bits, and every
 *   sub-partition pair is joined with a bucket-chaining table in shared memory. Build sides too large for
 *   the table (skew) take the hash-based block-nested-loop overflow path of Sioulas et al. (ICDE '19).</li>
 * </ol>
 * B1, B2 and the cache share follow from the GPU memory budget ({@link TritonSizing}) unless
 * {@link TritonOptions} sets them. Results equal the CPU joins' for every {@link JoinType} and both outputs.
 */
public final class TritonJoin implements GpuEquiJoin {
  private final CudaDevice device;
  private final TritonOptions options;
  private final HierarchicalPartitioner pass1;
  private final SharedPartitioner pass2;
  private final TritonStream.Kernels kernels;
  private final TritonSizing.Device facts;
  private CudaStream[] streams;
  private JoinWorkers cpuWorkers;
  private volatile GpuJoinStats lastStats;

  /** A Triton join on {@code device} that sizes itself for the device allocator's budget. */
  public TritonJoin(CudaDevice device) {
    this(device, TritonOptions.DEFAULT);
  }

  public TritonJoin(CudaDevice device, TritonOptions options) {
    this.device = device;
    this.options = options;
    this.pass1 = new HierarchicalPartitioner(device);
    this.pass2 = new SharedPartitioner(device);
    this.kernels = TritonStream.Kernels.of(device);
    this.facts = new TritonSizing.Device(device.multiprocessors(),
        device.attribute(CUdevice_attribute.CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN));
  }

  public TritonOptions options() {
    return options;
  }

  @Override
  public String name() {
    return "triton";
  }

  @Override
  public GpuJoinStats lastStats() {
    return lastStats;
  }

  @Override
  public synchronized JoinResult join(HostJoinInput build, HostJoinInput probe, JoinType type, JoinOutput output,
      BooleanSupplier cancelled) {
    build.checkUsableFor(output, "build");
    probe.checkUsableFor(output, "probe");
    if (output == JoinOutput.MATERIALIZED && Math.max(build.rows(), probe.rows()) > Integer.MAX_VALUE) {
      throw new IllegalArgumentException("TritonJoin materializes int row ids; inputs of " + build.rows() + " and "
          + probe.rows() + " rows exceed them");
    }
    device.makeCurrent();
    if (streams == null) {
      streams = new CudaStream[] {device.newStream(), device.newStream()};
    }
    if (options.cpuPrefixSum() && cpuWorkers == null) {
      cpuWorkers = new JoinWorkers(Runtime.getRuntime().availableProcessors(), "triton-prefix-sum");
    }
    try (TritonRun run = new TritonRun(device, options, facts, streams, pass1, pass2, kernels, cpuWorkers)) {
      JoinResult result = run.execute(build, probe, type, output, cancelled);
      lastStats = run.stats();
      return result;
    }
  }

  @Override
  public synchronized void close() {
    if (cpuWorkers != null) {
      cpuWorkers.close();
      cpuWorkers = null;
    }
    if (streams != null) {
      try (CudaStream a = streams[0]; CudaStream b = streams[1]) {
        streams = null;
      }
    }
  }
}
