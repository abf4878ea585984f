package org.spillway.gpu.join.inlj;

import static jcuda.driver.JCudaDriver.cuMemcpyDtoHAsync;

import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CancellationException;
import java.util.function.BooleanSupplier;
import java.util.function.LongConsumer;
import org.apache.arrow.memory.util.MemoryUtil;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.IntVector;
import org.spillway.gpu.device.CudaDevice;
import org.spillway.gpu.device.CudaEvent;
import org.spillway.gpu.device.CudaException;
import org.spillway.gpu.device.CudaKernel;
import org.spillway.gpu.device.CudaModule;
import org.spillway.gpu.device.CudaStream;
import org.spillway.gpu.device.DevicePointer;
import org.spillway.gpu.device.HostBuffer;
import org.spillway.gpu.device.HostCopy;
import org.spillway.gpu.device.HostMemoryKind;
import org.spillway.gpu.device.HostPointer;
import org.spillway.gpu.index.GpuIndexLookup;
import org.spillway.gpu.index.SortedKeyIndex;
import org.spillway.gpu.join.JoinType;
import org.spillway.gpu.pipeline.gpu.PinnedScratch;
import org.spillway.gpu.pipeline.scheduler.MorselScheduler;
import org.spillway.gpu.transfer.ColumnType;
import org.spillway.gpu.transfer.DeviceChunk;
import org.spillway.gpu.transfer.HostColumn;
import org.spillway.gpu.transfer.TransferMethod;
import org.spillway.gpu.transfer.TransferOptions;
import org.spillway.gpu.transfer.TransferPipeline;
import org.spillway.gpu.transfer.TransferPipelinePool;

/**
 * The windowed index nested-loop join on the GPU (Schmeißer, Lutz and Markl, EDBT 2025, §5), with the semantics
 * and the {@link JoinIndex} of the CPU {@link WindowedIndexJoin}. The probe keys stream to the GPU through a
 * {@link TransferPipeline} in tumbling windows of {@link #windowTuples} keys, over two streams, so that the copy
 * of window i+1 overlaps the kernels of window i (the paper's concurrent kernel execution). On its stream each
 * window is radix-partitioned by its {@link WindowRadix} (histogram, prefix sum, scatter of (key, position in
 * the window)), looked up through the index in pinned host memory by the index's own kernel
 * ({@link GpuIndexLookup}, zero-copy), put back into the window's original order and copied back. The lookups of a
 * window run in one launch over all its partitions, or, with a finite translation reach, in {@link TranslationSlices}:
 * launches over consecutive partitions, each reading at most the reach of the column. The rows found land in pinned
 * host memory (pooled, {@link PinnedScratch}) in probe order, from which the join index is emitted as on the CPU.
 *
 * <p>Index and column must lie in pinned host memory. Probe keys are INT64 or INT32 (widened), with an optional
 * Arrow validity bitmap (a NULL key never matches). Every device and pinned buffer a join takes is freed before
 * it returns or throws. One join at a time per instance; closing it frees the index structure's copy in GPU memory
 * ({@link GpuIndexLookup}).
 */
public final class GpuWindowedIndexJoin implements AutoCloseable {
  static final String MODULE = "join/inlj/windowed_index_join";
  /** Streams, hence windows in flight: one window's copy beside another's kernels. */
  static final int STREAMS = 2;
  /** The GPU's windows are whole warps (the transfer pipeline's chunks are multiples of 32 rows). */
  static final int WINDOW_MULTIPLE = 32;
  private static final int BLOCK_THREADS = 256;
  private static final int BLOCKS_PER_SM = 4;
  private static final TransferOptions OPTIONS = new TransferOptions(TransferOptions.DEFAULT.chunkBytes(), STREAMS,
      1);

  private final CudaDevice device;
  private final long windowBytes;
  private final long translationReach;
  private final WindowRadix radix;
  private final TranslationSlices slices;
  private final GpuIndexLookup lookup;
  private final CudaKernel histogram;
  private final CudaKernel offsets;
  private final CudaKernel scatter;
  private final CudaKernel restore;
  private final int maxBlocks;
  private Stats lastStats;

  /**
   * What the last join did: its windows, the launches each window's lookups took ({@link TranslationSlices}; 1 for
   * the unlimited reach), and its time on the GPU (CUDA events) and in all.
   */
  public record Stats(int windows, int windowTuples, int slicesPerWindow, long gpuNanos, long totalNanos) {}

