package org.spillway.gpu.pipeline.gpu;

import static jcuda.driver.JCudaDriver.cuMemcpyDtoH;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import jcuda.Pointer;
import org.spillway.gpu.device.CudaDevice;
import org.spillway.gpu.device.CudaEvent;
import org.spillway.gpu.device.CudaException;
import org.spillway.gpu.device.CudaKernel;
import org.spillway.gpu.device.CudaStream;
import org.spillway.gpu.device.DeviceBuffer;
import org.spillway.gpu.device.DevicePointer;
import org.spillway.gpu.device.HostBuffer;
import org.spillway.gpu.device.HostMemoryKind;
import org.spillway.gpu.pipeline.ColumnBatch;

/**
 * One run of a pipeline without an aggregation on the GPU ({@link GpuColumnarPipeline}): uploads the program
 * image and a zeroed error word, streams the batches through {@link GpuBatchStreamer} (cached buffers read in
 * place) with three launches per chunk (columnar_pipeline_rows.cu: the rows into a staging buffer in GPU memory, a
 * scan of the tiles' counts, and a gather of the rows into consecutive places of the output), and gives each stream
 * worker a ring of pooled pinned output buffers, each a window of selected rows ({@link GpuRowsLayout#window}), with
 * their staging buffers of whole chunks, one per chunk in flight. A chunk that selects more rows than a window holds
 * is gathered again into further windows once its kernels are done. When the ring is full, the oldest chunk's kernels
 * are awaited and its rows go to the {@link GpuRowsAssembler} on copying threads, whose buffers then serve later
 * chunks: copying rows into the result overlaps the streaming, the kernels and the launches of later chunks. Once
 * every chunk is done, the error word is read and turned into the CPU backend's exception.
 */
final class GpuRowsPass {
  /**
   * Threads per stream worker that copy done chunks' rows into the result: chunks of different batches in parallel, a
   * batch's chunks one after the other. With one, copying the rows of a pass that returns many of them took longer
   * than streaming and the kernels, and the worker waited for free buffers.
   */
  static final int ASSEMBLY_THREADS = 3;
  /** Threads of the one block that scans a chunk's tile counts (block_exclusive_scan in the kernel's 1025 slots). */
  private static final int SCAN_THREADS = 1024;
  /** The result, the pass's time, its bytes by origin and the bytes the kernels wrote back over the link. */
  record Outcome(List<ColumnBatch> result, long nanos, long streamedBytes, long cachedBytes, long returnedBytes) {}

  private final CudaDevice device;
  private final CudaKernel kernel;
  private final CudaKernel scan;
  private final CudaKernel gather;
  private final GpuProgram program;
  private final FilterVariant variant;
  private final GpuProgramImage image;
  /** The staging buffers' layout: whole chunks. */
  private final GpuRowsLayout staging;
  /** The output buffers' layout: windows of a chunk's selected rows. */
  private final GpuRowsLayout layout;
  private final int depth;
  private final int multiprocessors;
  /** The join tables the program probes, or null. */
  private final GpuJoinTables joins;

  /**
   * {@code depth}: output buffers per worker, the chunks it may have in flight (its pipeline's slots); {@code staging}:
   * the chunks' layout, {@code layout} that of the output windows ({@code staging.window(...)}).
   */
  GpuRowsPass(CudaDevice device, GpuKernels kernels, GpuProgram program, FilterVariant variant, GpuRowsLayout staging,
      GpuRowsLayout layout, int depth, GpuJoinTables joins) {
    if (layout.chunkRows() != staging.capacityRows()) {
      throw new IllegalArgumentException("output windows counting chunks of " + layout.chunkRows()
          + " rows for staged chunks of " + staging.capacityRows());
    }
    this.staging = staging;
    this.device = device;
    this.joins = joins;
    this.kernel = kernels.rows;
    this.scan = kernels.rowsScan;
    this.gather = kernels.rowsGather;
    this.program = program;
    this.variant = variant;
    this.layout = layout;
    long[] stagingWords = staging.words(program.outputs);
    long[] windowWords = layout.words(program.outputs);
    long[] words = Arrays.copyOf(stagingWords, stagingWords.length + windowWords.length);
    System.arraycopy(windowWords, 0, words, stagingWords.length, windowWords.length);
    this.image = new GpuProgramImage(program, new int[0], words);
    this.depth = Math.max(1, depth);
    this.multiprocessors = device.multiprocessors();
  }

