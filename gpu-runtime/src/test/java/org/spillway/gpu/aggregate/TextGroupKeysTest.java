package org.spillway.gpu.aggregate;

import org.spillway.gpu.expr.AggCall;
import org.spillway.gpu.pipeline.ColumnBatch;
import org.spillway.gpu.pipeline.PipelineStage;
import org.spillway.gpu.pipeline.cpu.ColumnarPipeline;
import org.spillway.gpu.vector.ColumnVector;
import org.spillway.gpu.vector.ExprType;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** GROUP BY plain text on the CPU backend: partial aggregators number strings on their own, merging renumbers. */
class TextGroupKeysTest {
  @Test void textKeysGroupAcrossWorkersAsStrings() {
    long seed = System.nanoTime();
    Random random = new Random(seed);
    List<ColumnBatch> batches = new ArrayList<>();
    Map<List<Object>, long[]> expected = new HashMap<>();
    for (int b = 0; b < 6; b++) {
      int n = 1 + random.nextInt(3000);
      Object[] text = new Object[n];
      boolean[] textNulls = new boolean[n];
      long[] small = new long[n];
      long[] values = new long[n];
      for (int i = 0; i < n; i++) {
        textNulls[i] = random.nextInt(10) == 0;
        text[i] = textNulls[i] ? null : "k" + random.nextInt(40) + (random.nextBoolean() ? "" : "\u00e9");
        small[i] = random.nextInt(3);
        values[i] = random.nextInt(1000) - 500;
        long[] acc = expected.computeIfAbsent(Arrays.asList(text[i], small[i]), k -> new long[2]);
        acc[0]++;
        acc[1] += values[i];
      }
      batches.add(new ColumnBatch(new ColumnVector[] {ColumnVector.ofObjects(ExprType.TEXT, text, textNulls, n),
          ColumnVector.ofLongs(ExprType.INT64, small, null, n), ColumnVector.ofLongs(ExprType.INT64, values, null, n)},
          n));
    }
    ColumnarPipeline pipeline = new ColumnarPipeline(List.of(ExprType.TEXT, ExprType.INT64, ExprType.INT64),
        List.of(new PipelineStage.Aggregate(new int[] {0, 1}, List.of(new AggCall(AggCall.Kind.COUNT, -1,
            ExprType.INT64), new AggCall(AggCall.Kind.SUM, 2, ExprType.INT64)))));
    Map<List<Object>, long[]> actual = new HashMap<>();
    for (ColumnBatch out : pipeline.runColumns(batches, 4, () -> false)) {
      ColumnVector[] c = out.columns();
      assertEquals(ExprType.TEXT, c[0].type);
      for (int g = 0; g < out.rows(); g++) {
        Object key = c[0].isNull(g) ? null : c[0].objects[g];
        long[] previous = actual.put(Arrays.asList(key, c[1].longs[g]), new long[] {c[2].longs[g], c[3].longs[g]});
        assertEquals(null, previous, "seed " + seed + ": group " + key + " twice");
      }
    }
    assertEquals(expected.keySet(), actual.keySet(), "seed " + seed);
    expected.forEach((k, v) -> assertEquals(Arrays.toString(v), Arrays.toString(actual.get(k)),
        "seed " + seed + " " + k));
  }
}
