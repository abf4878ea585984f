package org.spillway.gpu.exec;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.BooleanSupplier;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.FieldVector;
import org.spillway.gpu.cuda.CudaDevice;
import org.spillway.gpu.memory.DeviceBuffer;
import org.spillway.gpu.memory.HostMemoryKind;
import org.spillway.gpu.transfer.ChunkConsumer;
import org.spillway.gpu.transfer.ColumnType;
import org.spillway.gpu.transfer.HostColumn;
import org.spillway.gpu.transfer.TransferMethod;
import org.spillway.gpu.transfer.TransferOptions;

/**
 * The GPU backend of a fused columnar pipeline (same inputs and outputs as {@link ColumnarPipeline}): the
 * filter and project stages before the aggregation are flattened once into a {@link GpuProgram}; column
 * chunks stream through transfer pipelines ({@link GpuBatchStreamer}) and one columnar_pipeline kernel
 * launch per chunk filters, projects and aggregates them, writing nothing but aggregate state. Stages
 * after the aggregation run on the CPU over its (small) result. What the kernel cannot do exactly is
 * reported by {@link #unsupportedReason()} so that the planner keeps the CPU backend.
 */
public final class GpuColumnarPipeline {
  /** Hash table slots of the first try of a grouped run; it grows 16-fold when half full. */
  static final long INITIAL_CAPACITY = 1 << 12;
  /** Largest hash table; more groups than half of it run on the CPU backend. */
  static final long MAX_CAPACITY = 1 << 20;
  private static final int BLOCK_THREADS = 256;
  private static final int BLOCKS_PER_SM = 8;

  private final ColumnarPipeline cpu;
  private final int aggregateStage;
  private final GpuProgram program;
  private final String unsupported;
  private volatile String lastFallback;
  private volatile RunStats lastRun;
  private TransferOptions transferOptions = TransferOptions.DEFAULT;
  private FilterVariant filterVariant = FilterVariant.BRANCHING;
  private GpuColumnCache cache;

  /** A pipeline over columns of {@code inputTypes}; invalid stages fail as in {@link ColumnarPipeline}. */
  public GpuColumnarPipeline(List<ExprType> inputTypes, List<PipelineStage> stages) {
    this.cpu = new ColumnarPipeline(inputTypes, stages);
    this.aggregateStage = cpu.firstAggregate();
    GpuProgram compiled = null;
    String reason = null;
    if (aggregateStage < 0) {
      reason = "a pipeline without an aggregation (its rows would have to come back over the link)";
    } else {
      try {
        compiled = GpuProgram.compile(inputTypes, stages.subList(0, aggregateStage),
            (PipelineStage.Aggregate) stages.get(aggregateStage));
      } catch (GpuProgram.Unsupported e) {
        reason = e.getMessage();
      }
      if (compiled != null && compiled.columns.length == 0) {
        compiled = null;  // e.g. count(*): nothing to stream, row counts alone answer it
        reason = "it reads no column (row counts alone answer it, and the CPU has them)";
      }
    }
    this.program = compiled;
    this.unsupported = reason;
  }

  /** This pipeline streaming with other transfer options (chunk size, slots); returns this. */
  public GpuColumnarPipeline withTransferOptions(TransferOptions options) {
    this.transferOptions = options;
    return this;
  }

  /** This pipeline filtering with {@code variant} on the GPU; returns this. */
  public GpuColumnarPipeline withFilterVariant(FilterVariant variant) {
    this.filterVariant = variant;
    return this;
  }

  public FilterVariant filterVariant() {
    return filterVariant;
  }

  /** This pipeline reading its columns through {@code cache} (null: stream every run); returns this. */
  public GpuColumnarPipeline withCache(GpuColumnCache cache) {
    this.cache = cache;
    return this;
  }

  /** Why the GPU cannot run this pipeline, or empty when it can. */
  public Optional<String> unsupportedReason() {
    return Optional.ofNullable(unsupported);
  }

  /** The CPU backend of the same pipeline. */
  public ColumnarPipeline cpuPipeline() {
    return cpu;
  }

  public List<ExprType> outputTypes() {
    return cpu.outputTypes();
  }

  /** Why the last {@link #run} went to the CPU backend after all (NULLs in the data, too many groups), or null. */
  public String lastFallback() {
    return lastFallback;
  }

