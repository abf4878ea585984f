package org.spillway.gpu.pipeline.gpu;

import org.spillway.gpu.vector.ColumnVector;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.function.BooleanSupplier;
import jcuda.Pointer;
import org.spillway.gpu.device.CudaDevice;
import org.spillway.gpu.device.CudaEvent;
import org.spillway.gpu.device.CudaKernel;
import org.spillway.gpu.device.CudaStream;
import org.spillway.gpu.device.DeviceBuffer;
import org.spillway.gpu.device.DevicePointer;
import org.spillway.gpu.expr.Expr;

/**
 * One pass of a {@link GpuColumnarPipeline} run over all batches with a given hash table capacity: uploads
 * the program image, initializes the aggregate state, then either streams the batches (one launch per
 * chunk) or, when every buffer is resident in the column cache, makes one launch over a table of all
 * batches; finally reads the state's header and, unless the hash table overflowed, the result. Device
 * buffers and the control stream are borrowed from {@link GpuScratch} and given back.
 */
final class GpuPass {
  /** Shared memory per plain-text column for a tile's text: a tile of 256 rows of up to 79 bytes (o_comment). */
  static final int TEXT_TILE_BYTES = 20 << 10;
  /** Plain-text columns staged per tile at most; a pipeline's further text columns are read in place. */
  static final int MAX_STAGED_TEXT_COLUMNS = 3;

  /**
   * The result (null when the hash table was too small), the pass's time, its bytes by origin, the time of
   * the one kernel over resident batches (-1 when streamed), the bytes of aggregate state read back, and on the host's
   * clock what came before the stream (program upload, aggregate state) and after it (the header, compaction, reading
   * the groups back).
   */
  record Outcome(ColumnVector[] result, long nanos, long streamedBytes, long cachedBytes, long kernelNanos,
      long stateBytes, long prepareNanos, long finishNanos) {}

  /** Checks the header and reads the result of a pass whose table did not overflow. */
  @FunctionalInterface
  interface Finisher {
    ColumnVector[] finish(GpuAggregateState state, long[] header);
  }

  private final CudaDevice device;
  private final GpuKernels kernels;
  private final GpuProgram program;
  private final SelectionAggregate selection;
  private final FilterVariant variant;
  private final GpuProgramImage image;
  private final long trackedCalls;
  private final int multiprocessors;
  /** The join tables the program probes, or null. */
  private final GpuJoinTables joins;
  /** The HAVING conjunct applied while compacting the groups ({@link GpuHaving#words}). */
  private long[] having = GpuHaving.NONE;
  /** How the groups are regrouped on the device before they come back ({@link GpuRegroup}), or null. */
  private GpuRegroup.Layout regroup;

  /** {@code selection}: the specialized shape to run, or null for the interpreter. */
  GpuPass(CudaDevice device, GpuKernels kernels, GpuProgram program, SelectionAggregate selection,
      FilterVariant variant, GpuProgramImage image, long trackedCalls, GpuJoinTables joins) {
    this.joins = joins;
    this.device = device;
    this.kernels = kernels;
    this.program = program;
    this.selection = selection;
    this.variant = variant;
    this.image = image;
    this.trackedCalls = trackedCalls;
    this.multiprocessors = device.multiprocessors();
  }

  long trackedCalls() {
    return trackedCalls;
  }

  /** This pass bringing back only the groups that {@code words} keeps ({@link GpuHaving}); returns this. */
  GpuPass withHaving(long[] words) {
    this.having = words;
    return this;
  }

  /** This pass regrouping its groups on the device by {@code layout} before they come back; returns this. */
  GpuPass withRegroup(GpuRegroup.Layout layout) {
    this.regroup = layout;
    return this;
  }

  /** The expressions that error words point at: per instruction, or per sum of the selection kernel. */
  Expr[] origins() {
    return selection == null ? program.origins
        : selection.sums.stream().map(SelectionAggregate.Sum::product).toArray(Expr[]::new);
  }

