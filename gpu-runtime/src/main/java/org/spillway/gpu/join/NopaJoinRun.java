package org.spillway.gpu.join;

import static jcuda.driver.JCudaDriver.cuMemcpyDtoH;
import static jcuda.driver.JCudaDriver.cuMemcpyHtoD;
import static jcuda.driver.JCudaDriver.cuMemsetD8;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.function.BooleanSupplier;
import jcuda.Pointer;
import org.spillway.gpu.cuda.CudaDevice;
import org.spillway.gpu.cuda.CudaEvent;
import org.spillway.gpu.cuda.CudaException;
import org.spillway.gpu.cuda.CudaKernel;
import org.spillway.gpu.memory.DeviceBuffer;
import org.spillway.gpu.transfer.ChunkConsumer;
import org.spillway.gpu.transfer.TransferMethod;
import org.spillway.gpu.transfer.TransferPipeline;

/**
 * One join of {@link NopaHashJoin}, start to result: the key statistics of R, the table's plan and build (the
 * array table first where R's keys are dense, linear probing if a key turns out to repeat), the probe of S, and
 * the rerun of probe chunks whose materialized pairs overflowed their buffer. It owns the transfer pipeline and
 * every buffer of the join and releases them in close; phases are timed with CUDA events on the first stream.
 */
final class NopaJoinRun implements AutoCloseable {
  /** Device memory kept free beside the table for small buffers, launch state and the driver. */
  private static final long WORKING_SLACK = 64L << 20;
  private static final int BLOCK = NopaKernels.BLOCK_THREADS;
  /**
   * The phase that allocates (and for host memory pins) the table; the join's total leaves it out, as Pump Up the
   * Volume's timings exclude allocation, but it is reported like every phase.
   */
  static final String TABLE_ALLOC = "table-alloc";

  private final CudaDevice device;
  private final NopaOptions options;
  private final HostJoinInput build;
  private final HostJoinInput probe;
  private final JoinType type;
  private final JoinOutput output;
  private final BooleanSupplier cancelled;
  private final int slots;
  private final TransferPipeline pipeline;
  private final List<AutoCloseable> owned = new ArrayList<>();
  private final List<String> phases = new ArrayList<>();
  private final List<CudaEvent> marks = new ArrayList<>();
  private long bytesToDevice;
  private long bytesToHost;
  private NopaTableLayout layout;

  NopaJoinRun(CudaDevice device, NopaOptions options, HostJoinInput build, HostJoinInput probe, JoinType type,
      JoinOutput output, BooleanSupplier cancelled) {
    this.device = device;
    this.options = options;
    this.build = build;
    this.probe = probe;
    this.type = type;
    this.output = output;
    this.cancelled = cancelled;
    this.slots = options.transfer().slots();
    device.makeCurrent();
    this.pipeline = new TransferPipeline(device, options.method(), options.transfer());
  }

  JoinResult execute() {
    mark("start");
    BuildKeyStats stats = keyStats();
    mark("key-stats");
    NopaHashTable table = buildTable(stats);
    mark("build");
    return output == JoinOutput.AGGREGATED ? probeAggregated(table) : probePairs(table);
  }

  /** Minimum, maximum, non-NULL rows and rows with key -1 of R, in one pass over its keys. */
  private BuildKeyStats keyStats() {
    if (build.rows() == 0) {
      return BuildKeyStats.EMPTY;
    }
    NopaKernels kernels = kernelsFor(build);
    try (DeviceBuffer result = device.allocator().allocate(4L * Long.BYTES, "NOPA key statistics");
         NopaSide side = new NopaSide(device, build, NopaKernels.VALUE_ZERO, slots)) {
      long[] s = {Long.MAX_VALUE, Long.MIN_VALUE, 0, 0};
      CudaException.check(cuMemcpyHtoD(result.pointer(), Pointer.to(s), 4L * Long.BYTES), "cuMemcpyHtoD(key stats)");
      CudaKernel kernel = kernels.keyStats();
      run(side, 0, build.rows(), (chunk, stream) -> {
        List<Object> args = side.chunkArgs(chunk, stream);
        args.add(result.pointer());
        kernel.launch(kernels.blocks(chunk.rowCount()), BLOCK, stream, args.toArray());
      });
      CudaException.check(cuMemcpyDtoH(Pointer.to(s), result.pointer(), 4L * Long.BYTES), "cuMemcpyDtoH(key stats)");
      bytesToHost += 4L * Long.BYTES;
      return new BuildKeyStats(s[0], s[1], s[2], s[3]);
    }
  }

