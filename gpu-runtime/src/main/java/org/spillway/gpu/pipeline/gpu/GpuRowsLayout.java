package org.spillway.gpu.pipeline.gpu;

import org.spillway.gpu.vector.ExprType;
import java.util.List;

/**
 * Where the columnar_pipeline_rows kernel writes the selected rows of one chunk of at most
 * {@code capacityRows} rows in its output buffer (pinned, mapped host memory): per output column a region of
 * values (1 byte for BOOLEAN, 4 for INT32, DATE and STRING codes, 8 for INT64 and DECIMAL), then a flag byte
 * per row (1: NULL) for each column that may be NULL in this run, then one 32-bit count per tile of
 * {@link #TILE_ROWS} rows; each region starts 128-byte aligned. The selected rows of the chunk occupy the first
 * positions of every region, in input order (tile by tile, as the counts say). Only those positions and the counts
 * are written, so only they cross the link. The staging buffer in GPU memory has the same layout, but there the
 * rows of tile t occupy positions {@code t * TILE_ROWS} to {@code t * TILE_ROWS + count - 1}.
 */
final class GpuRowsLayout {
  /** Rows per tile: kBlock of columnar_pipeline_rows.cu (one row per thread of a block). */
  static final int TILE_ROWS = 256;
  private static final long ALIGN = 128;

  private final List<ExprType> types;
  private final int[] widths;
  private final long[] valuesAt;
  private final long[] flagsAt;
  private final long countsAt;
  private final long bytes;
  private final long capacityRows;

  /**
   * The layout for output columns of {@code types}, {@code nullable[k]} saying whether column k may be NULL,
   * and chunks of at most {@code capacityRows} rows, a positive multiple of {@link #TILE_ROWS}.
   */
  GpuRowsLayout(List<ExprType> types, boolean[] nullable, long capacityRows) {
    if (capacityRows <= 0 || capacityRows % TILE_ROWS != 0) {
      throw new IllegalArgumentException("rows of a GPU output chunk must be a positive multiple of " + TILE_ROWS
          + ", got " + capacityRows);
    }
    if (nullable.length != types.size()) {
      throw new IllegalArgumentException(nullable.length + " NULL flags for " + types.size() + " output columns");
    }
    this.types = List.copyOf(types);
    this.capacityRows = capacityRows;
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
    bytes = align(countsAt + tiles(capacityRows) * 4);
  }

  /**
   * The most rows, a multiple of {@link #TILE_ROWS} and at most {@code chunkRows}, whose output buffer takes at most
   * {@code maxBytes}: a chunk's buffer must hold every row of it (the kernel writes a tile's rows at the tile's place),
   * so a wide output or long chunks make buffers that the pinned pool cannot keep between runs, and pinning memory
   * anew costs more than the run.
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

  /** Bytes of one chunk's output buffer. */
  long bytes() {
    return bytes;
  }

  long capacityRows() {
    return capacityRows;
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

  /** Bytes the kernel writes over the link for a chunk of {@code rows} rows of which {@code selected} are kept. */
  long writtenBytes(long rows, long selected) {
    long perRow = 0;
    for (int k = 0; k < widths.length; k++) {
      perRow += widths[k] + (flagsAt[k] >= 0 ? 1 : 0);
    }
    return selected * perRow + tiles(rows) * 4;
  }
}