  String kernelName() {
    return kernel.name() + " (" + variant.label() + ")";
  }

  /**
   * Runs the pass over every batch in chunks of the layout's capacity (see the class comment); {@code overTables}:
   * where every batch is resident in the column cache (and the GPU runs the whole scan),
   * groups of them run as one launch over a table of their descriptors ({@link #runOverTables}) instead of one
   * launch per batch.
   */
  Outcome run(List<GpuBatchStreamer.BatchBuffers> batches, GpuColumnCache.Entry[][] resident,
      GpuColumnCache.Session session, GpuBatchStreamer streamer, boolean overTables, BooleanSupplier cancelled) {
    DeviceBuffer code = GpuScratch.acquire(device, image.bytes() + 8L);
    try {
      image.upload(code);
      GpuScratch.upload(code, image.bytes(), Pointer.to(new long[1]), 8, "GPU rows error word");
      DevicePointer error = code.pointer(image.bytes());
      long[] argument = image.argument(code.address(), variant == FilterVariant.BRANCHING, 0, 0, joins);
      long columns = code.address() + image.outputsOffset();
      GpuRowsAssembler assembler = new GpuRowsAssembler(layout,
          batches.stream().mapToLong(GpuBatchStreamer.BatchBuffers::rows).toArray());
      AtomicLong returned = new AtomicLong();
      long[] traffic = GpuPass.traffic(batches, resident, session);
      long start = System.nanoTime();
      int shared = GpuPass.textSharedBytes(batches);
      boolean cached = GpuPass.allResident(batches, resident, session);
      if (overTables && (cached || streamer.mappedTables(resident)) && fitsTables(batches)) {
        runOverTables(batches, resident, session, cached ? null : streamer,
            new Outputs(assembler, returned, argument, columns, error, shared), cancelled);
      } else {
        streamer.stream(batches, resident, session, staging.capacityRows(),
            () -> new Outputs(assembler, returned, argument, columns, error, shared), cancelled);
      }
      long nanos = System.nanoTime() - start;
      long[] word = {0};
      CudaException.check(cuMemcpyDtoH(Pointer.to(word), error, 8), "cuMemcpyDtoH(GPU rows error word)");
      GpuPipelineErrors.throwIfFailed(word[0], program.origins);
      return new Outcome(assembler.result(), nanos, traffic[0], traffic[1], returned.get());
    } finally {
      GpuScratch.release(device, code);  // every kernel is done: the streamer returns after its workers' streams
    }
  }

  /** Whether every batch's tiles fit one output buffer (so that each group of batches holds at least one). */
  private boolean fitsTables(List<GpuBatchStreamer.BatchBuffers> batches) {
    for (GpuBatchStreamer.BatchBuffers batch : batches) {
      if (GpuRowsLayout.tiles(batch.rows()) * GpuRowsLayout.TILE_ROWS > staging.capacityRows()) {
        return false;
      }
    }
    return true;
  }