  private CudaKernel kernel(long capacity) {
    if (selection != null) {
      return variant == FilterVariant.BRANCHING ? kernels.selectionBranching : kernels.selectionPredication;
    }
    return capacity == 0 ? kernels.global : kernels.grouped;
  }

  String kernelName(long capacity) {
    String name = kernel(capacity).name();
    return selection == null ? name + " (" + variant.label() + ")" : name;
  }

  /** Per batch and buffer: the cache entry serving it, or null (no cache, not cached, no such buffer). */
  static GpuColumnCache.Entry[][] resolve(GpuColumnCache.Session session, List<GpuBatchStreamer.BatchBuffers> batches) {
    GpuColumnCache.Entry[][] out = new GpuColumnCache.Entry[batches.size()][];
    for (int b = 0; b < batches.size(); b++) {
      GpuBatchStreamer.Buffer[] buffers = batches.get(b).buffers();
      out[b] = new GpuColumnCache.Entry[buffers.length];
      for (int i = 0; session != null && i < buffers.length; i++) {
        if (buffers[i] != null) {
          out[b][i] = session.acquire(buffers[i].owner(), buffers[i].column().address(),
              buffers[i].column().byteLength());
        }
      }
    }
    return out;
  }

  /**
   * {@code batches} with their plain-text columns read from the column cache where it holds them, or can take them
   * now (filled here, before any kernel reads them): a cached run then reads its text from GPU memory instead of over
   * the link (Q13's comments). Text the cache cannot take stays where it lies; without a session nothing changes.
   */
  static List<GpuBatchStreamer.BatchBuffers> withCachedText(GpuColumnCache.Session session, CudaDevice device,
      List<GpuBatchStreamer.BatchBuffers> batches) {
    if (session == null || batches.stream().allMatch(b -> b.text() == null)) {
      return batches;
    }
    List<GpuBatchStreamer.BatchBuffers> out = new ArrayList<>();
    CudaStream stream = GpuScratch.stream(device);
    try {
      for (GpuBatchStreamer.BatchBuffers batch : batches) {
        GpuBatchStreamer.TextColumn[] text = batch.text() == null ? null : batch.text().clone();
        for (int c = 0; text != null && c < text.length; c++) {
          text[c] = text[c] == null ? null : cachedText(session, text[c], stream);
        }
        out.add(new GpuBatchStreamer.BatchBuffers(batch.rows(), batch.buffers(), text));
      }
      stream.synchronize();  // the fills are done before any kernel reads the copies
    } finally {
      GpuScratch.release(device, stream);
    }
    return out;
  }

  /** A text column's copy in the cache (filled on {@code stream} where new), or the column as it is. */
  private static GpuBatchStreamer.TextColumn cachedText(GpuColumnCache.Session session,
      GpuBatchStreamer.TextColumn text, CudaStream stream) {
    GpuBatchStreamer.TextSource source = text.source();
    if (source == null || text.cached()) {
      return text;
    }
    GpuColumnCache.Entry offsets = session.acquire(source.offsets(), source.offsets().memoryAddress(),
        source.offsetsBytes());
    GpuColumnCache.Entry bytes = source.bytes() == null || offsets == null ? null
        : session.acquire(source.bytes(), source.bytes().memoryAddress(), source.bytesLength());
    if (offsets == null || source.bytes() != null && bytes == null) {
      return text;  // an entry acquired but not filled is dropped when the session closes
    }
    for (GpuColumnCache.Entry entry : bytes == null ? List.of(offsets) : List.of(offsets, bytes)) {
      if (session.mustFill(entry)) {
        session.fill(entry, stream);
      } else {
        session.await(entry, stream);
      }
    }
    return new GpuBatchStreamer.TextColumn(offsets.address(), bytes == null ? 0 : bytes.address(), text.byteLength(),
        source, true);
  }

