package org.spillway.gpu.pipeline;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.spillway.gpu.expr.RandomExprs;
import java.util.Random;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.FieldVector;
import org.junit.jupiter.api.Test;

/** The GPU tests' random batches, checked where no GPU runs them: the schema's columns, NULLs only when asked. */
class RandomBatchesTest {
  @Test void batchesHoldTheSchemaWithNullsOnlyWhenAsked() {
    long seed = System.nanoTime();
    try (RootAllocator allocator = new RootAllocator(); RandomBatches data = new RandomBatches(allocator)) {
      RandomExprs gen = new RandomExprs(new Random(seed));
      SourceBatch withNulls = data.batch(gen, 2000, true);
      SourceBatch without = data.batch(gen, 2000, false);
      int nulls = 0;
      for (int c = 0; c < RandomExprs.SCHEMA.size(); c++) {
        FieldVector a = withNulls.columns().get(c);
        FieldVector b = without.columns().get(c);
        assertEquals(2000, a.getValueCount(), "seed " + seed);
        assertEquals(0, b.getNullCount(), "column " + c + ", seed " + seed);
        nulls += a.getNullCount();
      }
      assertTrue(nulls > 0, "no NULL in a batch that may hold them (seed " + seed + ")");
    }
  }
}