  /**
   * Every batch read in place from the column cache, or over the link at its mapped addresses ({@code inPlace}, the
   * zero-copy streamer; null for the cache), in groups of consecutive batches whose tiles fill at most one
   * output buffer: per group one table of the batches' chunk descriptors (each batch starting a tile) and one launch of
   * each kernel, queued on one stream while the copying thread assembles the groups before. A launch per batch would
   * cost more in launches and host round trips than the kernels take over resident columns.
   */
  private void runOverTables(List<GpuBatchStreamer.BatchBuffers> batches, GpuColumnCache.Entry[][] resident,
      GpuColumnCache.Session session, GpuBatchStreamer inPlace, Outputs outputs, BooleanSupplier cancelled) {
    Map<Long, Long> mapped = new HashMap<>();
    CudaStream stream = GpuScratch.stream(device);
    DeviceBuffer tables = null;
    boolean completed = false;
    try {
      long capacityTiles = staging.capacityRows() / GpuRowsLayout.TILE_ROWS;
      List<int[]> groups = new ArrayList<>();  // first batch, batch count
      List<long[]> descriptors = new ArrayList<>();
      int first = 0;
      long tiles = 0;
      for (int b = 0; b < batches.size(); b++) {
        long batchTiles = GpuRowsLayout.tiles(batches.get(b).rows());
        if (b > first && tiles + batchTiles > capacityTiles) {
          groups.add(new int[] {first, b - first});
          first = b;
          tiles = 0;
        }
        tiles += batchTiles;
        descriptors.add(inPlace != null ? inPlace.mappedChunk(batches.get(b), mapped)
            : GpuPass.residentChunk(batches.get(b), resident[b], session, stream));
      }
      if (first < batches.size()) {
        groups.add(new int[] {first, batches.size() - first});
      }
      boolean claim = inPlace != null && GpuChunkTable.claimTiles();
      long[] all = new long[batches.size() * GpuChunkTable.WORDS + (claim ? groups.size() : 0)];  // then counters
      for (int[] g : groups) {  // each group's table counts its tiles from 0
        long[] table = GpuChunkTable.table(descriptors.subList(g[0], g[0] + g[1]), GpuRowsLayout.TILE_ROWS);
        System.arraycopy(table, 0, all, g[0] * GpuChunkTable.WORDS, table.length);
      }
      tables = GpuScratch.acquire(device, Math.max(8, all.length * 8L));
      GpuScratch.upload(tables, 0, Pointer.to(all), all.length * 8L, "GPU chunk tables");
      for (int i = 0; i < groups.size(); i++) {
        int[] g = groups.get(i);
        long counter = claim ? tables.address() + (batches.size() * GpuChunkTable.WORDS + i) * 8L : 0;
        if (cancelled.getAsBoolean()) {
          throw new CancellationException("query cancelled");
        }
        long[] table = Arrays.copyOfRange(all, g[0] * GpuChunkTable.WORDS, (g[0] + g[1]) * GpuChunkTable.WORDS);
        long rows = 0;
        for (int b = g[0]; b < g[0] + g[1]; b++) {
          rows += batches.get(b).rows();
        }
        outputs.launchTable(g[0], g[1], rows, tables.address() + g[0] * GpuChunkTable.WORDS * 8L, g[1],
            GpuChunkTable.tiles(table, GpuRowsLayout.TILE_ROWS), counter, stream);
      }
      completed = true;
    } finally {
      try {
        outputs.finish(completed);
      } finally {
        stream.synchronize();  // nothing may still read the tables when they are given back
        GpuScratch.release(device, stream);
        if (tables != null) {
          GpuScratch.release(device, tables);
        }
      }
    }
  }

  /**
   * A pooled pinned output buffer (the first window), the address kernels write it at, the staging buffer in GPU
   * memory (the staging layout's bytes, then the tiles' first output positions), the event that marks its chunk done,
   * and the further windows its chunk's rows took (given back with it).
   */
  private record OutputBuffer(HostBuffer host, long deviceAddress, DeviceBuffer staging, CudaEvent done,
      CudaEvent timedStart, CudaEvent timedEnd, List<HostBuffer> windows) {
    long offsetsAddress(GpuRowsLayout stagingLayout) {
      return staging.address() + stagingLayout.bytes();
    }
  }

  /** A chunk whose kernel was launched: where its rows belong, its buffer, its tiles and the stream it runs on. */
  private record InFlight(int batch, int batches, long firstRow, long rows, long tiles, OutputBuffer out,
      CudaStream stream, boolean table) {}

