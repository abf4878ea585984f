package org.spillway.gpu.pipeline.gpu;

import org.spillway.gpu.vector.ExprType;
import java.util.List;
import org.apache.arrow.memory.util.MemoryUtil;

/**
 * Where the columnar_pipeline_rows kernels write the selected rows of a chunk: per output column a region of
 * values (1 byte for BOOLEAN, 4 for INT32, DATE and STRING codes, 8 for INT64 and DECIMAL) for
 * {@code capacityRows} rows, then a flag byte per row (1: NULL) for each column that may be NULL in this run, then
 * one 32-bit count per tile of {@link #TILE_ROWS} rows for chunks of up to {@code chunkRows} rows; each region starts
 * 128-byte aligned. The staging buffer in GPU memory holds a whole chunk (its capacity is the chunk's rows): the rows
 * of tile t occupy positions {@code t * TILE_ROWS} to {@code t * TILE_ROWS + count - 1}. An output buffer (pinned,
 * mapped host memory; {@link #window}) is a window of the chunk's selected rows, in input order (tile by tile, as the
 * counts say): window w holds selected rows {@code w * capacityRows} on, and the first window the counts. Only the
 * selected rows and the counts are written, so only they cross the link.
 */
final class GpuRowsLayout {
  /** Rows per tile: kBlock of columnar_pipeline_rows.cu (one row per thread of a block). */
  static final int TILE_ROWS = 256;
  private static final long ALIGN = 128;

  private final List<ExprType> types;
  private final boolean[] nullable;
  private final int[] widths;
  private final long[] valuesAt;
  private final long[] flagsAt;
  private final long countsAt;
  private final long bytes;
  private final long capacityRows;
  private final long chunkRows;

  /**
   * The layout for output columns of {@code types}, {@code nullable[k]} saying whether column k may be NULL,
   * and chunks of at most {@code capacityRows} rows, a positive multiple of {@link #TILE_ROWS}, every one of them
   * in place.
   */
  GpuRowsLayout(List<ExprType> types, boolean[] nullable, long capacityRows) {
    this(types, nullable, capacityRows, capacityRows);
  }

  /** As above, holding {@code capacityRows} rows and the tiles' counts of chunks of up to {@code chunkRows} rows. */
  private GpuRowsLayout(List<ExprType> types, boolean[] nullable, long capacityRows, long chunkRows) {
    for (long rows : new long[] {capacityRows, chunkRows}) {
      if (rows <= 0 || rows % TILE_ROWS != 0) {
        throw new IllegalArgumentException("rows of a GPU output chunk must be a positive multiple of " + TILE_ROWS
            + ", got " + rows);
      }
    }
    if (nullable.length != types.size()) {
      throw new IllegalArgumentException(nullable.length + " NULL flags for " + types.size() + " output columns");
    }
    this.types = List.copyOf(types);
    this.nullable = nullable.clone();
    this.capacityRows = capacityRows;
    this.chunkRows = chunkRows;
    int n = types.size();
    widths = new int[n];
    valuesAt = new long[n];
    flagsAt = new long[n];
    long at = 0;
    for (int k = 0; k < n; k++) {
      widths[k] = width(types.get(k));
      valuesAt[k] = at;
      at = align(at + capacityRows * widths[k]);
    }
    for (int k = 0; k < n; k++) {
      flagsAt[k] = nullable[k] ? at : -1;
      at = nullable[k] ? align(at + capacityRows) : at;
    }
    countsAt = at;
    bytes = align(countsAt + tiles(chunkRows) * 4);
  }

  /**
   * The layout of output windows of {@code windowRows} selected rows (a positive multiple of {@link #TILE_ROWS}, at
   * most this layout's capacity) of chunks laid out by this one.
   */
  GpuRowsLayout window(long windowRows) {
    if (windowRows > capacityRows) {
      throw new IllegalArgumentException("a window of " + windowRows + " rows of chunks of " + capacityRows);
    }
    return new GpuRowsLayout(types, nullable, windowRows, capacityRows);
  }

  /**
   * The most rows, a multiple of {@link #TILE_ROWS} and at most {@code chunkRows}, whose buffer takes at most
   * {@code maxBytes}: a staging buffer holds every row of its chunk, and pinned output buffers that the pool can keep
   * between runs cost less than pinning memory anew, which costs more than the run.
   */
  static long chunkRowsFitting(List<ExprType> types, boolean[] nullable, long chunkRows, long maxBytes) {
    long perTile = new GpuRowsLayout(types, nullable, TILE_ROWS).bytes();
    long tiles = Math.max(1, Math.min(chunkRows / TILE_ROWS, maxBytes / perTile));
    return tiles * TILE_ROWS;
  }

  /** Bytes of one value of an output column of {@code type} in the buffer; only long-lane types have one. */
  static int width(ExprType type) {
    return switch (type.kind()) {
      case BOOLEAN -> 1;
      case INT32, DATE, STRING -> 4;
      case INT64, DECIMAL -> 8;
      default -> throw new IllegalArgumentException("the GPU returns no " + type + " column");
    };
  }

  private static long align(long offset) {
    return (offset + ALIGN - 1) / ALIGN * ALIGN;
  }

  /** Tiles of a chunk of {@code rows} rows. */
  static long tiles(long rows) {
    return (rows + TILE_ROWS - 1) / TILE_ROWS;
  }

  List<ExprType> types() {
    return types;
  }

  int columnCount() {
    return widths.length;
  }

  int width(int column) {
    return widths[column];
  }

  long valuesAt(int column) {
    return valuesAt[column];
  }

  /** Offset of column k's flag bytes, or -1 when it cannot be NULL in this run. */
  long flagsAt(int column) {
    return flagsAt[column];
  }

  long countsAt() {
    return countsAt;
  }

  /** Bytes of one buffer. */
  long bytes() {
    return bytes;
  }

  /** Rows of the values regions: a staging buffer's chunk, or an output window's selected rows. */
  long capacityRows() {
    return capacityRows;
  }

  /** The most rows of a chunk whose tiles' counts the buffer holds. */
  long chunkRows() {
    return chunkRows;
  }

  /** The kernel's words per output column (RowsArg.columns): register, width, values offset, flags offset. */
  long[] words(int[] registers) {
    long[] out = new long[4 * widths.length];
    for (int k = 0; k < widths.length; k++) {
      out[4 * k] = registers[k];
      out[4 * k + 1] = widths[k];
      out[4 * k + 2] = valuesAt[k];
      out[4 * k + 3] = flagsAt[k];
    }
    return out;
  }

  /** The selected rows of the first {@code tiles} tiles, by the counts of the buffer at {@code address}. */
  long selected(long address, long tiles) {
    long total = 0;
    for (long t = 0; t < tiles; t++) {
      total += MemoryUtil.getInt(address + countsAt + 4 * t) & 0xffffffffL;
    }
    return total;
  }

  /** Bytes the kernel writes over the link for a chunk of {@code rows} rows of which {@code selected} are kept. */
  long writtenBytes(long rows, long selected) {
    long perRow = 0;
    for (int k = 0; k < widths.length; k++) {
      perRow += widths[k] + (flagsAt[k] >= 0 ? 1 : 0);
    }
    return selected * perRow + tiles(rows) * 4;
  }
}
