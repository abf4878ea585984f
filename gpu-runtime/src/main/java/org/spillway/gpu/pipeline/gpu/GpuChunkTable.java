package org.spillway.gpu.pipeline.gpu;

import java.util.List;

/**
 * Chunk descriptors as the pipeline kernels read them (struct ChunkArg of pipeline_chunks.cuh): row count,
 * tiles of the chunks before it (in a table), then per column slot the device address of the chunk's first
 * row and of its validity bitmap (0 when it holds no NULL), and per plain-text slot the address of its batch's
 * UTF-8 bytes (its data word then holds the batch's offsets at the chunk's first row; see {@link #text}). One
 * descriptor is passed by value per streamed chunk; a table of them in device memory lets one launch read every
 * batch of GPU-resident columns.
 */
final class GpuChunkTable {
  /** 64-bit words per descriptor. */
  static final int WORDS = 2 + 3 * GpuProgram.MAX_COLUMNS;

  private GpuChunkTable() {}

  /** Index of column slot {@code slot}'s data address in a descriptor. */
  static int dataWord(int slot) {
    return 2 + slot;
  }

  /** Index of column slot {@code slot}'s validity address in a descriptor. */
  static int validityWord(int slot) {
    return 2 + GpuProgram.MAX_COLUMNS + slot;
  }

  /** Index of plain-text slot {@code slot}'s UTF-8 bytes address in a descriptor. */
  static int textWord(int slot) {
    return 2 + 2 * GpuProgram.MAX_COLUMNS + slot;
  }

  /**
   * Fills in the words of the batch's plain-text columns ({@code text}: per slot the device-visible addresses of
   * the batch's offsets and bytes, or null where the batch reads none) for a chunk from batch row {@code firstRow}.
   */
  static void text(long[] words, GpuBatchStreamer.TextColumn[] text, long firstRow) {
    for (int c = 0; text != null && c < text.length; c++) {
      if (text[c] != null) {
        words[dataWord(c)] = text[c].offsetsAddress() + 4 * firstRow;
        words[textWord(c)] = text[c].bytesAddress();
      }
    }
  }

  /** A descriptor of {@code rows} rows whose addresses the caller fills in. */
  static long[] chunk(long rows) {
    long[] words = new long[WORDS];
    words[0] = rows;
    return words;
  }

  /**
   * The by-value descriptor of a launch over a table whose blocks claim tiles from the counter at device address
   * {@code counter} (zero before the launch), or take fixed shares of them where {@code counter} is 0.
   */
  static long[] tableLaunch(long counter) {
    long[] words = chunk(0);
    words[1] = counter;
    return words;
  }

  /**
   * Whether launches over tables of batches read over the link let their blocks claim tiles (see for_each_tile of
   * pipeline_chunks.cuh): {@code -Dspillway.gpu.claimTiles=false} gives each block a fixed share.
   */
  static boolean claimTiles() {
    return !"false".equalsIgnoreCase(System.getProperty("spillway.gpu.claimTiles"));
  }

  /** The descriptors of whole batches, laid out one after the other with the tile prefix each kernel walks by. */
  static long[] table(List<long[]> chunks, long tileRows) {
    long[] table = new long[chunks.size() * WORDS];
    long tiles = 0;
    for (int i = 0; i < chunks.size(); i++) {
      long[] c = chunks.get(i);
      System.arraycopy(c, 0, table, i * WORDS, WORDS);
      table[i * WORDS + 1] = tiles;
      tiles += (c[0] + tileRows - 1) / tileRows;
    }
    return table;
  }

  /** Tiles of all chunks of a table made by {@link #table}. */
  static long tiles(long[] table, long tileRows) {
    int n = table.length / WORDS;
    return n == 0 ? 0 : table[(n - 1) * WORDS + 1] + (table[(n - 1) * WORDS] + tileRows - 1) / tileRows;
  }
}