  /**
   * One worker's ring of output buffers in flight (oldest first), the ones whose rows are being copied into the
   * result (oldest first) and its spare ones. The copies run on {@link #ASSEMBLY_THREADS} threads of their own while
   * the worker streams and launches the next chunks: a chunk that shares a batch with the one before it (a batch
   * split over chunks) is copied after it, so that a batch's rows are added in row order by one thread at a time.
   */
  private final class Outputs implements GpuBatchStreamer.WorkerSink {
    private final ArrayDeque<InFlight> inFlight = new ArrayDeque<>();
    private final ArrayDeque<Future<OutputBuffer>> assembling = new ArrayDeque<>();
    private final ArrayDeque<OutputBuffer> spare = new ArrayDeque<>();
    private final ExecutorService copier = Executors.newFixedThreadPool(ASSEMBLY_THREADS, runnable -> {
      Thread thread = new Thread(runnable, "spillway-gpu-rows-assembly");
      thread.setDaemon(true);
      return thread;
    });
    /** The copy of the chunk collected last, and the last batch it holds (-1: none yet). */
    private CompletableFuture<OutputBuffer> lastCopy;
    private int lastCopyBatch = -1;
    /** Output buffers taken so far: at most twice the chunks in flight. */
    private int buffers;
    /** The first failure of a copy into the result. */
    private final AtomicReference<RuntimeException> copyFailure = new AtomicReference<>();
    private final GpuRowsAssembler assembler;
    private final AtomicLong returned;
    private final long[] argument;
    private final long columns;
    private final DevicePointer error;
    /** Dynamic shared memory of the rows kernel: the tile's plain text ({@link GpuPass#textSharedBytes}). */
    private final int shared;
    /** Trace-only timings of this worker: the kernels' time by CUDA events and the host's time per step. */
    private final boolean timing = Boolean.getBoolean("spillway.trace");
    private final long created = System.nanoTime();
    private double kernelMillis;
    private long launchNanos;
    private long waitNanos;
    private final AtomicLong addNanos = new AtomicLong();
    private int chunks;

    Outputs(GpuRowsAssembler assembler, AtomicLong returned, long[] argument, long columns, DevicePointer error,
        int shared) {
      this.shared = shared;
      this.assembler = assembler;
      this.returned = returned;
      this.argument = argument;
      this.columns = columns;
      this.error = error;
    }

    @Override public void launch(int batch, int batches, long firstRow, long rows, long[] chunk, CudaStream stream) {
      if (inFlight.size() >= depth) {
        collect(inFlight.poll());
      }
      OutputBuffer out = nextBuffer();
      long tiles = GpuRowsLayout.tiles(rows);
      inFlight.add(new InFlight(batch, batches, firstRow, rows, tiles, out, stream, false));  // before the launch: a failure finds it
      long launchStart = System.nanoTime();
      if (timing) {
        out.timedStart().record(stream);
      }
      int blocks = GpuPass.blocks(multiprocessors,
          GpuPass.residentPerSm(kernel, GpuColumnarPipeline.BLOCKS_PER_SM, shared), tiles);
      kernel.launch(blocks, GpuColumnarPipeline.blockThreads(), shared, stream, chunk, 0L, 0L, 0L, argument,
          stagingArg(out), error);
      finishLaunch(out, tiles, blocks, stream, launchStart);
    }

    /**
     * As {@link #launch}, over every row of the {@code batches} consecutive resident batches from {@code batch},
     * whose {@code tableCount} chunk descriptors of {@code tiles} tiles lie at device address {@code table}; its
     * blocks claim tiles from the zeroed counter at device address {@code counter} (0: fixed shares).
     */
    void launchTable(int batch, int batches, long rows, long table, long tableCount, long tiles, long counter,
        CudaStream stream) {
      if (inFlight.size() >= depth) {
        collect(inFlight.poll());
      }
      OutputBuffer out = nextBuffer();
      inFlight.add(new InFlight(batch, batches, 0, rows, tiles, out, stream, true));
      long launchStart = System.nanoTime();
      if (timing) {
        out.timedStart().record(stream);
      }
      int blocks = GpuPass.blocks(multiprocessors,
          GpuPass.residentPerSm(kernel, GpuColumnarPipeline.BLOCKS_PER_SM, shared), tiles);
      kernel.launch(blocks, GpuColumnarPipeline.blockThreads(), shared, stream, GpuChunkTable.tableLaunch(counter),
          table, tableCount, tiles, argument, stagingArg(out), error);
      finishLaunch(out, tiles, blocks, stream, launchStart);
    }

    /** The RowsArg of a buffer's staging: whole chunks, at the staging layout's column words. */
    private long[] stagingArg(OutputBuffer out) {
      return new long[] {out.staging().address(), columns, staging.columnCount(), staging.countsAt()};
    }

