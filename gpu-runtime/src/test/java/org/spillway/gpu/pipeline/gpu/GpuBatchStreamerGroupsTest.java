package org.spillway.gpu.pipeline.gpu;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.spillway.gpu.transfer.ColumnType;
import org.spillway.gpu.transfer.HostColumn;

/** Which batches travel together in one chunk: consecutive ones of whole tiles, the same buffers, within a chunk. */
class GpuBatchStreamerGroupsTest {
  private static final int TILE = GpuBatchStreamer.JOIN_ALIGN_ROWS;

  @Test void batchesOfWholeTilesJoinUpToAChunk() {
    List<GpuBatchStreamer.BatchBuffers> batches = batches(false, 4 * TILE, 4 * TILE, 4 * TILE, 4 * TILE, 4 * TILE, 7);
    assertEquals(List.of(group(0, 3), group(3, 3)), groups(batches, 12 * TILE, true), "three batches fill a chunk");
    assertEquals(List.of(group(0, 6)), groups(batches, 20 * TILE + 7, true));
    assertEquals(List.of(group(0, 1), group(1, 1), group(2, 1), group(3, 1), group(4, 1), group(5, 1)),
        groups(batches, 20 * TILE + 7, false), "a method that reads host memory in place joins nothing");
  }

  @Test void aBatchOfPartTilesEndsItsChunk() {
    List<GpuBatchStreamer.BatchBuffers> batches = batches(false, TILE, TILE + 1, TILE, 0, TILE);
    assertEquals(List.of(group(0, 2), group(2, 3)), groups(batches, 1 << 20, true));
  }

  @Test void aBatchLargerThanAChunkTravelsAlone() {
    List<GpuBatchStreamer.BatchBuffers> batches = batches(false, TILE, 8 * TILE, TILE, TILE);
    assertEquals(List.of(group(0, 1), group(1, 1), group(2, 2)), groups(batches, 4 * TILE, true));
  }

  @Test void batchesStreamingOtherBuffersDoNotJoin() {
    List<GpuBatchStreamer.BatchBuffers> batches = new ArrayList<>(batches(false, TILE, TILE));
    batches.addAll(batches(true, TILE, TILE));
    batches.addAll(batches(false, TILE));
    assertEquals(List.of(group(0, 2), group(2, 2), group(4, 1)), groups(batches, 1 << 20, true),
        "a validity bitmap in one batch and not in the next");
  }

  /**
   * A descriptor holds one batch's text addresses: batches whose plain text the kernels read in place travel alone,
   * and a chunk's offsets word points at its first row's offset (the row's end is the next one, in the same batch).
   */
  @Test void batchesReadingTextTravelAloneWithTheirOwnAddresses() {
    List<GpuBatchStreamer.BatchBuffers> batches = new ArrayList<>();
    for (GpuBatchStreamer.BatchBuffers b : batches(false, TILE, TILE, TILE)) {
      batches.add(new GpuBatchStreamer.BatchBuffers(b.rows(), b.buffers(),
          new GpuBatchStreamer.TextColumn[] {new GpuBatchStreamer.TextColumn(0x1000 * b.rows(), 0x9000, 77)}));
    }
    assertEquals(List.of(group(0, 1), group(1, 1), group(2, 1)), groups(batches, 1 << 20, true));
    long[] words = GpuChunkTable.chunk(100);
    GpuChunkTable.text(words, batches.get(0).text(), 40);
    assertEquals(0x1000L * TILE + 4 * 40, words[GpuChunkTable.dataWord(0)], "offsets at the chunk's first row");
    assertEquals(0x9000L, words[GpuChunkTable.textWord(0)], "the batch's bytes, which offsets index");
    assertEquals(GpuChunkTable.WORDS - 1, GpuChunkTable.textWord(GpuProgram.MAX_COLUMNS - 1), "the last word");
  }

  private static GpuBatchStreamer.Group group(int first, int count) {
    return new GpuBatchStreamer.Group(first, count);
  }

  private static List<GpuBatchStreamer.Group> groups(List<GpuBatchStreamer.BatchBuffers> batches, long chunkRows,
      boolean join) {
    return GpuBatchStreamer.groups(batches, new GpuColumnCache.Entry[batches.size()][2], chunkRows, join);
  }

  /** Batches of one INT64 column (never read here), with a validity bitmap where {@code nulls}. */
  private static List<GpuBatchStreamer.BatchBuffers> batches(boolean nulls, long... rows) {
    List<GpuBatchStreamer.BatchBuffers> out = new ArrayList<>();
    for (long r : rows) {
      GpuBatchStreamer.Buffer data = new GpuBatchStreamer.Buffer(new HostColumn("c", ColumnType.INT64, 4096, r), null);
      GpuBatchStreamer.Buffer validity = nulls
          ? new GpuBatchStreamer.Buffer(new HostColumn("c validity", ColumnType.VALIDITY, 4096, r), null) : null;
      out.add(new GpuBatchStreamer.BatchBuffers(r, new GpuBatchStreamer.Buffer[] {data, validity}));
    }
    return out;
  }
}