  /**
   * A join through {@code index} on {@code device} with windows of {@code windowBytes} of probe keys (at least
   * one key; {@link WindowedIndexJoin#DEFAULT_WINDOW_BYTES} is the paper's), its lookups in slices of the
   * translation reach that {@link TranslationSlices#PROPERTY} sets (unlimited, one launch a window, by default).
   */
  public GpuWindowedIndexJoin(CudaDevice device, SortedKeyIndex index, long windowBytes) {
    this(device, index, windowBytes, TranslationSlices.configuredReach());
  }

  /**
   * As {@link #GpuWindowedIndexJoin(CudaDevice, SortedKeyIndex, long)}, a window's lookups in slices that each read at
   * most {@code translationReach} bytes of the indexed column ({@link TranslationSlices#UNLIMITED}: one launch).
   */
  public GpuWindowedIndexJoin(CudaDevice device, SortedKeyIndex index, long windowBytes, long translationReach) {
    TumblingWindows.tuplesFor(windowBytes, Long.BYTES, WINDOW_MULTIPLE);  // refuses a budget without a key
    this.device = device;
    this.windowBytes = windowBytes;
    this.translationReach = translationReach;
    this.radix = WindowRadix.of(index.column());
    this.slices = TranslationSlices.of(index.column(), radix, translationReach);
    CudaModule module = device.module(MODULE);
    this.histogram = module.kernel("window_histogram");
    this.offsets = module.kernel("window_offsets");
    this.scatter = module.kernel("window_scatter");
    this.restore = module.kernel("window_restore");
    this.maxBlocks = device.multiprocessors() * BLOCKS_PER_SM;
    this.lookup = new GpuIndexLookup(device, index);
  }

  /** Frees what the index's lookups keep in GPU memory (its structure's copy); no join may be running. */
  @Override
  public void close() {
    lookup.close();
  }

  /** Probe keys per window for keys of {@code keyBytes} bytes. */
  public int windowTuples(int keyBytes) {
    return TumblingWindows.tuplesFor(windowBytes, keyBytes, WINDOW_MULTIPLE);
  }

  /** The bytes of the column a window's lookups read per launch at most ({@link TranslationSlices#UNLIMITED}: all). */
  public long translationReach() {
    return translationReach;
  }

  /** The launches a window's lookups take: its translation slices, 1 for the unlimited reach. */
  public int slicesPerWindow() {
    return slices == null ? 1 : slices.count();
  }

  /** What the last join did; null before the first. */
  public Stats lastStats() {
    return lastStats;
  }

  /**
   * Joins probe keys {@code keys} ({@code nulls[i]} true for a NULL key; {@code nulls} null when none is), copied
   * into pinned memory for the transfer.
   */
  public JoinIndex join(long[] keys, boolean[] nulls, JoinType type, BooleanSupplier cancelled) {
    WindowedIndexJoin.requireFlags(keys.length, nulls);
    return joinStaged(keys.length, ColumnType.INT64, address -> HostCopy.put(address, keys, 0, keys.length), nulls,
        type, cancelled);
  }

  /** As {@link #join(long[], boolean[], JoinType, BooleanSupplier)} for 4-byte keys, which stay 4 bytes on the link. */
  public JoinIndex join(int[] keys, boolean[] nulls, JoinType type, BooleanSupplier cancelled) {
    WindowedIndexJoin.requireFlags(keys.length, nulls);
    return joinStaged(keys.length, ColumnType.INT32, address -> {
      for (int i = 0; i < keys.length; i++) {
        MemoryUtil.putInt(address + (long) i * Integer.BYTES, keys[i]);
      }
    }, nulls, type, cancelled);
  }

  /** Stages {@code rows} keys that {@code write} puts at an address, and their NULL flags, in pooled pinned memory. */
  private JoinIndex joinStaged(int rows, ColumnType keyType, LongConsumer write, boolean[] nulls, JoinType type,
      BooleanSupplier cancelled) {
    if (rows == 0) {
      return JoinIndex.inProbeOrder(new long[0], 0, type, 1);
    }
    HostBuffer keyBuffer = PinnedScratch.acquire(device, keyType.bytes(rows));
    HostBuffer validity = null;
    try {
      write.accept(keyBuffer.address());
      HostColumn validityColumn = null;
      if (nulls != null) {
        validity = PinnedScratch.acquire(device, ColumnType.VALIDITY.bytes(rows));
        writeValidity(nulls, rows, validity.address());
        validityColumn = new HostColumn("probe key validity", ColumnType.VALIDITY, validity.address(), rows);
      }
      return join(new HostColumn("probe keys", keyType, keyBuffer.address(), rows), validityColumn, type,
          cancelled);
    } finally {  // the join has drained every stream that read them, also when it failed
      PinnedScratch.release(device, keyBuffer);
      if (validity != null) {
        PinnedScratch.release(device, validity);
      }
    }
  }