  /** Runs the pass; see the class comment. */
  Outcome run(long capacity, int callCount, List<GpuBatchStreamer.BatchBuffers> batches,
      GpuColumnCache.Entry[][] resident, GpuColumnCache.Session session, GpuBatchStreamer streamer, long chunkRows,
      BooleanSupplier cancelled, Finisher finisher) {
    long entered = System.nanoTime();
    List<DeviceBuffer> borrowed = new ArrayList<>();
    CudaStream control = GpuScratch.stream(device);
    try {
      DeviceBuffer code = borrow(borrowed, image.bytes());
      image.upload(code);
      GpuAggregateState state = new GpuAggregateState(borrow(borrowed, GpuAggregateState.bytes(capacity, callCount)),
          capacity, callCount);
      state.initialize(kernels, code.pointer(image.callsOffset()), control);
      long[] argument = selection != null ? selection.argument(program.wideMask())
          : image.argument(code.address(), variant == FilterVariant.BRANCHING, trackedCalls, capacity, joins);
      CudaKernel kernel = kernel(capacity);
      int shared = selection != null ? 0 : textSharedBytes(batches);
      long tileRows = selection != null ? SelectionAggregate.TILE_ROWS : GpuColumnarPipeline.blockThreads();
      long[] traffic = traffic(batches, resident, session);
      long start = System.nanoTime();
      long kernelNanos = -1;
      if (allResident(batches, resident, session)) {
        kernelNanos = launchOverTables(List.of(residentChunks(batches, resident, session, control)), false, kernel,
            shared, tileRows, argument, state, control, borrowed, cancelled);
      } else if (streamer.mappedTables(resident)) {
        kernelNanos = launchOverTables(streamer.mappedTables(batches), true, kernel, shared, tileRows, argument,
            state, control, borrowed, cancelled);
      } else {
        DevicePointer statePointer = state.buffer().pointer();
        streamer.stream(batches, resident, session, chunkRows, (words, stream) -> kernel.launch(
            blocks(kernel, shared, (words[0] + tileRows - 1) / tileRows), GpuColumnarPipeline.blockThreads(), shared,
            stream, words, 0L, 0L, 0L, argument, statePointer), cancelled);
      }
      long nanos = System.nanoTime() - start;
      long[] header = state.header();
      boolean full = capacity > 0 && ((header[0] >>> 32) == GpuAggregateState.ERR_TABLE_FULL || header[1] * 2 > capacity);
      if (full) {
        return new Outcome(null, nanos, traffic[0], traffic[1], kernelNanos, 16, start - entered,
            System.nanoTime() - start - nanos);
      }
      long count = Math.max(1, header[1]);  // a compact state of no group keeps one empty slot (0 means global)
      GpuAggregateState groups = capacity > 0 && count < capacity
          ? state.compact(kernels, count, borrow(borrowed, GpuAggregateState.bytes(count, callCount)), control, having)
          : state;
      if (groups != state && having != GpuHaving.NONE) {  // again, into a state of the groups the filter kept
        long kept = Math.max(1, groups.header()[1]);
        groups = groups.compact(kernels, kept, borrow(borrowed, GpuAggregateState.bytes(kept, callCount)), control);
      }
      if (regroup != null && capacity > 0) {
        groups = regrouped(groups, count, control, borrowed);
      }
      ColumnVector[] result = finisher.finish(groups, header);
      return new Outcome(result, nanos, traffic[0], traffic[1], kernelNanos,
          16 + groups.bytes(), start - entered,
          System.nanoTime() - start - nanos);
    } finally {
      try {
        control.synchronize();  // nothing may still run on borrowed memory when it is given back
        GpuScratch.release(device, control);
      } finally {
        borrowed.forEach(b -> GpuScratch.release(device, b));
      }
    }
  }

  /** The outer groups of {@code groups} (a compacted state of {@code count} groups), compacted. */
  private GpuAggregateState regrouped(GpuAggregateState groups, long count, CudaStream control,
      List<DeviceBuffer> borrowed) {
    long capacity = regroup.capacity(count);
    GpuAggregateState outer = groups.regroup(kernels, regroup, capacity,
        borrow(borrowed, GpuAggregateState.bytes(capacity, regroup.calls())), control);
    long[] header = outer.header();
    if (header[0] != 0) {  // the table is sized to never fill: a failure here is a bug, not a fallback
      throw new IllegalStateException("regrouping " + count + " groups into a table of " + capacity + " slots failed: "
          + "error word " + Long.toHexString(header[0]));
    }
    long outerCount = Math.max(1, header[1]);
    return outer.compact(kernels, outerCount, borrow(borrowed, GpuAggregateState.bytes(outerCount, regroup.calls())),
        control);
  }

