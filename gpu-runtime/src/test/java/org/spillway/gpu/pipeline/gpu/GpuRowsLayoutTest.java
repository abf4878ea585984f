package org.spillway.gpu.pipeline.gpu;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.spillway.gpu.vector.ExprType;

class GpuRowsLayoutTest {
  private static final List<ExprType> TYPES = List.of(ExprType.INT64, ExprType.INT32, ExprType.INT64);
  private static final boolean[] NULLABLE = {false, true, false};

  /**
   * A pass returning rows sizes its chunks so that each output buffer stays within the byte cap (the pinned pool keeps
   * them between runs), in whole tiles, never above the transfer's chunk and never below one tile.
   */
  @Test void chunksShrinkUntilTheirOutputBufferFitsTheCap() {
    long cap = 16L << 20;
    long rows = GpuRowsLayout.chunkRowsFitting(TYPES, NULLABLE, 2L << 20, cap);
    assertEquals(0, rows % GpuRowsLayout.TILE_ROWS);
    assertTrue(new GpuRowsLayout(TYPES, NULLABLE, rows).bytes() <= cap, "buffer of " + rows + " rows over the cap");
    long tenthMore = (rows + rows / 10) / GpuRowsLayout.TILE_ROWS * GpuRowsLayout.TILE_ROWS;
    assertTrue(new GpuRowsLayout(TYPES, NULLABLE, tenthMore).bytes() > cap, "a tenth more rows would fit: " + rows);
    assertEquals(4096, GpuRowsLayout.chunkRowsFitting(TYPES, NULLABLE, 4096, cap), "a short chunk stays as it is");
    assertEquals(GpuRowsLayout.TILE_ROWS, GpuRowsLayout.chunkRowsFitting(TYPES, NULLABLE, 2L << 20, 1),
        "at least one tile");
  }

  /** An output window holds its own rows' values and flags, but the counts of every tile of the staged chunk. */
  @Test void aWindowHoldsItsRowsAndTheWholeChunksCounts() {
    GpuRowsLayout chunk = new GpuRowsLayout(TYPES, NULLABLE, 64 * GpuRowsLayout.TILE_ROWS);
    GpuRowsLayout window = chunk.window(2 * GpuRowsLayout.TILE_ROWS);
    assertEquals(2 * GpuRowsLayout.TILE_ROWS, window.capacityRows());
    assertEquals(chunk.capacityRows(), window.chunkRows());
    assertEquals(2 * GpuRowsLayout.TILE_ROWS * 8, window.valuesAt(1), "values regions sized by the window's rows");
    assertTrue(window.countsAt() + 64 * 4 <= window.bytes(), "a count for each of the chunk's 64 tiles");
    assertTrue(window.bytes() < chunk.bytes());
    assertThrows(IllegalArgumentException.class, () -> chunk.window(128 * GpuRowsLayout.TILE_ROWS));
  }
}