  private NopaHashTable buildTable(BuildKeyStats stats) {
    boolean perfect = stats.denseEnoughForPerfectHashing();
    long budget = tableBudget();
    NopaHashTable table = insert(NopaTableLayout.plan(stats, perfect, options.placement(), budget), stats);
    if (perfect && table.duplicateFound()) {  // as CpuNopaHashJoin: a repeated key sends R to linear probing
      owned.remove(table);
      table.close();
      mark("build-perfect-abandoned");
      table = insert(NopaTableLayout.plan(stats, false, options.placement(), budget), stats);
    }
    layout = table.layout();
    return table;
  }

  /** Allocates and clears the table of {@code plan} and inserts R's non-NULL rows. */
  private NopaHashTable insert(NopaTableLayout plan, BuildKeyStats stats) {
    NopaHashTable table = own(new NopaHashTable(device, plan, stats.minusOnes()));
    mark(TABLE_ALLOC);
    NopaKernels kernels = kernelsFor(build);
    table.clear(kernels, pipeline.firstStream());
    pipeline.firstStream().synchronize();  // chunks run on every slot's stream: the table must be empty first
    if (stats.rows() == 0) {
      return table;
    }
    int mode = output == JoinOutput.MATERIALIZED ? NopaKernels.VALUE_ROW
        : type.existenceOnly() ? NopaKernels.VALUE_ZERO : NopaSide.payloadMode(build);
    CudaKernel kernel = kernels.build(plan.kind());
    List<Object> tableArgs = table.args();
    try (NopaSide side = new NopaSide(device, build, mode, slots)) {
      run(side, 0, build.rows(), (chunk, stream) -> {
        List<Object> args = side.chunkArgs(chunk, stream);
        args.addAll(tableArgs);
        args.add(table.duplicateFlag());
        kernel.launch(kernels.blocks(chunk.rowCount()), BLOCK, stream, args.toArray());
      });
    }
    return table;
  }

  private JoinResult probeAggregated(NopaHashTable table) {
    NopaKernels kernels = kernelsFor(probe);
    CudaKernel kernel = kernels.probe(layout.kind(), output);
    List<Object> tableArgs = table.args();
    try (DeviceBuffer sums = device.allocator().allocate(3L * Long.BYTES, "NOPA join aggregate");
         NopaSide side = new NopaSide(device, probe, NopaSide.payloadMode(probe), slots)) {
      CudaException.check(cuMemsetD8(sums.pointer(), (byte) 0, 3L * Long.BYTES), "cuMemsetD8(NOPA join aggregate)");
      run(side, 0, probe.rows(), (chunk, stream) -> {
        List<Object> args = side.chunkArgs(chunk, stream);
        args.add(type.ordinal());
        args.addAll(tableArgs);
        args.add(sums.pointer());
        kernel.launch(kernels.blocks(chunk.rowCount()), BLOCK, stream, args.toArray());
      });
      mark("probe");
      long[] a = new long[3];
      CudaException.check(cuMemcpyDtoH(Pointer.to(a), sums.pointer(), 3L * Long.BYTES), "cuMemcpyDtoH(aggregate)");
      bytesToHost += 3L * Long.BYTES;
      return JoinResult.aggregated(layout.variant(), a[0], a[1], a[2]);
    }
  }

  private JoinResult probePairs(NopaHashTable table) {
    NopaKernels kernels = kernelsFor(probe);
    CudaKernel kernel = kernels.probe(layout.kind(), output);
    List<Object> tableArgs = table.args();
    List<RowIdColumn> buildRows = new ArrayList<>();
    List<RowIdColumn> probeRows = new ArrayList<>();
    try (NopaSide side = new NopaSide(device, probe, NopaKernels.VALUE_ROW, slots)) {
      List<NopaPairOutput.Overflow> overflows;
      try (NopaPairOutput out = new NopaPairOutput(device, slots, pairCapacity(side))) {
        probeRange(side, kernel, tableArgs, out, 0, probe.rows());
        buildRows.add(out.buildRows());
        probeRows.add(out.probeRows());
        overflows = List.copyOf(out.overflows());
      }
      mark("probe");
      for (NopaPairOutput.Overflow o : overflows) {  // each again, with room for exactly its pairs
        try (NopaPairOutput out = new NopaPairOutput(device, slots, o.pairs())) {
          probeRange(side, kernel, tableArgs, out, o.firstRow(), o.rows());
          if (!out.overflows().isEmpty()) {
            throw new IllegalStateException("NOPA join: probe rows [" + o.firstRow() + ", " + (o.firstRow() + o.rows())
                + ") made " + o.pairs() + " pairs, then more on the rerun (" + out.overflows() + ")");
          }
          buildRows.add(out.buildRows());
          probeRows.add(out.probeRows());
        }
      }
      if (!overflows.isEmpty()) {
        mark("probe-overflow-rerun(" + overflows.size() + " chunks)");
      }
    }
    return JoinResult.materialized(layout.variant(), RowIdColumn.concat(buildRows), RowIdColumn.concat(probeRows));
  }

