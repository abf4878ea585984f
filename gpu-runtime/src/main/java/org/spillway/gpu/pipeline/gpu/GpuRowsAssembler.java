package org.spillway.gpu.pipeline.gpu;

import org.spillway.gpu.vector.ColumnVector;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.IntStream;
import org.apache.arrow.memory.util.MemoryUtil;
import org.spillway.gpu.device.HostCopy;
import org.spillway.gpu.pipeline.ColumnBatch;
import org.spillway.gpu.pipeline.cpu.ColumnarPipeline;
import org.spillway.gpu.pipeline.scheduler.MorselScheduler;

/**
 * Turns the chunk outputs of the columnar_pipeline_rows kernel ({@link GpuRowsLayout}) into the result the
 * CPU backend ({@link ColumnarPipeline}) returns for the same pipeline: one {@link ColumnBatch} per morsel of
 * {@link MorselScheduler#MORSEL_ROWS} input rows of a batch that kept a row, in input order, with the
 * pipeline's output types, 0 in NULL rows and NULL flags only for columns that hold a NULL. Chunks start at
 * multiples of {@link GpuRowsLayout#TILE_ROWS} rows, so every tile lies in one morsel. The chunks of one batch
 * must be added in row order, by one thread; different batches may be added by different threads, and the batches
 * of a chunk that holds several are read in parallel. A chunk's selected rows may span several output windows
 * ({@link GpuRowsLayout#window}), the first of which holds the chunk's counts.
 */
final class GpuRowsAssembler {
  /** Per copying thread: 32-bit values read in bulk before they are widened ({@link MorselRows#widen}). */
  private static final ThreadLocal<int[]> INT_SCRATCH = ThreadLocal.withInitial(() -> new int[0]);
  private final GpuRowsLayout layout;
  /** Per batch: its finished morsels' rows, then the one being filled (or null). */
  private final List<List<ColumnBatch>> done = new ArrayList<>();
  private final MorselRows[] open;
  /** Per batch: how many rows its last finished morsel kept, the next one's first guess of its size. */
  private final int[] lastMorselRows;
  /** Per batch: its rows. */
  private final long[] batchRows;

  GpuRowsAssembler(GpuRowsLayout layout, long[] batchRows) {
    this.layout = layout;
    this.batchRows = batchRows.clone();
    this.open = new MorselRows[batchRows.length];
    this.lastMorselRows = new int[batchRows.length];
    for (int b = 0; b < batchRows.length; b++) {
      done.add(new ArrayList<>());
    }
  }

  /**
   * Reads the output of a chunk from its buffer at {@code address}: rows {@code firstRow .. firstRow + rows - 1} of
   * batch {@code batch} when {@code batches} is 1, else all rows of batches {@code batch .. batch + batches - 1}, one
   * after the other (each but the last of whole tiles); returns how many rows the chunk selected.
   */
  long add(int batch, int batches, long firstRow, long rows, long address) {
    return add(batch, batches, firstRow, rows, new long[] {address}, false);
  }

  /**
   * As above; {@code tilePerBatch}: the chunk was a table of whole batches ({@link GpuChunkTable#table}), each starting
   * a tile of its own, so a batch need not hold whole tiles to be followed by another; {@code windows}: the
   * addresses of the output windows that hold the chunk's selected rows, in order.
   */
  long add(int batch, int batches, long firstRow, long rows, long[] windows, boolean tilePerBatch) {
    if (firstRow % GpuRowsLayout.TILE_ROWS != 0 || rows > layout.chunkRows()) {
      throw new IllegalArgumentException("chunk of " + rows + " rows at row " + firstRow + " does not fit the GPU"
          + " output layout (tiles of " + GpuRowsLayout.TILE_ROWS + ", " + layout.chunkRows() + " rows)");
    }
    long address = windows[0];
    if (batches == 1) {
      return add(batch, firstRow, rows, windows, 0, 0);
    }
    // where each batch's tiles and selected rows start; then the batches are read in parallel (they share no state)
    long[] firstTile = new long[batches + 1];
    long[] firstPosition = new long[batches + 1];
    for (int i = 0; i < batches; i++) {
      int b = batch + i;
      if (!tilePerBatch && i + 1 < batches && batchRows[b] % GpuRowsLayout.TILE_ROWS != 0) {
        throw new IllegalArgumentException("batch " + b + " of " + batchRows[b] + " rows is followed by another in"
            + " one chunk but holds no whole tiles of " + GpuRowsLayout.TILE_ROWS + " rows");
      }
      long tiles = GpuRowsLayout.tiles(batchRows[b]);
      long counted = 0;
      for (long t = firstTile[i]; t < firstTile[i] + tiles; t++) {
        counted += MemoryUtil.getInt(address + layout.countsAt() + 4 * t) & 0xffffffffL;
      }
      firstTile[i + 1] = firstTile[i] + tiles;
      firstPosition[i + 1] = firstPosition[i] + counted;
    }
    long covered = Arrays.stream(batchRows, batch, batch + batches).sum();
    if (covered != rows || firstRow != 0) {
      throw new IllegalArgumentException("a chunk of batches " + batch + ".." + (batch + batches - 1) + " holds "
          + covered + " rows from row 0, not " + rows + " from row " + firstRow);
    }
    IntStream.range(0, batches).parallel().forEach(i -> add(batch + i, 0, batchRows[batch + i], windows,
        firstTile[i], firstPosition[i]));
    return firstPosition[batches];
  }

