package org.spillway.gpu.join.nopa;

import static jcuda.driver.JCudaDriver.cuMemcpyDtoH;
import static jcuda.driver.JCudaDriver.cuMemcpyHtoD;

import java.util.ArrayList;
import java.util.List;
import jcuda.Pointer;
import org.spillway.gpu.device.CudaDevice;
import org.spillway.gpu.device.CudaException;
import org.spillway.gpu.device.CudaKernel;
import org.spillway.gpu.device.DeviceBuffer;
import org.spillway.gpu.join.HostJoinInput;

/**
 * Builds the table of one {@link NopaJoinRun} over R: picks the table kind and placement from R's key statistics
 * and inserts R, streaming it through the run's transfer pipeline; the tables belong to the run.
 */
final class NopaTableBuilder {
  /** Room for build rows with key -1 in a speculative build; with more, the table is built again with room. */
  private static final long SPECULATIVE_SIDE = 1 << 16;
  private static final int BLOCK = NopaKernels.BLOCK_THREADS;

  private final NopaJoinRun run;
  private final CudaDevice device;
  private final NopaOptions options;
  private final HostJoinInput build;
  private final int valueMode;
  private final long budget;
  private final NopaKernels kernels;

  /** {@code valueMode}: what R's rows carry (NopaKernels.VALUE_*); {@code budget}: GPU bytes for the table. */
  NopaTableBuilder(NopaJoinRun run, CudaDevice device, NopaOptions options, HostJoinInput build, int valueMode,
      long budget) {
    this.run = run;
    this.device = device;
    this.options = options;
    this.build = build;
    this.valueMode = valueMode;
    this.budget = budget;
    this.kernels = run.kernelsFor(build);
  }

  /**
   * Builds R's table. Where a linear-probing table for all |R| rows fits the GPU budget (and no other placement is
   * forced), one pass inserts R and gathers its key statistics together, and if those show dense keys the table
   * moves into NOPA's array table within GPU memory. Otherwise a pass over R's keys gathers the statistics first,
   * which then choose, size and place the table. Either way the array table serves exactly when the CPU join's
   * would: dense keys, none repeated.
   */
  NopaHashTable build() {
    BuildKeyStats stats = null;
    NopaHashTable speculative = null;
    // Linear probing sized for every row of R, NULL or not: known before anything is read.
    NopaTableLayout lp = NopaTableLayout.plan(new BuildKeyStats(0, 0, build.rows(), 0), false, null, budget);
    if (build.rows() > 0 && lp.placement() == HashTablePlacement.GPU
        && (options.placement() == null || options.placement() == HashTablePlacement.GPU)) {
      try (DeviceBuffer statsOut = newStats()) {
        speculative = insert(lp, Math.min(build.rows(), SPECULATIVE_SIDE), statsOut);
        stats = readStats(statsOut);
      }
      run.mark("build");
      if (speculative.sideCount() > speculative.sideCapacity()) {  // too many keys -1: build again with room
        run.drop(speculative);
        speculative = null;
      }
    }
    if (stats == null) {
      stats = keyStats();
      run.mark("key-stats");
    }
    boolean perfect = stats.denseEnoughForPerfectHashing();
    if (speculative != null) {
      if (!perfect) {
        return speculative;
      }
      NopaTableLayout array = NopaTableLayout.plan(stats, true, null, budget - speculative.layout().gpuBytes());
      if (array.placement() == HashTablePlacement.GPU) {
        NopaHashTable converted = toPerfect(speculative, array, stats);
        if (converted == null) {  // a key repeats: linear probing stays, as in CpuNopaHashJoin
          return speculative;
        }
        run.drop(speculative);
        return converted;
      }
      run.drop(speculative);  // no room for both: the array table gets built from R again
    }
    NopaHashTable table = insert(NopaTableLayout.plan(stats, perfect, options.placement(), budget), stats.minusOnes(),
        null);
    run.mark("build");
    if (perfect && table.duplicateFound()) {
      run.drop(table);
      run.mark("build-perfect-abandoned");
      table = insert(NopaTableLayout.plan(stats, false, options.placement(), budget), stats.minusOnes(), null);
      run.mark("build");
    }
    return table;
  }