  /** Wall-clock time and bytes streamed over the link by the last GPU pass over the data. */
  public record RunStats(long nanos, long bytes) {
    /** Gigabytes (10^9 bytes) per second over the link. */
    public double gigabytesPerSecond() {
      return nanos == 0 ? 0 : bytes / (double) nanos;
    }
  }

  /** Statistics of the last run's (last) pass over the data on the GPU, or null if none ran. */
  public RunStats lastRun() {
    return lastRun;
  }

  /**
   * The transfer method for columns in the memory at {@code address}: pinned copy for pinned memory, UM
   * prefetch for managed memory, otherwise pageable copy.
   */
  public static TransferMethod defaultMethod(CudaDevice device, long address) {
    HostMemoryKind kind = HostMemoryKind.of(device, address);
    return switch (kind) {
      case PINNED -> TransferMethod.PINNED_COPY;
      case MANAGED -> TransferMethod.UM_PREFETCH;
      default -> TransferMethod.PAGEABLE_COPY;
    };
  }

  /**
   * Runs the pipeline on {@code device}, streaming the columns with {@code method}; CPU threads
   * ({@code cpuThreads}) serve when the data turns out to hold NULLs or too many groups (see
   * {@link #lastFallback()}). Fails fast if {@code cancelled} turns true between batches.
   */
  public List<ColumnBatch> run(CudaDevice device, TransferMethod method, List<SourceBatch> batches, int cpuThreads,
      BooleanSupplier cancelled) {
    if (program == null) {
      throw new UnsupportedOperationException("pipeline is not supported on the GPU: " + unsupported);
    }
    lastFallback = nullsIn(batches);
    if (lastFallback != null) {
      return cpu.run(batches, cpuThreads, cancelled);
    }
    PipelineStage.Aggregate aggregate = (PipelineStage.Aggregate) cpu.stages().get(aggregateStage);
    List<ExprType> aggregateInput = cpu.stageInputTypes(aggregateStage);
    long capacity = aggregate.groupKeys().length == 0 ? 0 : INITIAL_CAPACITY;
    GpuKernels kernels = new GpuKernels(device);
    device.makeCurrent();
    try (DeviceBuffer code = GpuAggregateState.upload(device, program.code, "GPU pipeline program");
         DeviceBuffer constants = GpuAggregateState.upload(device, program.constants, "GPU pipeline constants");
         DeviceBuffer calls = GpuAggregateState.upload(device, program.calls, "GPU pipeline aggregate calls");
         DeviceBuffer keys = GpuAggregateState.upload(device, program.keys, "GPU pipeline group keys");
         GpuBatchStreamer transfer = new GpuBatchStreamer(device, method, chunkOptions(batches))) {
      while (true) {
        try (GpuAggregateState state = new GpuAggregateState(device, capacity, aggregate.calls().size())) {
          state.initialize(kernels, calls, transfer.firstStream());
          ChunkConsumer consumer = consumer(device, kernels, code, constants, calls, keys, state);
          long start = System.nanoTime();
          long bytes = transfer.run(batches, this::hostColumns, consumer, cancelled);
          lastRun = new RunStats(System.nanoTime() - start, bytes);
          long error = state.error();
          boolean full = capacity > 0 && ((error >>> 32) == GpuAggregateState.ERR_TABLE_FULL
              || state.groups() * 2 > capacity);
          if (!full) {
            throwIfFailed(error);
            ColumnVector[] result = state.result(aggregate, aggregateInput, keyBits());
            return cpu.finish(result, aggregateStage + 1);
          }
          if (capacity >= MAX_CAPACITY) {
            lastFallback = "more than " + MAX_CAPACITY / 2 + " groups for the GPU hash table";
            return cpu.run(batches, cpuThreads, cancelled);
          }
          capacity = Math.min(MAX_CAPACITY, capacity * 16);
        }
      }
    }
  }

  /** Chunks no larger than the largest batch: each pipeline slot holds a chunk per column in device memory. */
  private TransferOptions chunkOptions(List<SourceBatch> batches) {
    long largest = 4096;
    for (SourceBatch b : batches) {
      largest = Math.max(largest, b.rows() * 8L);
    }
    return transferOptions.withChunkBytes(Math.min(transferOptions.chunkBytes(), largest));
  }

  private int[] keyBits() {
    int[] bits = new int[program.keys.length / 2];
    for (int k = 0; k < bits.length; k++) {
      bits[k] = program.keys[2 * k + 1];
    }
    return bits;
  }