    /** The RowsArg of an output window mapped at {@code deviceAddress}, at the window layout's column words. */
    private long[] windowArg(long deviceAddress) {
      return new long[] {deviceAddress, columns + 4L * 8 * staging.columnCount(), layout.columnCount(),
          layout.countsAt()};
    }

    /** The scan and gather (into the first window) of a launched chunk's {@code tiles}, and the events that mark it done. */
    private void finishLaunch(OutputBuffer out, long tiles, int blocks, CudaStream stream, long launchStart) {
      long[] outputArg = windowArg(out.deviceAddress());
      scan.launch(1, SCAN_THREADS, stream, stagingArg(out), outputArg, tiles, out.offsetsAddress(staging));
      gather.launch(blocks, GpuRowsLayout.TILE_ROWS, stream, stagingArg(out), outputArg, tiles,
          out.offsetsAddress(staging), 0L, layout.capacityRows());
      if (timing) {
        out.timedEnd().record(stream);
      }
      out.done().record(stream);
      launchNanos += System.nanoTime() - launchStart;
    }

    /** A spare buffer, one whose rows were copied, a new one while fewer than twice the depth exist, or the next freed. */
    private OutputBuffer nextBuffer() {
      while (!assembling.isEmpty() && assembling.peek().isDone()) {
        spare.push(await(assembling.poll()));
      }
      if (!spare.isEmpty()) {
        return spare.pop();
      }
      if (buffers < 2 * depth || assembling.isEmpty()) {
        buffers++;
        return acquire();
      }
      long waitStart = System.nanoTime();
      OutputBuffer freed = await(assembling.poll());
      waitNanos += System.nanoTime() - waitStart;
      return freed;
    }

    /** The buffer of a finished copy, its further windows given back; a copy's failure is thrown once it is back. */
    private OutputBuffer await(Future<OutputBuffer> copy) {
      try {
        OutputBuffer buffer = copy.get();
        releaseWindows(buffer);
        if (copyFailure.get() != null) {
          spare.push(buffer);
          throw copyFailure.get();
        }
        return buffer;
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new CancellationException("interrupted while GPU rows were copied into the result");
      } catch (ExecutionException e) {
        throw e.getCause() instanceof RuntimeException r ? r
            : new IllegalStateException("copying GPU rows into the result failed: " + e.getCause(), e.getCause());
      }
    }

    private OutputBuffer acquire() {
      HostBuffer host = GpuScratch.acquireHost(device, layout.bytes());
      DeviceBuffer chunk = null;
      try {
        chunk = GpuScratch.acquire(device, staging.bytes() + 4 * (GpuRowsLayout.tiles(staging.capacityRows()) + 1));
        return new OutputBuffer(host, HostMemoryKind.mappedDeviceAddress(device, host.address()), chunk,
            GpuScratch.event(device), timing ? device.newEvent(true) : null, timing ? device.newEvent(true) : null,
            new ArrayList<>());
      } catch (RuntimeException e) {
        if (chunk != null) {
          GpuScratch.release(device, chunk);
        }
        GpuScratch.release(device, host);
        throw e;
      }
    }

    /**
     * Waits for the chunk's kernels and hands its rows to the copying thread, which gives its buffer back for a later
     * chunk.
     */
    private void collect(InFlight chunk) {
      long waitStart = System.nanoTime();
      try {
        chunk.out().done().synchronize();
      } catch (RuntimeException e) {
        spare.push(chunk.out());
        throw e;
      }
      waitNanos += System.nanoTime() - waitStart;
      if (timing) {
        kernelMillis += chunk.out().timedEnd().elapsedMillisSince(chunk.out().timedStart());
      }
      chunks++;
      long[] windows;
      try {
        windows = gatherWindows(chunk);
      } catch (RuntimeException e) {
        releaseWindows(chunk.out());
        spare.push(chunk.out());
        throw e;
      }
      Supplier<OutputBuffer> copy = () -> {  // the buffer comes back whatever happens; a failure is kept aside
        long addStart = System.nanoTime();
        try {
          long selected = assembler.add(chunk.batch(), chunk.batches(), chunk.firstRow(), chunk.rows(), windows,
              chunk.table());
          returned.addAndGet(layout.writtenBytes(chunk.rows(), selected));
        } catch (RuntimeException e) {
          copyFailure.compareAndSet(null, e);
        } finally {
          addNanos.addAndGet(System.nanoTime() - addStart);
        }
        return chunk.out();
      };
      boolean sharesABatch = chunk.batch() <= lastCopyBatch;
      lastCopy = sharesABatch ? lastCopy.handleAsync((before, failure) -> copy.get(), copier)
          : CompletableFuture.supplyAsync(copy, copier);
      lastCopyBatch = chunk.batch() + chunk.batches() - 1;
      assembling.add(lastCopy);
    }

