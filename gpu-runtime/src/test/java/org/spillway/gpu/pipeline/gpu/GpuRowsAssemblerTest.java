package org.spillway.gpu.pipeline.gpu;

import org.spillway.gpu.expr.RowReference;
import org.spillway.gpu.pipeline.ColumnBatch;
import org.spillway.gpu.vector.ColumnVector;
import org.spillway.gpu.vector.ExprType;
import org.spillway.gpu.pipeline.scheduler.MorselScheduler;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The host side of pipelines without an aggregation on the GPU, without a GPU: chunk output buffers written
 * here as the columnar_pipeline_rows kernel writes them (each tile's selected rows ranked in order at the
 * tile's own segment, over bytes left from an earlier chunk) must assemble into the batches the CPU backend
 * returns, one per morsel of input rows that kept a row, value for value, NULL for NULL, in input order.
 */
class GpuRowsAssemblerTest {
  private static final List<ExprType> TYPES = List.of(ExprType.INT64, ExprType.INT32, ExprType.BOOLEAN,
      ExprType.decimal(2), ExprType.DATE, ExprType.STRING);
  private static final int TILE = GpuRowsLayout.TILE_ROWS;

  private BufferAllocator allocator;

  @BeforeEach void open() {
    allocator = new RootAllocator();
  }

  @AfterEach void close() {
    allocator.close();
  }

  /** One input batch as the kernel sees it: per row the output values, NULL flags and whether it is selected. */
  private record Input(long[][] values, boolean[][] nulls, boolean[] selected) {
    int rows() {
      return selected.length;
    }
  }

  @Test void chunksAssembleIntoTheCpuBackendsMorselBatches() {
    long seed = System.nanoTime();
    Random random = new Random(seed);
    int[] sizes = {0, 1, TILE - 1, TILE, TILE + 1, 700, MorselScheduler.MORSEL_ROWS + 300, 140_000};
    long[] chunkChoices = {TILE, 2 * TILE, 3 * TILE, 4096, 1 << 17};
    double[] selectivities = {0, 0.02, 0.5, 1};
    for (int trial = 0; trial < 24; trial++) {
      long chunkRows = chunkChoices[random.nextInt(chunkChoices.length)];
      double selectivity = selectivities[random.nextInt(selectivities.length)];
      boolean[] nullable = randomNullable(random);
      GpuRowsLayout layout = new GpuRowsLayout(TYPES, nullable, chunkRows);
      List<Input> inputs = new ArrayList<>();
      for (int b = random.nextInt(4); b >= 0; b--) {
        inputs.add(input(random, sizes[random.nextInt(sizes.length)], nullable, selectivity));
      }
      String where = "seed " + seed + ", trial " + trial + ", chunk " + chunkRows + ", selectivity " + selectivity
          + ", nullable " + Arrays.toString(nullable);
      GpuRowsAssembler assembler = new GpuRowsAssembler(layout, rowsOf(inputs));
      try (ArrowBuf buffer = allocator.buffer(layout.bytes())) {
        for (int b = 0; b < inputs.size(); b++) {
          for (long first = 0; first < inputs.get(b).rows(); first += chunkRows) {
            long rows = Math.min(chunkRows, inputs.get(b).rows() - first);
            long selected = writeChunk(random, buffer, layout, inputs.get(b), first, rows);
            assertEquals(selected, assembler.add(b, 1, first, rows, buffer.memoryAddress()), where);
          }
        }
      }
      assertSameBatches(expected(inputs), assembler.result(), where);
    }
  }

  /** Small batches travel together in one chunk (GpuBatchStreamer.groups): each still gets its own morsels. */
  @Test void chunksOfSeveralBatchesAssembleIntoEachBatchsMorsels() {
    long seed = System.nanoTime();
    Random random = new Random(seed);
    int[] wholeTiles = {0, TILE, 3 * TILE, MorselScheduler.MORSEL_ROWS + 2 * TILE};
    int[] last = {0, 1, TILE - 1, TILE + 1, 700, MorselScheduler.MORSEL_ROWS + 300};
    double[] selectivities = {0, 0.02, 0.5, 1};
    for (int trial = 0; trial < 16; trial++) {
      double selectivity = selectivities[random.nextInt(selectivities.length)];
      boolean[] nullable = randomNullable(random);
      List<Input> inputs = new ArrayList<>();
      for (int b = 1 + random.nextInt(3); b > 0; b--) {
        inputs.add(input(random, wholeTiles[random.nextInt(wholeTiles.length)], nullable, selectivity));
      }
      inputs.add(input(random, last[random.nextInt(last.length)], nullable, selectivity));
      long total = Arrays.stream(rowsOf(inputs)).sum();
      GpuRowsLayout layout = new GpuRowsLayout(TYPES, nullable, Math.max(1, GpuRowsLayout.tiles(total)) * TILE);
      GpuRowsAssembler assembler = new GpuRowsAssembler(layout, rowsOf(inputs));
      String where = "seed " + seed + ", trial " + trial + ", batches " + Arrays.toString(rowsOf(inputs));
      try (ArrowBuf buffer = allocator.buffer(layout.bytes())) {
        long selected = writeChunk(random, buffer, layout, concatenated(inputs), 0, total);
        assertEquals(selected, assembler.add(0, inputs.size(), 0, total, buffer.memoryAddress()), where);
      }
      assertSameBatches(expected(inputs), assembler.result(), where);
    }
  }

  /**
   * A chunk that selects more rows than an output window holds comes back in several windows (the first holding the
   * counts): its rows, split anywhere inside a morsel or a tile, assemble as from one buffer.
   */
  @Test void rowsSpanningSeveralWindowsAssembleAsFromOneBuffer() {
    long seed = System.nanoTime();
    Random random = new Random(seed);
    int[] sizes = {1, TILE + 1, 700, MorselScheduler.MORSEL_ROWS + 300, 140_000};
    long[] windowChoices = {TILE, 3 * TILE, 4096};
    double[] selectivities = {0.02, 0.5, 1};
    for (int trial = 0; trial < 16; trial++) {
      long chunkRows = 1 << 15;
      long windowRows = windowChoices[random.nextInt(windowChoices.length)];
      double selectivity = selectivities[random.nextInt(selectivities.length)];
      boolean[] nullable = randomNullable(random);
      GpuRowsLayout whole = new GpuRowsLayout(TYPES, nullable, chunkRows);
      GpuRowsLayout window = whole.window(windowRows);
      List<Input> inputs = List.of(input(random, sizes[random.nextInt(sizes.length)], nullable, selectivity));
      String where = "seed " + seed + ", trial " + trial + ", window " + windowRows + ", selectivity " + selectivity;
      GpuRowsAssembler assembler = new GpuRowsAssembler(window, rowsOf(inputs));
      int windowsSeen = 0;
      try (ArrowBuf buffer = allocator.buffer(whole.bytes())) {
        for (long first = 0; first < inputs.get(0).rows(); first += chunkRows) {
          long rows = Math.min(chunkRows, inputs.get(0).rows() - first);
          long selected = writeChunk(random, buffer, whole, inputs.get(0), first, rows);
          List<ArrowBuf> windows = windows(random, buffer, whole, window, GpuRowsLayout.tiles(rows), selected);
          try {
            windowsSeen = Math.max(windowsSeen, windows.size());
            assertEquals(selected, window.selected(windows.get(0).memoryAddress(), GpuRowsLayout.tiles(rows)), where);
            assertEquals(selected, assembler.add(0, 1, first, rows,
                windows.stream().mapToLong(ArrowBuf::memoryAddress).toArray(), false), where);
          } finally {
            windows.forEach(ArrowBuf::close);
          }
        }
      }
      assertSameBatches(expected(inputs), assembler.result(), where + ", windows " + windowsSeen);
    }
  }

  /**
   * The windows the gather fills from a chunk's {@code selected} rows laid out consecutively in {@code chunk} by
   * {@code whole}: over stale bytes, the counts of its {@code tiles} tiles in the first.
   */
  private List<ArrowBuf> windows(Random random, ArrowBuf chunk, GpuRowsLayout whole, GpuRowsLayout window, long tiles,
      long selected) {
    List<ArrowBuf> out = new ArrayList<>();
    long cap = window.capacityRows();
    for (long w = 0; w == 0 || w * cap < selected; w++) {
      ArrowBuf buffer = allocator.buffer(window.bytes());
      byte[] stale = new byte[(int) window.bytes()];
      random.nextBytes(stale);
      buffer.setBytes(0, stale);
      for (long j = w * cap; j < Math.min(selected, (w + 1) * cap); j++) {
        long to = j - w * cap;
        for (int k = 0; k < whole.columnCount(); k++) {
          int width = whole.width(k);
          chunk.getBytes(whole.valuesAt(k) + width * j, buffer, window.valuesAt(k) + width * to, width);
          if (whole.flagsAt(k) >= 0) {
            buffer.setByte(window.flagsAt(k) + to, chunk.getByte(whole.flagsAt(k) + j));
          }
        }
      }
      out.add(buffer);
    }
    for (long t = 0; t < tiles; t++) {
      out.get(0).setInt(window.countsAt() + 4 * t, chunk.getInt(whole.countsAt() + 4 * t));
    }
    return out;
  }

  @Test void refusesABatchOfPartTilesFollowedByAnother() {
    GpuRowsLayout layout = new GpuRowsLayout(List.of(ExprType.INT64), new boolean[1], 4 * TILE);
    GpuRowsAssembler assembler = new GpuRowsAssembler(layout, new long[] {300, 200});
    try (ArrowBuf buffer = allocator.buffer(layout.bytes())) {
      buffer.setZero(0, layout.bytes());
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
          () -> assembler.add(0, 2, 0, 500, buffer.memoryAddress()));
      assertTrue(e.getMessage().contains("holds no whole tiles"), e.getMessage());
    }
  }

  /** Per output column, whether it may be NULL in this run, at random. */
  private static boolean[] randomNullable(Random random) {
    boolean[] nullable = new boolean[TYPES.size()];
    for (int k = 0; k < nullable.length; k++) {
      nullable[k] = random.nextBoolean();
    }
    return nullable;
  }

  private static long[] rowsOf(List<Input> inputs) {
    return inputs.stream().mapToLong(Input::rows).toArray();
  }

  /** The batches' rows one after the other, as a chunk of several batches holds them. */
  private static Input concatenated(List<Input> inputs) {
    int rows = (int) Arrays.stream(rowsOf(inputs)).sum();
    long[][] values = new long[TYPES.size()][rows];
    boolean[][] nulls = new boolean[TYPES.size()][rows];
    boolean[] selected = new boolean[rows];
    int at = 0;
    for (Input in : inputs) {
      for (int k = 0; k < TYPES.size(); k++) {
        System.arraycopy(in.values()[k], 0, values[k], at, (int) in.rows());
        System.arraycopy(in.nulls()[k], 0, nulls[k], at, (int) in.rows());
      }
      System.arraycopy(in.selected(), 0, selected, at, (int) in.rows());
      at += (int) in.rows();
    }
    return new Input(values, nulls, selected);
  }

  @Test void layoutAlignsEveryRegionAndCountsWhatCrossesTheLink() {
    boolean[] nullable = {true, false, true, false, false, true};
    GpuRowsLayout layout = new GpuRowsLayout(TYPES, nullable, 3 * TILE);
    List<long[]> regions = new ArrayList<>();
    long perRow = 0;
    for (int k = 0; k < TYPES.size(); k++) {
      regions.add(new long[] {layout.valuesAt(k), layout.valuesAt(k) + 3L * TILE * layout.width(k)});
      perRow += layout.width(k);
      if (nullable[k]) {
        regions.add(new long[] {layout.flagsAt(k), layout.flagsAt(k) + 3L * TILE});
        perRow++;
      } else {
        assertEquals(-1, layout.flagsAt(k));
      }
    }
    regions.add(new long[] {layout.countsAt(), layout.countsAt() + 3 * 4});
    regions.sort((x, y) -> Long.compare(x[0], y[0]));
    for (int i = 0; i < regions.size(); i++) {
      assertEquals(0, regions.get(i)[0] % 128, "region " + i + " is 128-byte aligned");
      assertTrue(i == 0 || regions.get(i - 1)[1] <= regions.get(i)[0], "regions do not overlap");
    }
    assertTrue(regions.get(regions.size() - 1)[1] <= layout.bytes());
    assertEquals(List.of(8, 4, 1, 8, 4, 4), Arrays.stream(new int[] {0, 1, 2, 3, 4, 5}).map(layout::width).boxed()
        .toList());
    assertEquals(7 * perRow + 3 * 4, layout.writtenBytes(3 * TILE - 5, 7), "selected rows and one count per tile");
    long[] words = layout.words(new int[] {12, 13, 14, 15, 16, 17});
    assertArrayEquals(new long[] {14, 1, layout.valuesAt(2), layout.flagsAt(2)}, Arrays.copyOfRange(words, 8, 12));
    assertThrows(IllegalArgumentException.class, () -> new GpuRowsLayout(TYPES, nullable, TILE + 32));
    assertThrows(IllegalArgumentException.class, () -> new GpuRowsLayout(List.of(ExprType.FLOAT64),
        new boolean[1], TILE));
  }

  @Test void refusesACountLargerThanItsTile() {
    GpuRowsLayout layout = new GpuRowsLayout(List.of(ExprType.INT64), new boolean[1], 2 * TILE);
    GpuRowsAssembler assembler = new GpuRowsAssembler(layout, new long[] {300});
    try (ArrowBuf buffer = allocator.buffer(layout.bytes())) {
      buffer.setZero(0, layout.bytes());
      buffer.setInt(layout.countsAt() + 4, 100);  // the second tile of a 300-row chunk has 44 rows
      IllegalStateException e = assertThrows(IllegalStateException.class,
          () -> assembler.add(0, 1, 0, 300, buffer.memoryAddress()));
      assertTrue(e.getMessage().contains("100 selected rows for a tile of 44 rows"), e.getMessage());
    }
  }

  private static Input input(Random random, int rows, boolean[] nullable, double selectivity) {
    long[][] values = new long[TYPES.size()][rows];
    boolean[][] nulls = new boolean[TYPES.size()][rows];
    boolean[] selected = new boolean[rows];
    for (int r = 0; r < rows; r++) {
      selected[r] = random.nextDouble() < selectivity;
      for (int k = 0; k < TYPES.size(); k++) {
        nulls[k][r] = nullable[k] && random.nextInt(5) == 0;
        values[k][r] = nulls[k][r] ? 0 : switch (GpuRowsLayout.width(TYPES.get(k))) {
          case 1 -> random.nextInt(2);
          case 4 -> random.nextInt();
          default -> random.nextLong();
        };
      }
    }
    return new Input(values, nulls, selected);
  }

  /** Writes a chunk as the kernels do (rows consecutive, a count per tile), over stale bytes; returns the rows. */
  private static long writeChunk(Random random, ArrowBuf buffer, GpuRowsLayout layout, Input in, long first,
      long rows) {
    byte[] stale = new byte[(int) layout.bytes()];
    random.nextBytes(stale);
    buffer.setBytes(0, stale);
    long selected = 0;
    for (long t = 0; t < GpuRowsLayout.tiles(rows); t++) {
      int rank = 0;
      for (long i = t * TILE; i < Math.min(rows, (t + 1) * TILE); i++) {
        int row = (int) (first + i);
        if (!in.selected()[row]) {
          continue;
        }
        long at = selected + rank++;
        for (int k = 0; k < layout.columnCount(); k++) {
          long v = in.values()[k][row];
          switch (layout.width(k)) {
            case 8 -> buffer.setLong(layout.valuesAt(k) + 8 * at, v);
            case 4 -> buffer.setInt(layout.valuesAt(k) + 4 * at, (int) v);
            default -> buffer.setByte(layout.valuesAt(k) + at, (byte) v);
          }
          if (layout.flagsAt(k) >= 0) {
            buffer.setByte(layout.flagsAt(k) + at, in.nulls()[k][row] ? 1 : 0);
          }
        }
      }
      buffer.setInt(layout.countsAt() + 4 * t, rank);
      selected += rank;
    }
    return selected;
  }

  /** What the CPU backend returns: per batch and morsel with a selected row, those rows in order. */
  private static List<List<Object[]>> expected(List<Input> inputs) {
    List<List<Object[]>> out = new ArrayList<>();
    for (Input in : inputs) {
      for (int m = 0; m < in.rows(); m += MorselScheduler.MORSEL_ROWS) {
        List<Object[]> rows = new ArrayList<>();
        for (int r = m; r < Math.min(in.rows(), m + MorselScheduler.MORSEL_ROWS); r++) {
          if (in.selected()[r]) {
            Object[] row = new Object[TYPES.size()];
            for (int k = 0; k < row.length; k++) {
              row[k] = in.nulls()[k][r] ? null : (Object) in.values()[k][r];
            }
            rows.add(row);
          }
        }
        if (!rows.isEmpty()) {
          out.add(rows);
        }
      }
    }
    return out;
  }

  private static void assertSameBatches(List<List<Object[]>> expected, List<ColumnBatch> actual, String where) {
    assertEquals(expected.size(), actual.size(), where + ": batches");
    for (int b = 0; b < expected.size(); b++) {
      ColumnBatch batch = actual.get(b);
      assertEquals(expected.get(b).size(), batch.rows(), where + ": rows of batch " + b);
      for (int k = 0; k < TYPES.size(); k++) {
        ColumnVector v = batch.columns()[k];
        assertEquals(TYPES.get(k), v.type, where);
        assertEquals(batch.rows(), v.size, where);
        assertEquals(batch.rows(), v.longs.length, where + ": arrays are exactly as long as the batch");
        boolean anyNull = false;
        for (int r = 0; r < batch.rows(); r++) {
          Object want = expected.get(b).get(r)[k];
          assertEquals(want, RowReference.valueOf(v, r), where + ", batch " + b + ", row " + r + ", column " + k);
          anyNull |= want == null;
          assertEquals(want == null ? 0L : (long) (Long) want, v.longs[r], "NULL rows hold 0");
        }
        if (!anyNull) {
          assertNull(v.nulls, where + ": no NULL flags without a NULL");
        }
      }
    }
  }
}
