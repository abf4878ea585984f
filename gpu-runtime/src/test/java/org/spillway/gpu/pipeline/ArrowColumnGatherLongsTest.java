package org.spillway.gpu.pipeline;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.IntVector;
import org.junit.jupiter.api.Test;
import org.spillway.gpu.vector.ColumnVector;
import org.spillway.gpu.vector.ExprType;

/**
 * {@link ArrowColumnGather#writeLongs}: any range of rows across batches of uneven sizes (empty ones too), written as
 * 64-bit integers into native memory, equals the same rows of {@link ArrowColumnGather#all}, for 4- and 8-byte columns
 * (negative 32-bit values sign-extend); a column with NULLs is not written this way.
 */
class ArrowColumnGatherLongsTest {
  @Test void rangesWriteTheValuesAllReads() {
    long seed = System.nanoTime();
    Random random = new Random(seed);
    try (BufferAllocator allocator = new RootAllocator()) {
      for (ExprType type : new ExprType[] {ExprType.INT32, ExprType.INT64, ExprType.DATE}) {
        List<FieldVector> batches = new ArrayList<>();
        try {
          for (int b = 0; b < 6; b++) {
            batches.add(vector(allocator, type, b == 2 ? 0 : 1 + random.nextInt(3000), random, false));
          }
          ArrowColumnGather column = new ArrowColumnGather(batches, type);
          assertTrue(column.writesLongs());
          ColumnVector all = column.all();
          for (int round = 0; round < 50; round++) {
            int from = random.nextInt(all.size);
            int n = random.nextInt(all.size - from + 1);
            try (ArrowBuf out = allocator.buffer(Math.max(8, n * 8L))) {
              column.writeLongs(from, n, out.memoryAddress());
              for (int i = 0; i < n; i++) {
                assertEquals(all.longs[from + i], out.getLong(i * 8L), type + " row " + (from + i) + ", seed " + seed);
              }
            }
          }
        } finally {
          batches.forEach(FieldVector::close);
        }
      }
      List<FieldVector> withNull = List.of(vector(allocator, ExprType.INT64, 10, random, true));
      try {
        assertFalse(new ArrowColumnGather(withNull, ExprType.INT64).writesLongs());
      } finally {
        withNull.forEach(FieldVector::close);
      }
    }
  }

  private static FieldVector vector(BufferAllocator allocator, ExprType type, int rows, Random random, boolean aNull) {
    if (type == ExprType.INT64) {
      BigIntVector v = new BigIntVector("k", allocator);
      v.allocateNew(Math.max(1, rows));
      for (int r = 0; r < rows; r++) {
        v.set(r, random.nextLong());
      }
      if (aNull) {
        v.setNull(0);
      }
      v.setValueCount(rows);
      return v;
    }
    IntVector v = new IntVector("k", allocator);
    v.allocateNew(Math.max(1, rows));
    for (int r = 0; r < rows; r++) {
      v.set(r, random.nextInt());
    }
    v.setValueCount(rows);
    return v;
  }
}