  /**
   * Reads rows {@code firstRow .. firstRow + rows - 1} of batch {@code batch}, whose tiles start at tile
   * {@code firstTile} of the chunk's counts and whose selected rows at position {@code firstPosition}.
   */
  private long add(int batch, long firstRow, long rows, long[] windows, long firstTile, long firstPosition) {
    long address = windows[0];
    // The chunk's rows lie consecutively in tile order, so a morsel's rows are one run: appended at once.
    long selected = firstPosition;
    long runStart = firstPosition;
    long runMorsel = -1;
    for (long t = 0; t < GpuRowsLayout.tiles(rows); t++) {
      long tileFirst = t * GpuRowsLayout.TILE_ROWS;
      long count = MemoryUtil.getInt(address + layout.countsAt() + 4 * (firstTile + t)) & 0xffffffffL;
      if (count > Math.min(GpuRowsLayout.TILE_ROWS, rows - tileFirst)) {
        throw new IllegalStateException("GPU rows kernel reported " + count + " selected rows for a tile of "
            + Math.min(GpuRowsLayout.TILE_ROWS, rows - tileFirst) + " rows (batch " + batch + ", row "
            + (firstRow + tileFirst) + ")");
      }
      long morsel = (firstRow + tileFirst) / MorselScheduler.MORSEL_ROWS;
      if (morsel != runMorsel) {
        appendRun(batch, runMorsel, windows, runStart, selected - runStart, whole(batch, runMorsel, firstRow, rows));
        runMorsel = morsel;
        runStart = selected;
      }
      selected += count;
    }
    appendRun(batch, runMorsel, windows, runStart, selected - runStart, whole(batch, runMorsel, firstRow, rows));
    return selected - firstPosition;
  }

  /** Whether rows {@code firstRow .. firstRow + rows - 1} of the batch hold every row of its morsel {@code morsel}. */
  private boolean whole(int batch, long morsel, long firstRow, long rows) {
    long start = morsel * MorselScheduler.MORSEL_ROWS;
    return start >= firstRow && Math.min(start + MorselScheduler.MORSEL_ROWS, batchRows[batch]) <= firstRow + rows;
  }

  /**
   * Appends the selected rows {@code first .. first + count - 1} of the chunk, window by window; {@code whole}: they
   * are all the morsel's, so its arrays take exactly their size (neither regrown nor trimmed by a copy).
   */
  private void appendRun(int batch, long morsel, long[] windows, long first, long count, boolean whole) {
    long window = layout.capacityRows();
    while (count > 0) {
      long at = first % window;
      long n = Math.min(count, window - at);
      int w = (int) (first / window);
      if (w >= windows.length) {
        throw new IllegalStateException("selected row " + first + " lies beyond the " + windows.length
            + " output windows of " + window + " rows");
      }
      rowsOf(batch, morsel, whole ? (int) count : -1).append(windows[w], at, (int) n);
      first += n;
      count -= n;
    }
  }

