package org.spillway.gpu.join.nopa;

import java.util.function.BooleanSupplier;
import org.spillway.gpu.device.CudaDevice;
import org.spillway.gpu.join.GpuEquiJoin;
import org.spillway.gpu.join.GpuJoinStats;
import org.spillway.gpu.join.HostJoinInput;
import org.spillway.gpu.join.JoinOutput;
import org.spillway.gpu.join.JoinResult;
import org.spillway.gpu.join.JoinType;

/**
 * The no-partitioning hash join (NOPA) of Lutz et al., "Pump Up the Volume" (SIGMOD 2020), on the GPU: R and S
 * stream from host memory through a transfer method in chunks; the GPU builds one shared table over R (NOPA's
 * array table for dense unique keys, else linear probing at load factor 1/2) and probes it with S, fusing the
 * output into count and sums or materializing row pairs. The table sits in GPU memory, in pinned host memory or
 * split between them (the hybrid table), chosen against the GPU budget unless {@link NopaOptions} forces it.
 * Results equal {@link CpuNopaHashJoin}'s; kernels in {@code src/main/cuda/nopa_hash_join.cu}.
 *
 * <p>{@link #lastStats()} times the phases key-stats, table-alloc, build and probe with CUDA events; its total
 * leaves the table's allocation out (P1's methodology). Host atomics: the build of a host or hybrid table claims
 * slots in mapped pinned host memory with GPU atomicCAS, which is atomic among the GPU's threads over PCIe even
 * where the device reports no host-native atomics (the host never touches the table while the GPU builds it).
 */
public final class NopaHashJoin implements GpuEquiJoin {
  private final CudaDevice device;
  private final NopaOptions options;
  private volatile GpuJoinStats lastStats;

  /** A join with the default options: zero-copy, placement chosen against the device budget. */
  public NopaHashJoin(CudaDevice device) {
    this(device, NopaOptions.DEFAULT);
  }

  public NopaHashJoin(CudaDevice device, NopaOptions options) {
    var support = options.method().support(device);
    if (!support.supported()) {
      throw new UnsupportedOperationException("NOPA join cannot stream with " + options.method().label() + " on "
          + device + ": " + support.reason());
    }
    this.device = device;
    this.options = options;
    device.module(NopaKernels.MODULE);  // fail here, not in the first join, if the kernels are missing
  }

  @Override public String name() {
    return "nopa";
  }

  public NopaOptions options() {
    return options;
  }

  @Override
  public JoinResult join(HostJoinInput build, HostJoinInput probe, JoinType type, JoinOutput output,
      BooleanSupplier cancelled) {
    build.checkUsableFor(output, "build");
    probe.checkUsableFor(output, "probe");
    if (output == JoinOutput.MATERIALIZED && Math.max(build.rows(), probe.rows()) > Integer.MAX_VALUE) {
      throw new IllegalArgumentException("NOPA join: materialized row ids are ints, but the build side has "
          + build.rows() + " and the probe side " + probe.rows() + " rows");
    }
    try (NopaJoinRun run = new NopaJoinRun(device, options, build, probe, type, output, cancelled)) {
      JoinResult result = run.execute();
      lastStats = run.stats();
      return result;
    }
  }

  @Override public GpuJoinStats lastStats() {
    return lastStats;
  }

  /** Nothing to release: every buffer goes back when its join ends, and the kernel module stays with the device. */
  @Override public void close() {}
}