  private DeviceBuffer borrow(List<DeviceBuffer> borrowed, long bytes) {
    DeviceBuffer b = GpuScratch.acquire(device, bytes);
    borrowed.add(b);
    return b;
  }

  private int blocks(CudaKernel kernel, int sharedBytes, long tiles) {
    int perSm = selection != null ? GpuColumnarPipeline.SELECTION_BLOCKS_PER_SM : GpuColumnarPipeline.BLOCKS_PER_SM;
    return blocks(multiprocessors, residentPerSm(kernel, perSm, sharedBytes), tiles);
  }

  /** Blocks of a launch over {@code tiles} tiles: at most {@code perSm} per multiprocessor, each looping over tiles. */
  static int blocks(int multiprocessors, int perSm, long tiles) {
    return (int) Math.max(1, Math.min((long) multiprocessors * perSm, tiles));
  }

  /**
   * At most {@code perSm} blocks per multiprocessor, and no more than the kernel's registers and shared memory
   * ({@code sharedBytes} of it dynamic) let it hold at once: the blocks loop over tiles, so one resident wave does the
   * work of two without a half-idle second wave.
   */
  static int residentPerSm(CudaKernel kernel, int perSm, int sharedBytes) {
    return Math.min(perSm, kernel.residentBlocksPerMultiprocessor(GpuColumnarPipeline.blockThreads(), sharedBytes));
  }

  /** Bytes that cross the link in this pass (streamed, or copied into the cache) and bytes read from the cache. */
  static long[] traffic(List<GpuBatchStreamer.BatchBuffers> batches, GpuColumnCache.Entry[][] resident,
      GpuColumnCache.Session session) {
    long[] out = new long[2];
    for (int b = 0; b < batches.size(); b++) {
      GpuBatchStreamer.Buffer[] buffers = batches.get(b).buffers();
      for (int i = 0; i < buffers.length; i++) {
        if (buffers[i] != null) {
          boolean hit = resident[b][i] != null && !session.mustFill(resident[b][i]);
          out[hit ? 1 : 0] += buffers[i].column().byteLength();
        }
      }
      out[0] += textBytes(batches.get(b), false);
      out[1] += textBytes(batches.get(b), true);
    }
    return out;
  }

  /**
   * Dynamic shared memory for the kernels over {@code batches} to stage each tile's plain text (stage_text): a
   * share per text column, 0 when they have none.
   */
  static int textSharedBytes(List<GpuBatchStreamer.BatchBuffers> batches) {
    int columns = 0;
    for (GpuBatchStreamer.BatchBuffers batch : batches) {
      int here = 0;
      for (int c = 0; batch.text() != null && c < batch.text().length; c++) {
        here += batch.text()[c] == null ? 0 : 1;
      }
      columns = Math.max(columns, here);
    }
    return Math.min(columns, MAX_STAGED_TEXT_COLUMNS) * TEXT_TILE_BYTES;
  }

  /** Bytes of a batch's plain-text columns that the kernels read in place over the link (not from the cache). */
  static long textBytes(GpuBatchStreamer.BatchBuffers batch) {
    return textBytes(batch, false);
  }

  /** Bytes of a batch's plain-text columns read over the link ({@code cached} false) or from the column cache. */
  static long textBytes(GpuBatchStreamer.BatchBuffers batch, boolean cached) {
    long bytes = 0;
    for (int c = 0; batch.text() != null && c < batch.text().length; c++) {
      GpuBatchStreamer.TextColumn text = batch.text()[c];
      bytes += text == null || text.cached() != cached ? 0 : text.byteLength();
    }
    return bytes;
  }