  /**
   * The morsel {@code index} of the batch, finishing the one before it; {@code exactRows}: its rows, where known (else
   * -1).
   */
  private MorselRows rowsOf(int batch, long index, int exactRows) {
    MorselRows current = open[batch];
    if (current != null && current.index == index) {
      return current;
    }
    if (current != null) {
      if (current.index > index) {
        throw new IllegalStateException("chunks of batch " + batch + " added out of order");
      }
      done.get(batch).add(current.finish());
      lastMorselRows[batch] = current.rows;
    }
    // sized exactly where one chunk holds the whole morsel, else like the morsel before it (filters keep similar
    // fractions of neighbouring morsels): few or no regrowths
    int guess = exactRows >= 0 ? exactRows
        : Math.min(MorselScheduler.MORSEL_ROWS, Math.max(GpuRowsLayout.TILE_ROWS, lastMorselRows[batch] + 1024));
    open[batch] = new MorselRows(index, guess);
    return open[batch];
  }

  /** The result, once every chunk was added. */
  List<ColumnBatch> result() {
    List<ColumnBatch> out = new ArrayList<>();
    for (int b = 0; b < open.length; b++) {
      out.addAll(done.get(b));
      if (open[b] != null) {
        out.add(open[b].finish());
      }
    }
    return out;
  }

  /** The selected rows of one morsel so far: values and NULL flags per output column, grown as tiles come. */
  private final class MorselRows {
    final long index;
    final long[][] values;
    final boolean[][] nulls;
    int rows;

    MorselRows(long index, int capacity) {
      this.index = index;
      this.values = new long[layout.columnCount()][];
      this.nulls = new boolean[layout.columnCount()][];
      for (int k = 0; k < values.length; k++) {
        values[k] = new long[capacity];
      }
    }

    /** Appends {@code count} rows from position {@code first} of the chunk buffer at {@code address}. */
    void append(long address, long first, int count) {
      int size = rows + count;
      for (int k = 0; k < values.length; k++) {
        if (values[k].length < size) {
          values[k] = Arrays.copyOf(values[k], Math.max(size, 2 * values[k].length));
        }
        long[] v = values[k];
        long from = address + layout.valuesAt(k);
        switch (layout.width(k)) {
          case 8 -> HostCopy.get(from + 8 * first, v, rows, count);
          case 4 -> widen(from + 4 * first, v, rows, count);
          default -> { for (int i = 0; i < count; i++) v[rows + i] = MemoryUtil.getByte(from + first + i); }
        }
        if (layout.flagsAt(k) >= 0) {
          appendNulls(k, address + layout.flagsAt(k) + first, count, v.length);
        }
      }
      rows = size;
    }

    /**
     * Copies {@code count} 32-bit values at {@code address} into {@code v} from {@code at}, sign-extended: one bulk copy
     * into the thread's scratch, then a loop the JIT vectorizes (a read per value through MemoryUtil was the
     * assembly's largest cost).
     */
    private void widen(long address, long[] v, int at, int count) {
      int[] ints = INT_SCRATCH.get();
      if (ints.length < count) {
        ints = new int[Math.max(count, MorselScheduler.MORSEL_ROWS)];
        INT_SCRATCH.set(ints);
      }
      HostCopy.getInts(address, ints, 0, count);
      for (int i = 0; i < count; i++) {
        v[at + i] = ints[i];
      }
    }

    /** Flags rows from {@code rows} on; the flag array exists only once a NULL was seen. */
    private void appendNulls(int k, long flags, int count, int capacity) {
      for (int i = 0; i < count; i++) {
        if (MemoryUtil.getByte(flags + i) != 0) {
          if (nulls[k] == null) {
            nulls[k] = new boolean[capacity];
          } else if (nulls[k].length < capacity) {
            nulls[k] = Arrays.copyOf(nulls[k], capacity);
          }
          nulls[k][rows + i] = true;
        }
      }
    }

    ColumnBatch finish() {
      ColumnVector[] columns = new ColumnVector[values.length];
      for (int k = 0; k < columns.length; k++) {
        long[] v = values[k].length == rows ? values[k] : Arrays.copyOf(values[k], rows);
        boolean[] n = nulls[k] == null || nulls[k].length == rows ? nulls[k] : Arrays.copyOf(nulls[k], rows);
        columns[k] = ColumnVector.ofLongs(layout.types().get(k), v, n, rows);
      }
      return new ColumnBatch(columns, rows);
    }
  }
}
