package org.spillway.gpu.pipeline;

import org.spillway.gpu.vector.ColumnVector;
import org.spillway.gpu.vector.ExprType;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.FieldVector;
import org.junit.jupiter.api.Test;

/**
 * Reads of a column of several Arrow batches past {@link ColumnVector#PARALLEL_ROWS} rows run on all cores and
 * must give, in order, every value and NULL the batches hold (fresh random data each run).
 */
class ArrowColumnGatherParallelTest {
  @Test void wholeColumnsAndLargeGathersMatchTheBatches() {
    long seed = System.nanoTime();
    Random random = new Random(seed);
    int batchRows = 262_144 + 17;
    int batchCount = 5;
    long[] expected = new long[batchRows * batchCount];
    boolean[] expectedNull = new boolean[expected.length];
    try (BufferAllocator allocator = new RootAllocator()) {
      List<FieldVector> batches = new ArrayList<>();
      try {
        for (int b = 0; b < batchCount; b++) {
          BigIntVector v = new BigIntVector("k", allocator);
          v.allocateNew(batchRows);
          for (int r = 0; r < batchRows; r++) {
            int at = b * batchRows + r;
            if (random.nextInt(40) == 0) {
              v.setNull(r);
              expectedNull[at] = true;
            } else {
              expected[at] = random.nextLong();
              v.set(r, expected[at]);
            }
          }
          v.setValueCount(batchRows);
          batches.add(v);
        }
        ArrowColumnGather column = new ArrowColumnGather(batches, ExprType.INT64);
        ColumnVector all = column.all();
        assertEquals(expected.length, all.size, "seed " + seed);
        for (int i = 0; i < expected.length; i++) {
          assertEquals(expectedNull[i], all.isNull(i), "row " + i + ", seed " + seed);
          assertEquals(expected[i], all.longs[i], "row " + i + ", seed " + seed);
        }
        int[] ids = random.ints(ColumnVector.PARALLEL_ROWS + 999, -1, expected.length).toArray();
        ColumnVector gathered = column.gather(ids, ids.length);
        for (int i = 0; i < ids.length; i++) {
          boolean isNull = ids[i] < 0 || expectedNull[ids[i]];
          assertEquals(isNull, gathered.isNull(i), "id " + ids[i] + " at " + i + ", seed " + seed);
          assertEquals(isNull ? 0 : expected[ids[i]], gathered.longs[i], "id " + ids[i] + ", seed " + seed);
        }
      } finally {
        batches.forEach(FieldVector::close);
      }
    }
  }
}