  private ChunkConsumer consumer(CudaDevice device, GpuKernels kernels, DeviceBuffer code, DeviceBuffer constants,
      DeviceBuffer calls, DeviceBuffer keys, GpuAggregateState state) {
    int wideMask = 0;
    for (int c = 0; c < program.columns.length; c++) {
      wideMask |= program.wide[c] ? 1 << c : 0;
    }
    int mask = wideMask;
    int maxBlocks = device.multiprocessors() * BLOCKS_PER_SM;
    int callCount = program.calls.length / 2;
    return (chunk, stream) -> {
      int blocks = (int) Math.max(1, Math.min(maxBlocks, (chunk.rowCount() + BLOCK_THREADS - 1) / BLOCK_THREADS));
      List<Object> args = new ArrayList<>();
      for (int c = 0; c < GpuProgram.MAX_COLUMNS; c++) {
        args.add(c < program.columns.length ? chunk.columnAddresses()[c] : 0L);
      }
      args.addAll(List.of(program.columns.length, mask, chunk.rowCount(), code.pointer(), program.length(),
          constants.pointer(), calls.pointer(), callCount));
      if (state.capacity() == 0) {
        args.add(state.buffer().pointer());
        kernels.global.launch(blocks, BLOCK_THREADS, stream, args.toArray());
      } else {
        args.addAll(List.of(keys.pointer(), program.keys.length / 2, state.capacity(), state.buffer().pointer()));
        kernels.grouped.launch(blocks, BLOCK_THREADS, stream, args.toArray());
      }
    };
  }

  /** The streamed columns of a batch: the data buffers of the input columns the program reads. */
  private List<HostColumn> hostColumns(SourceBatch batch) {
    List<HostColumn> out = new ArrayList<>();
    for (int c = 0; c < program.columns.length; c++) {
      FieldVector vector = batch.columns().get(program.columns[c]);
      int width = program.wide[c] ? 8 : 4;
      if (!(vector instanceof BaseFixedWidthVector fixed) || fixed.getTypeWidth() != width) {
        throw new IllegalArgumentException("column " + vector.getField() + " is not a " + width
            + "-byte fixed-width vector, as input column $" + program.columns[c] + " of the GPU pipeline must be");
      }
      out.add(HostColumn.of(vector.getName(), width == 8 ? ColumnType.INT64 : ColumnType.INT32,
          vector.getDataBuffer(), batch.rows()));
    }
    return out;
  }

  private String nullsIn(List<SourceBatch> batches) {
    for (SourceBatch batch : batches) {
      for (int c : program.columns) {
        FieldVector v = batch.columns().get(c);
        if (v.getNullCount() > 0) {
          return "column " + v.getName() + " holds NULLs (the GPU kernel reads no validity bitmaps yet)";
        }
      }
    }
    return null;
  }

  /** Turns the kernel's error word into the exception the CPU backend throws for the same row. */
  private void throwIfFailed(long error) {
    if (error == 0) {
      return;
    }
    int code = (int) (error >>> 32);
    int pc = (int) error;
    Expr origin = pc < program.origins.length ? program.origins[pc] : null;
    switch (code) {
      case GpuAggregateState.ERR_ARITH -> throw new ArithmeticException(origin.type()
          + " overflow or division by zero in " + origin + ": long overflow (on the GPU)");
      case GpuAggregateState.ERR_DIVIDE_BY_ZERO -> throw new ArithmeticException(origin.type()
          + " overflow or division by zero in " + origin + ": division by zero (on the GPU)");
      case GpuAggregateState.ERR_INT32 -> throw new ArithmeticException("INTEGER overflow in " + origin
          + " (on the GPU)");
      case GpuAggregateState.ERR_CAST -> throw new ArithmeticException("overflow casting "
          + ((Expr.Cast) origin).operand().type() + " to " + origin.type() + " in " + origin + " (on the GPU)");
      case GpuAggregateState.ERR_KEY_RANGE -> throw new IllegalStateException(
          "a group key of a 32-bit type holds a value outside 32 bits (GPU hash aggregation)");
      default -> throw new IllegalStateException("GPU pipeline failed with error code " + code + " at instruction "
          + pc);
    }
  }

  @Override public String toString() {
    return "GpuColumnarPipeline" + cpu.stages();
  }
}
