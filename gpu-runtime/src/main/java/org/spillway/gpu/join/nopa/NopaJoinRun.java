package org.spillway.gpu.join.nopa;

import static jcuda.driver.JCudaDriver.cuMemcpyDtoH;
import static jcuda.driver.JCudaDriver.cuMemsetD8;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.function.BooleanSupplier;
import jcuda.Pointer;
import org.spillway.gpu.device.CudaDevice;
import org.spillway.gpu.device.CudaEvent;
import org.spillway.gpu.device.CudaException;
import org.spillway.gpu.device.CudaKernel;
import org.spillway.gpu.device.CudaStream;
import org.spillway.gpu.device.DeviceBuffer;
import org.spillway.gpu.join.GpuJoinStats;
import org.spillway.gpu.join.HostJoinInput;
import org.spillway.gpu.join.JoinOutput;
import org.spillway.gpu.join.JoinResult;
import org.spillway.gpu.join.JoinType;
import org.spillway.gpu.join.RowIdColumn;
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
    NopaHashTable table = new NopaTableBuilder(this, device, options, build, buildValueMode(), tableBudget()).build();
    layout = table.layout();
    return output == JoinOutput.AGGREGATED ? probeAggregated(table) : probePairs(table);
  }

  /** Releases a table the join will not use. */
  void drop(NopaHashTable table) {
    owned.remove(table);
    table.close();
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
  void run(NopaSide side, long first, long rows, ChunkConsumer consumer) {
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

  /** What R's rows carry into the table: row numbers (materialized), payloads (summed) or nothing (SEMI, ANTI). */
  private int buildValueMode() {
    return output == JoinOutput.MATERIALIZED ? NopaKernels.VALUE_ROW
        : type.existenceOnly() ? NopaKernels.VALUE_ZERO : NopaSide.payloadMode(build);
  }

  /** The stream on which the join's own (non-chunk) work and its timing events go. */
  CudaStream stream() {
    return pipeline.firstStream();
  }

  /** Counts {@code bytes} that came back to the host. */
  void addBytesToHost(long bytes) {
    bytesToHost += bytes;
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

  NopaKernels kernelsFor(HostJoinInput side) {
    return new NopaKernels(device, side.keys().type(), options.blocksPerSm());
  }

  <T extends AutoCloseable> T own(T resource) {
    owned.add(resource);
    return resource;
  }

  /** Records the end of phase {@code name} (the first mark starts the clock). */
  void mark(String name) {
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
    List<AutoCloseable> all = new ArrayList<>(owned);
    all.addAll(marks);
    all.add(pipeline);
    NopaHashTable.closeAll(all);
  }
}