  /** Joins the keys of an Arrow BIGINT or INT vector in host memory, NULLs included. */
  public JoinIndex join(BaseFixedWidthVector keys, JoinType type, BooleanSupplier cancelled) {
    ColumnType keyType;
    if (keys instanceof BigIntVector) {
      keyType = ColumnType.INT64;
    } else if (keys instanceof IntVector) {
      keyType = ColumnType.INT32;
    } else {
      throw new IllegalArgumentException("the index join probes BIGINT or INT keys; " + keys.getName() + " is "
          + keys.getMinorType());
    }
    int rows = keys.getValueCount();
    HostColumn validity = keys.getNullCount() > 0 ? HostColumn.validity(keys, rows) : null;
    return join(HostColumn.of(keys.getName(), keyType, keys.getDataBuffer(), rows), validity, type, cancelled);
  }

  /**
   * Joins probe keys {@code keys} (INT64 or INT32) whose NULLs the bitmap {@code validity} marks (null when there
   * are none). Pinned columns are copied by DMA, others through the driver's staging. Stops between windows with a
   * {@link CancellationException} once {@code cancelled} is true.
   */
  public JoinIndex join(HostColumn keys, HostColumn validity, JoinType type, BooleanSupplier cancelled) {
    checkProbe(keys, validity);
    int rows = (int) keys.rowCount();
    if (rows == 0) {
      return JoinIndex.inProbeOrder(new long[0], 0, type, 1);
    }
    long started = System.nanoTime();
    int tuples = windowTuples(keys.type().width());
    List<HostColumn> columns = validity == null ? List.of(keys) : List.of(keys, validity);
    TransferPipelinePool pool = TransferPipelinePool.of(device);
    TransferPipeline pipeline = pool.acquire(method(columns), OPTIONS);
    boolean released = false;
    try {
      long[] buildRowAt = new long[rows];
      long gpuNanos = stream(pipeline, columns, rows, Math.min(tuples, rows), tuples, cancelled, buildRowAt);
      pool.release(pipeline);
      released = true;
      JoinIndex result = JoinIndex.inProbeOrder(buildRowAt, rows, type, MorselScheduler.THREADS);
      lastStats = new Stats(new TumblingWindows(rows, tuples).count(), tuples, slicesPerWindow(), gpuNanos,
          System.nanoTime() - started);
      return result;
    } finally {
      if (!released) {
        pipeline.close();
      }
    }
  }

  /**
   * Streams the windows through the GPU into {@code buildRowAt} (the build row of every probe row, -1 for none);
   * returns the nanoseconds between the first window's start and the last one's end on the GPU.
   */
  private long stream(TransferPipeline pipeline, List<HostColumn> columns, int rows, int capacity, int tuples,
      BooleanSupplier cancelled, long[] buildRowAt) {
    boolean wide = columns.get(0).type() == ColumnType.INT64;
    boolean nullable = columns.size() > 1;
    Map<CudaStream, WindowBuffers> buffers = new IdentityHashMap<>();
    TransferPipeline.Part[] only = {new TransferPipeline.Part(0, columns, 0, rows)};
    HostBuffer found = PinnedScratch.acquire(device, (long) rows * Long.BYTES);
    try (CudaEvent start = device.newEvent(true);
         CudaEvent end = device.newEvent(true)) {
      start.record(pipeline.firstStream());
      boolean done = false;
      try {
        pipeline.stream(() -> {
          TransferPipeline.Part part = only[0];
          only[0] = null;
          return part;
        }, tuples, (part, chunk, stream) -> {
          if (cancelled.getAsBoolean()) {
            throw new CancellationException("query cancelled");
          }
          WindowBuffers window = buffers.computeIfAbsent(stream,
              s -> new WindowBuffers(device, capacity, radix.fanout()));
          joinWindow(chunk, wide, nullable, window, stream, found.address());
        });
        done = true;
      } finally {
        release(buffers, done);
      }
      end.record(pipeline.firstStream());
      long gpuNanos = Math.round(end.elapsedMillisSince(start) * 1e6);
      HostCopy.get(found.address(), buildRowAt, 0, rows);
      return gpuNanos;
    } finally {  // every window that wrote into it has finished (see release)
      PinnedScratch.release(device, found);
    }
  }

