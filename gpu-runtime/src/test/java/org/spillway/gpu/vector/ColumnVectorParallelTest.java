package org.spillway.gpu.vector;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Concatenation and gathers of columns past {@link ColumnVector#PARALLEL_ROWS} run on all cores and must give
 * value for value, NULL for NULL, what the one-thread loops give below it (fresh random data each run).
 */
class ColumnVectorParallelTest {
  private static final int ROWS = ColumnVector.PARALLEL_ROWS + 12_345;

  @Test void concatOfManyPartsKeepsOrderAndNulls() {
    long seed = System.nanoTime();
    Random random = new Random(seed);
    List<ColumnVector> parts = new ArrayList<>();
    long[] expected = new long[ROWS];
    boolean[] expectedNulls = new boolean[ROWS];
    for (int at = 0; at < ROWS; ) {
      int size = Math.min(ROWS - at, 1 + random.nextInt(70_000));
      long[] v = new long[size];
      boolean[] n = random.nextBoolean() ? new boolean[size] : null;
      for (int i = 0; i < size; i++) {
        v[i] = random.nextLong();
        if (n != null && random.nextInt(10) == 0) {
          n[i] = true;
          v[i] = 0;
        }
        expected[at + i] = v[i];
        expectedNulls[at + i] = n != null && n[i];
      }
      parts.add(ColumnVector.ofLongs(ExprType.INT64, v, n, size));
      at += size;
    }
    ColumnVector whole = ColumnVector.concat(ExprType.INT64, parts);
    assertEquals(ROWS, whole.size, "seed " + seed);
    assertArrayEquals(expected, whole.longs, "seed " + seed);
    assertArrayEquals(expectedNulls, whole.nulls, "seed " + seed);
  }

  @Test void largeGathersEqualTheOneThreadLoop() {
    long seed = System.nanoTime();
    Random random = new Random(seed);
    long[] values = random.longs(ROWS).toArray();
    boolean[] nulls = new boolean[ROWS];
    for (int i = 0; i < ROWS; i += 1 + random.nextInt(50)) {
      nulls[i] = true;
      values[i] = 0;
    }
    int[] ids = random.ints(ROWS, -1, ROWS).toArray();
    ColumnVector withNulls = ColumnVector.ofLongs(ExprType.INT64, values, nulls, ROWS);
    ColumnVector gathered = withNulls.gatherOrNull(ids, ROWS);
    for (int i = 0; i < ROWS; i++) {
      boolean isNull = ids[i] < 0 || nulls[ids[i]];
      assertEquals(isNull, gathered.isNull(i), "row " + i + ", seed " + seed);
      assertEquals(isNull ? 0 : values[ids[i]], gathered.longs[i], "row " + i + ", seed " + seed);
    }
    int[] present = random.ints(ROWS, 0, ROWS).toArray();
    ColumnVector plain = ColumnVector.ofLongs(ExprType.INT64, values, null, ROWS).gatherOrNull(present, ROWS);
    assertNull(plain.nulls, "no NULL flags where no row is NULL (seed " + seed + ")");
    for (int i = 0; i < ROWS; i++) {
      assertEquals(values[present[i]], plain.longs[i], "row " + i + ", seed " + seed);
    }
    double[] doubles = random.doubles(ROWS).toArray();
    ColumnVector d = ColumnVector.ofDoubles(doubles, null, ROWS).gatherOrNull(present, ROWS);
    for (int i = 0; i < ROWS; i++) {
      assertEquals(doubles[present[i]], d.doubles[i], "row " + i + ", seed " + seed);
    }
  }
}