  /** Minimum, maximum, non-NULL rows and rows with key -1 of R, in one pass over its keys. */
  private BuildKeyStats keyStats() {
    if (build.rows() == 0) {
      return BuildKeyStats.EMPTY;
    }
    try (DeviceBuffer statsOut = newStats();
         NopaSide side = new NopaSide(device, build, NopaKernels.VALUE_ZERO, options.transfer().slots())) {
      CudaKernel kernel = kernels.keyStats();
      run.run(side, 0, build.rows(), (chunk, stream) -> {
        List<Object> args = side.chunkArgs(chunk, stream);
        args.add(statsOut.pointer());
        kernel.launch(kernels.blocks(chunk.rowCount()), BLOCK, stream, args.toArray());
      });
      return readStats(statsOut);
    }
  }

  private DeviceBuffer newStats() {
    DeviceBuffer buffer = device.allocator().allocate(4L * Long.BYTES, "NOPA key statistics");
    long[] empty = {Long.MAX_VALUE, Long.MIN_VALUE, 0, 0};
    CudaException.check(cuMemcpyHtoD(buffer.pointer(), Pointer.to(empty), 4L * Long.BYTES), "cuMemcpyHtoD(key stats)");
    return buffer;
  }

  private BuildKeyStats readStats(DeviceBuffer buffer) {
    long[] s = new long[4];
    CudaException.check(cuMemcpyDtoH(Pointer.to(s), buffer.pointer(), 4L * Long.BYTES), "cuMemcpyDtoH(key stats)");
    run.addBytesToHost(4L * Long.BYTES);
    return new BuildKeyStats(s[0], s[1], s[2], s[3]);
  }

  /**
   * Allocates and clears the table of {@code plan} with room for {@code sideRoom} rows of key -1 and inserts R's
   * non-NULL rows; with {@code statsOut} the same pass gathers R's key statistics there (linear probing only).
   */
  private NopaHashTable insert(NopaTableLayout plan, long sideRoom, DeviceBuffer statsOut) {
    NopaHashTable table = run.own(new NopaHashTable(device, plan, sideRoom));
    run.mark(NopaJoinRun.TABLE_ALLOC);
    table.clear(kernels, run.stream());
    run.stream().synchronize();  // chunks run on every slot's stream: the table must be empty first
    if (build.rows() == 0) {
      return table;
    }
    CudaKernel kernel = statsOut != null ? kernels.buildWithStats() : kernels.build(plan.kind());
    List<Object> tableArgs = table.args();
    try (NopaSide side = new NopaSide(device, build, valueMode, options.transfer().slots())) {
      run.run(side, 0, build.rows(), (chunk, stream) -> {
        List<Object> args = side.chunkArgs(chunk, stream);
        args.addAll(tableArgs);
        args.add(table.duplicateFlag());
        if (statsOut != null) {
          args.add(statsOut.pointer());
        }
        kernel.launch(kernels.blocks(chunk.rowCount()), BLOCK, stream, args.toArray());
      });
    }
    table.sideFilled(Math.min(table.sideCount(), table.sideCapacity()));  // the probe reads no unfilled room
    return table;
  }

  /**
   * Moves the speculative linear-probing table (all in GPU memory) into the array table {@code plan}; returns
   * null, releasing the array table, if a key repeats.
   */
  private NopaHashTable toPerfect(NopaHashTable lp, NopaTableLayout plan, BuildKeyStats stats) {
    NopaHashTable table = run.own(new NopaHashTable(device, plan, stats.minusOnes()));
    run.mark(NopaJoinRun.TABLE_ALLOC);
    table.clear(kernels, run.stream());
    List<Object> args = new ArrayList<>(List.of(lp.gpuAddress(), lp.layout().slots(), lp.sideAddress()));
    args.addAll(table.args());
    args.add(table.duplicateFlag());
    kernels.linearProbingToPerfect().launch(kernels.blocks(lp.layout().slots()), BLOCK, run.stream(),
        args.toArray());
    run.stream().synchronize();
    run.mark("to-perfect-hash");
    if (table.duplicateFound()) {
      run.drop(table);
      return null;
    }
    return table;
  }
}
