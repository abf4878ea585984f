package org.spillway.gpu.pipeline;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.spillway.gpu.vector.ColumnVector;
import org.spillway.gpu.vector.ExprType;

/** Gathering from batches in place gives what the column laid end to end gives, ids ascending or not. */
class BatchGatherTest {
  @Test void gatheringInPlaceEqualsGatheringTheLaidOutColumn() {
    long seed = System.nanoTime();
    Random random = new Random(seed);
    for (int trial = 0; trial < 200; trial++) {
      List<ColumnBatch> batches = new ArrayList<>();
      List<ColumnVector> parts = new ArrayList<>();
      int total = 0;
      for (int b = 0, n = 1 + random.nextInt(6); b < n; b++) {
        int rows = random.nextInt(4) == 0 ? 0 : 1 + random.nextInt(50);  // empty batches too
        long[] values = new long[rows];
        boolean[] nulls = random.nextBoolean() ? new boolean[rows] : null;
        for (int r = 0; r < rows; r++) {
          values[r] = random.nextInt(1000);
          if (nulls != null) {
            nulls[r] = random.nextInt(5) == 0;
          }
        }
        ColumnVector column = ColumnVector.ofLongs(ExprType.INT64, values, nulls, rows);
        batches.add(new ColumnBatch(new ColumnVector[] {null, column}, rows));
        parts.add(column);
        total += rows;
      }
      if (total == 0) {
        continue;
      }
      int count = random.nextInt(2 * total);
      int[] ids = new int[count];
      for (int i = 0; i < count; i++) {
        ids[i] = random.nextInt(total);
      }
      if (random.nextBoolean()) {
        Arrays.sort(ids);
      }
      ColumnVector laid = ColumnVector.concat(ExprType.INT64, parts).gather(ids, count);
      ColumnVector inPlace = BatchGather.gather(batches, 1, ExprType.INT64, ids, count);
      String where = "seed " + seed + ", trial " + trial;
      assertEquals(count, inPlace.size, where);
      for (int i = 0; i < count; i++) {
        assertEquals(laid.isNull(i), inPlace.isNull(i), where + ", row " + i);
        if (!laid.isNull(i)) {
          assertEquals(laid.longs[i], inPlace.longs[i], where + ", row " + i);
        }
      }
    }
  }

  /** Ascending ids over many rows copy batch by batch in parallel: text and double lanes, NULLs in some batches. */
  @Test void ascendingIdsOverManyBatchesCopyEveryLane() {
    long seed = System.nanoTime();
    Random random = new Random(seed);
    List<ColumnBatch> batches = new ArrayList<>();
    List<ColumnVector> texts = new ArrayList<>();
    List<ColumnVector> doubles = new ArrayList<>();
    int total = 0;
    for (int b = 0; b < 40; b++) {
      int rows = b % 7 == 3 ? 0 : 1000 + random.nextInt(9000);
      Object[] text = new Object[rows];
      double[] values = new double[rows];
      boolean[] nulls = b % 3 == 0 ? new boolean[rows] : null;
      for (int r = 0; r < rows; r++) {
        text[r] = "row " + (total + r);
        values[r] = random.nextDouble();
        if (nulls != null && random.nextInt(10) == 0) {
          nulls[r] = true;
          text[r] = null;
        }
      }
      ColumnVector t = ColumnVector.ofObjects(ExprType.TEXT, text, nulls, rows);
      ColumnVector d = ColumnVector.ofDoubles(values, nulls, rows);
      batches.add(new ColumnBatch(new ColumnVector[] {t, d}, rows));
      texts.add(t);
      doubles.add(d);
      total += rows;
    }
    int[] ids = new int[total];
    int count = 0;
    for (int i = 0; i < total; i++) {
      if (random.nextInt(10) != 0) {
        ids[count++] = i;
      }
    }
    String where = "seed " + seed;
    ColumnVector text = BatchGather.gather(batches, 0, ExprType.TEXT, ids, count);
    ColumnVector number = BatchGather.gather(batches, 1, ExprType.FLOAT64, ids, count);
    ColumnVector laidText = ColumnVector.concat(ExprType.TEXT, texts).gather(ids, count);
    ColumnVector laidNumber = ColumnVector.concat(ExprType.FLOAT64, doubles).gather(ids, count);
    for (int i = 0; i < count; i++) {
      assertEquals(laidText.isNull(i), text.isNull(i), where + ", row " + i);
      assertEquals(laidText.objects[i], text.objects[i], where + ", row " + i);
      assertEquals(laidNumber.isNull(i), number.isNull(i), where + ", row " + i);
      if (!laidNumber.isNull(i)) {
        assertEquals(laidNumber.doubles[i], number.doubles[i], where + ", row " + i);
      }
    }
  }
}