  /**
   * Enqueues one window on {@code stream}: partition, look up (in slices where the reach is finite), restore the
   * window's order, copy the rows found to {@code found} at the window's first probe row.
   */
  private void joinWindow(DeviceChunk chunk, boolean wide, boolean nullable, WindowBuffers window, CudaStream stream,
      long found) {
    long count = chunk.rowCount();
    DevicePointer keys = new DevicePointer(chunk.columnAddresses()[0]);
    DevicePointer validity = new DevicePointer(nullable ? chunk.columnAddresses()[1] : 0);
    int blocks = (int) Math.max(1, Math.min(maxBlocks, (count + BLOCK_THREADS - 1) / BLOCK_THREADS));
    int keyWidth = wide ? 1 : 0;
    int empty = radix.empty() ? 1 : 0;
    window.clearCursors(stream);
    histogram.launch(blocks, BLOCK_THREADS, stream, keys, keyWidth, validity, count, radix.min(), radix.max(),
        radix.shift(), radix.fanout(), empty, window.cursors());
    offsets.launch(1, BLOCK_THREADS, stream, window.cursors(), radix.fanout());
    scatter.launch(blocks, BLOCK_THREADS, stream, keys, keyWidth, validity, count, radix.min(), radix.max(),
        radix.shift(), radix.fanout(), empty, radix.rejectKey(), window.cursors(), window.keys(), window.positions());
    if (slices == null) {
      lookup.lookup(window.keys(), count, window.rows(), stream);
    } else {  // each launch waits for the one before on the stream: its reads stay within its slice's reach
      for (int s = 0; s < slices.count(); s++) {
        lookup.lookupPartitions(window.keys(), count, window.partitionEnds(), slices.firstPartition(s),
            slices.endPartition(s), window.rows(), stream);
      }
    }
    restore.launch(blocks, BLOCK_THREADS, stream, window.rows(), window.positions(), count, window.matchable(),
        window.result());
    CudaException.check(cuMemcpyDtoHAsync(new HostPointer(found + chunk.firstRow() * Long.BYTES), window.result(),
        count * Long.BYTES, stream.handle()), "cuMemcpyDtoHAsync(windowed index join rows)");
  }

  /**
   * Frees the windows' buffers. The pipeline waited for every window it finished enqueuing; after a failure a
   * window may be half enqueued, so its stream is drained first.
   */
  private static void release(Map<CudaStream, WindowBuffers> buffers, boolean done) {
    RuntimeException failure = null;
    for (Map.Entry<CudaStream, WindowBuffers> entry : buffers.entrySet()) {
      try {
        if (!done) {
          entry.getKey().synchronize();
        }
      } catch (RuntimeException e) {
        failure = failure == null ? e : failure;
      }
      try {
        entry.getValue().close();
      } catch (RuntimeException e) {
        failure = failure == null ? e : failure;
      }
    }
    if (failure != null && done) {  // after a failure the first one is what the caller sees
      throw failure;
    }
  }

  /** Pinned copy when every column is pinned, else pageable copy (the driver stages). */
  private TransferMethod method(List<HostColumn> columns) {
    for (HostColumn column : columns) {
      if (HostMemoryKind.of(device, column.address()) != HostMemoryKind.PINNED) {
        return TransferMethod.PAGEABLE_COPY;
      }
    }
    return TransferMethod.PINNED_COPY;
  }

  private static void checkProbe(HostColumn keys, HostColumn validity) {
    if (keys.type() != ColumnType.INT64 && keys.type() != ColumnType.INT32) {
      throw new IllegalArgumentException("the index join probes INT64 or INT32 keys; column " + keys.name() + " is "
          + keys.type());
    }
    if (keys.rowCount() > Integer.MAX_VALUE) {
      throw new IllegalArgumentException("a join index numbers probe rows with ints; column " + keys.name()
          + " has " + keys.rowCount() + " rows");
    }
    if (validity != null && (validity.type() != ColumnType.VALIDITY || validity.rowCount() < keys.rowCount())) {
      throw new IllegalArgumentException("the NULLs of probe column " + keys.name() + " need a validity bitmap of "
          + keys.rowCount() + " rows, got " + validity.type() + " of " + validity.rowCount() + " rows");
    }
  }

  /** Writes {@code nulls} as an Arrow validity bitmap (a set bit is a valid key) at {@code address}. */
  static void writeValidity(boolean[] nulls, int rows, long address) {
    for (int b = 0; b < (rows + 7) / 8; b++) {
      int bits = 0;
      for (int bit = 0; bit < 8 && b * 8 + bit < rows; bit++) {
        bits |= nulls[b * 8 + bit] ? 0 : 1 << bit;
      }
      MemoryUtil.putByte(address + b, (byte) bits);
    }
  }
}
