package org.spillway.gpu.pipeline.gpu;

import java.util.List;

/**
 * Chunk descriptors as the pipeline kernels read them (struct ChunkArg of pipeline_chunks.cuh): row count,
 * tiles of the chunks before it (in a table), then per column slot the device address of the chunk's first
 * row and of its validity bitmap (0 when it holds no NULL). One descriptor is passed by value per streamed
 * chunk; a table of them in device memory lets one launch read every batch of GPU-resident columns.
 */
final class GpuChunkTable {
  /** 64-bit words per descriptor. */
  static final int WORDS = 2 + 2 * GpuProgram.MAX_COLUMNS;

  private GpuChunkTable() {}

  /** Index of column slot {@code slot}'s data address in a descriptor. */
  static int dataWord(int slot) {
    return 2 + slot;
  }

  /** Index of column slot {@code slot}'s validity address in a descriptor. */
  static int validityWord(int slot) {
    return 2 + GpuProgram.MAX_COLUMNS + slot;
  }

  /** A descriptor of {@code rows} rows whose addresses the caller fills in. */
  static long[] chunk(long rows) {
    long[] words = new long[WORDS];
    words[0] = rows;
    return words;
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