    /**
     * The addresses of the windows that hold a done chunk's selected rows: its buffer alone, or, where the chunk
     * selected more rows than a window holds, further pooled windows that the gather fills now from the staging buffer,
     * which no later chunk writes before this one's rows are copied.
     */
    private long[] gatherWindows(InFlight chunk) {
      OutputBuffer out = chunk.out();
      long selected = layout.selected(out.host().address(), chunk.tiles());
      long window = layout.capacityRows();
      int count = (int) Math.max(1, (selected + window - 1) / window);
      long[] addresses = new long[count];
      addresses[0] = out.host().address();
      if (count == 1) {
        return addresses;
      }
      long waitStart = System.nanoTime();
      int blocks = GpuPass.blocks(multiprocessors, GpuColumnarPipeline.BLOCKS_PER_SM, chunk.tiles());
      for (int w = 1; w < count; w++) {
        HostBuffer host = GpuScratch.acquireHost(device, layout.bytes());
        out.windows().add(host);
        addresses[w] = host.address();
        gather.launch(blocks, GpuRowsLayout.TILE_ROWS, chunk.stream(), stagingArg(out),
            windowArg(HostMemoryKind.mappedDeviceAddress(device, host.address())), chunk.tiles(),
            out.offsetsAddress(staging), w * window, window);
      }
      out.done().record(chunk.stream());
      out.done().synchronize();
      waitNanos += System.nanoTime() - waitStart;
      return addresses;
    }

    /** Gives back the further windows a buffer's chunk took. */
    private void releaseWindows(OutputBuffer out) {
      for (HostBuffer window : out.windows()) {
        GpuScratch.release(device, window);
      }
      out.windows().clear();
    }

    /** Waits for every copy still running; their buffers become spare; the first failure is returned. */
    private RuntimeException drainCopies(RuntimeException failure) {
      while (!assembling.isEmpty()) {
        try {
          spare.push(await(assembling.poll()));
        } catch (RuntimeException e) {  // the buffer is spare already where the copy failed
          failure = failure == null ? e : failure;
        }
      }
      return failure;
    }

    @Override public void finish(boolean completed) {
      RuntimeException failure = null;
      try {
        while (completed && !inFlight.isEmpty()) {
          collect(inFlight.poll());
        }
      } catch (RuntimeException e) {
        failure = e;
      }
      for (InFlight chunk : inFlight) {  // after a failure: nothing may still write a buffer given back
        try {
          chunk.stream().synchronize();
        } catch (RuntimeException e) {
          failure = failure == null ? e : failure;
        }
        spare.push(chunk.out());
      }
      inFlight.clear();
      failure = drainCopies(failure);  // nothing may still read a buffer given back either
      copier.shutdown();
      if (timing) {
        System.err.printf("[spillway] gpu rows worker %s: %d chunks in %.1f ms: kernels %.1f ms (CUDA events),"
            + " host launching %.1f ms, waiting %.1f ms, assembling %.1f ms (all copying threads)%n",
            Thread.currentThread().getName(), chunks, (System.nanoTime() - created) / 1e6, kernelMillis, launchNanos / 1e6, waitNanos / 1e6,
            addNanos.get() / 1e6);
      }
      for (OutputBuffer out : spare) {
        if (out.timedStart() != null) {
          out.timedStart().close();
          out.timedEnd().close();
        }
        GpuScratch.release(device, out.host());
        GpuScratch.release(device, out.staging());
        GpuScratch.release(device, out.done());
      }
      spare.clear();
      if (failure != null) {
        throw failure;
      }
    }
  }
}