  static boolean allResident(List<GpuBatchStreamer.BatchBuffers> batches, GpuColumnCache.Entry[][] resident,
      GpuColumnCache.Session session) {
    if (session == null) {
      return false;
    }
    for (int b = 0; b < batches.size(); b++) {
      GpuBatchStreamer.Buffer[] buffers = batches.get(b).buffers();
      for (int i = 0; i < buffers.length; i++) {
        if (buffers[i] != null && (resident[b][i] == null || session.mustFill(resident[b][i]))) {
          return false;
        }
      }
    }
    return true;
  }

  /**
   * The chunk descriptor of a whole batch whose buffers are resident ({@code resident}, per buffer), their fills
   * awaited on {@code stream}.
   */
  static long[] residentChunk(GpuBatchStreamer.BatchBuffers batch, GpuColumnCache.Entry[] resident,
      GpuColumnCache.Session session, CudaStream stream) {
    long[] words = GpuChunkTable.chunk(batch.rows());
    GpuChunkTable.text(words, batch.text(), 0);
    for (int i = 0; i < batch.buffers().length; i++) {
      GpuColumnCache.Entry entry = resident[i];
      if (entry != null) {
        session.await(entry, stream);
        words[batch.word(i)] = entry.address();
      }
    }
    return words;
  }

  /**
   * One launch per table of whole batches (their chunk descriptors), one after the other on {@code control}, each
   * table in a borrowed buffer that outlives the pass; cancellation is seen between launches; empty tables launch
   * nothing. The batches are resident in the column cache ({@link #residentChunks}: one table) or read in place over
   * the link ({@link GpuBatchStreamer#mappedTables}, {@code overLink}: their blocks claim tiles, see
   * {@link GpuChunkTable#claimTiles}). Returns the kernels' time by CUDA events.
   */
  private long launchOverTables(List<List<long[]>> tables, boolean overLink, CudaKernel kernel, int shared,
      long tileRows, long[] argument, GpuAggregateState state, CudaStream control, List<DeviceBuffer> borrowed,
      BooleanSupplier cancelled) {
    if (tables.stream().allMatch(List::isEmpty)) {
      return 0;
    }
    try (CudaEvent start = device.newEvent(true); CudaEvent end = device.newEvent(true)) {
      start.record(control);
      for (List<long[]> chunks : tables) {
        if (cancelled.getAsBoolean()) {
          throw new CancellationException("query cancelled");
        }
        if (chunks.isEmpty()) {
          continue;
        }
        long[] table = GpuChunkTable.table(chunks, tileRows);
        long tiles = GpuChunkTable.tiles(table, tileRows);
        boolean claim = overLink && GpuChunkTable.claimTiles();
        table = Arrays.copyOf(table, table.length + (claim ? 1 : 0));  // the tile counter after the table, zero
        DeviceBuffer tableBuffer = borrow(borrowed, table.length * 8L);
        GpuScratch.upload(tableBuffer, 0, Pointer.to(table), table.length * 8L, "GPU chunk table");
        long[] launch = GpuChunkTable.tableLaunch(claim ? tableBuffer.address() + (table.length - 1) * 8L : 0);
        kernel.launch(blocks(kernel, shared, tiles), GpuColumnarPipeline.blockThreads(), shared, control, launch,
            tableBuffer.pointer(), (long) chunks.size(), tiles, argument,
            state.buffer().pointer());
      }
      end.record(control);
      return Math.round(end.elapsedMillisSince(start) * 1e6);
    }
  }

  /** The chunk descriptors of every non-empty batch, all resident, their fills awaited on {@code control}. */
  private static List<long[]> residentChunks(List<GpuBatchStreamer.BatchBuffers> batches,
      GpuColumnCache.Entry[][] resident, GpuColumnCache.Session session, CudaStream control) {
    List<long[]> chunks = new ArrayList<>();
    for (int b = 0; b < batches.size(); b++) {
      if (batches.get(b).rows() > 0) {
        chunks.add(residentChunk(batches.get(b), resident[b], session, control));
      }
    }
    return chunks;
  }
}