  private void probeRange(NopaSide side, CudaKernel kernel, List<Object> tableArgs, NopaPairOutput out, long first,
      long rows) {
    NopaKernels kernels = kernelsFor(probe);
    run(side, first, rows, (chunk, stream) -> {
      int slot = (int) (chunk.index() % slots);
      List<Object> args = side.chunkArgs(chunk, stream);
      args.add(type.ordinal());
      args.addAll(tableArgs);
      args.addAll(out.args(slot, chunk, stream));
      kernel.launch(kernels.blocks(chunk.rowCount()), BLOCK, stream, args.toArray());
      out.launched(slot, chunk, stream);
    });
    out.collectAll();
    bytesToHost += out.bytesToHost();
  }

  /** Streams rows [first, first + rows) of {@code side}, checking for cancellation before every chunk. */
  private void run(NopaSide side, long first, long rows, ChunkConsumer consumer) {
    pipeline.run(side.columns(), first, rows, (chunk, stream) -> {
      if (cancelled.getAsBoolean()) {
        throw new CancellationException("NOPA join cancelled");
      }
      consumer.consume(chunk, stream);
    });
    bytesToDevice += side.bytesPerPass(rows);
  }

  private long pairCapacity(NopaSide side) {
    if (options.outputPairsPerChunk() > 0) {
      return options.outputPairsPerChunk();
    }
    int width = side.columns().stream().mapToInt(c -> c.type().width()).max().orElse(8);
    return 2 * options.transfer().chunkRows(width);
  }

  /** GPU memory the table may take: the option (if set), at most what the allocator has left beside the buffers. */
  private long tableBudget() {
    long working = WORKING_SLACK;
    if (copiesIntoDeviceMemory(options.method())) {
      working += 2L * slots * options.transfer().chunkBytes();
    }
    if (output == JoinOutput.MATERIALIZED) {
      working += slots * 8 * 2 * options.transfer().chunkRows(4);
    }
    long free = Math.max(0, device.allocator().availableBytes() - working);
    return options.tableBudgetBytes() > 0 ? Math.min(options.tableBudgetBytes(), free) : free;
  }

  private static boolean copiesIntoDeviceMemory(TransferMethod method) {
    return switch (method) {
      case PAGEABLE_COPY, PINNED_COPY, STAGED_COPY, DYNAMIC_PINNING -> true;
      default -> false;
    };
  }

  private NopaKernels kernelsFor(HostJoinInput side) {
    return new NopaKernels(device, side.keys().type(), options.blocksPerSm());
  }

  private <T extends AutoCloseable> T own(T resource) {
    owned.add(resource);
    return resource;
  }

  /** Records the end of phase {@code name} (the first mark starts the clock). */
  private void mark(String name) {
    CudaEvent event = device.newEvent(true);
    marks.add(event);
    phases.add(name);
    event.record(pipeline.firstStream());
  }

  /** What this run did; call after {@link #execute} returned. */
  GpuJoinStats stats() {
    List<GpuJoinStats.Phase> timed = new ArrayList<>();
    long total = 0;
    for (int i = 1; i < marks.size(); i++) {
      GpuJoinStats.Phase phase = new GpuJoinStats.Phase(phases.get(i), nanos(marks.get(i - 1), marks.get(i)));
      timed.add(phase);
      total += phase.name().equals(TABLE_ALLOC) ? 0 : phase.nanos();
    }
    return new GpuJoinStats(layout.variant(), total, bytesToDevice, bytesToHost, timed);
  }

  private static long nanos(CudaEvent from, CudaEvent to) {
    return Math.round(to.elapsedMillisSince(from) * 1e6);
  }

  @Override
  public void close() {
    RuntimeException failure = null;
    List<AutoCloseable> all = new ArrayList<>(owned);
    all.addAll(marks);
    all.add(pipeline);
    for (AutoCloseable r : all) {
      try {
        r.close();
      } catch (Exception e) {
        if (failure == null) {
          failure = e instanceof RuntimeException re ? re : new IllegalStateException(e);
        } else {
          failure.addSuppressed(e);
        }
      }
    }
    if (failure != null) {
      throw failure;
    }
  }
}
