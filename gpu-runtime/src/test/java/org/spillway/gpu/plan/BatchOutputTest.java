package org.spillway.gpu.plan;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.apache.arrow.memory.util.MemoryUtil;
import org.junit.jupiter.api.Test;
import org.spillway.gpu.pipeline.ColumnBatch;
import org.spillway.gpu.vector.ColumnVector;
import org.spillway.gpu.vector.ExprType;
import org.spillway.gpu.vector.IndexedColumns;

/** A pipeline's output batches read whole: laid end to end, or written straight into native memory. */
class BatchOutputTest {
  /** Any row range, across batches of any size (empty ones too), writes the values the whole column holds there. */
  @Test void longWriterWritesAnyRangeAsTheWholeColumnHoldsIt() {
    Random random = new Random(7);
    List<ColumnBatch> batches = new ArrayList<>();
    for (int b = 0; b < 9; b++) {
      int rows = b % 3 == 1 ? 0 : 1 + random.nextInt(50);
      long[] values = random.longs(rows + random.nextInt(3)).toArray();  // a batch's column may hold spare room
      batches.add(new ColumnBatch(new ColumnVector[] {ColumnVector.ofLongs(ExprType.INT64, values, null, values.length)},
          rows));
    }
    BatchOutput output = new BatchOutput(batches, List.of(ExprType.INT64));
    long[] whole = Arrays.copyOf(output.column(0).longs, output.rows());
    IndexedColumns.LongWriter writer = output.longWriter(0);
    assertNotNull(writer);
    long address = MemoryUtil.allocateMemory(8L * Math.max(1, whole.length));
    try {
      for (int trial = 0; trial < 200; trial++) {
        int from = random.nextInt(whole.length + 1);
        int n = random.nextInt(whole.length - from + 1);
        writer.write(from, n, address);
        long[] written = new long[n];
        for (int i = 0; i < n; i++) {
          written[i] = MemoryUtil.getLong(address + 8L * i);
        }
        assertArrayEquals(Arrays.copyOfRange(whole, from, from + n), written, "rows " + from + " + " + n);
      }
    } finally {
      MemoryUtil.freeMemory(address);
    }
  }

  /** A column with NULLs (its validity must travel too) writes no longs. */
  @Test void columnsWithNullsHaveNoLongWriter() {
    ColumnVector nullable = ColumnVector.ofLongs(ExprType.INT64, new long[] {1, 0}, new boolean[] {false, true}, 2);
    BatchOutput output = new BatchOutput(List.of(new ColumnBatch(new ColumnVector[] {nullable}, 2)),
        List.of(ExprType.INT64));
    assertNull(output.longWriter(0));
  }
}
