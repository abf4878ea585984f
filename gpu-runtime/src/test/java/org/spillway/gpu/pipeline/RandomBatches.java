package org.spillway.gpu.pipeline;

import org.spillway.gpu.vector.ColumnVector;
import org.spillway.gpu.vector.ExprType;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.spillway.gpu.device.GpuRuntime;
import org.spillway.gpu.transfer.TransferMethod;
import org.spillway.gpu.expr.RandomExprs;
import org.spillway.gpu.expr.RowReference;
import org.spillway.gpu.pipeline.gpu.GpuColumnarPipeline;

/**
 * Test helper for the GPU pipeline tests: Arrow batches of {@link RandomExprs#SCHEMA} (with or without
 * NULLs) from one allocator, closed together, and the comparison of a GPU run with the CPU backend.
 */
public final class RandomBatches implements AutoCloseable {
  private final BufferAllocator allocator;
  private final List<FieldVector> vectors = new ArrayList<>();

  public RandomBatches(BufferAllocator allocator) {
    this.allocator = allocator;
  }

  /** Vectors made elsewhere that close with these. */
  public List<FieldVector> owned() {
    return vectors;
  }

  /** A batch of the random schema; NULLs (about 15% of the values) only when {@code nulls}. */
  public SourceBatch batch(RandomExprs gen, int rows, boolean nulls) {
    Object[][] values = new Object[rows][RandomExprs.SCHEMA.size()];
    for (int c = 0; c < RandomExprs.SCHEMA.size(); c++) {  // column by column, as the values were always drawn
      for (int r = 0; r < rows; r++) {
        Object x = gen.value(RandomExprs.SCHEMA.get(c));
        while (x == null && !nulls) {
          x = gen.value(RandomExprs.SCHEMA.get(c));
        }
        values[r][c] = x;
      }
    }
    List<FieldVector> columns = new ArrayList<>();
    for (int c = 0; c < RandomExprs.SCHEMA.size(); c++) {
      columns.add(vector(RandomExprs.SCHEMA.get(c), values, c, rows));
    }
    return new SourceBatch(columns, rows);
  }

  /** Column {@code column} of {@code values} (rows of the random schema's values) as a vector closed with these. */
  public FieldVector vector(ExprType type, Object[][] values, int column, int rows) {
    FieldVector v = switch (type.kind()) {
      case INT32, STRING -> new IntVector("c" + column, allocator);
      case INT64, DECIMAL -> new BigIntVector("c" + column, allocator);
      case FLOAT64 -> new Float8Vector("c" + column, allocator);
      case DATE -> new DateDayVector("c" + column, allocator);
      case BOOLEAN -> new BitVector("c" + column, allocator);
      case TEXT, BIG_DECIMAL -> throw new IllegalArgumentException("no " + type + " in the random schema");
    };
    vectors.add(v);
    v.setInitialCapacity(Math.max(rows, 1));
    v.allocateNew();
    for (int r = 0; r < rows; r++) {
      Object x = values[r][column];
      if (x == null) {
        v.setNull(r);
      } else if (v instanceof IntVector iv) {
        iv.set(r, (int) (long) (Long) x);
      } else if (v instanceof BigIntVector bv) {
        bv.set(r, (Long) x);
      } else if (v instanceof Float8Vector fv) {
        fv.set(r, (Double) x);
      } else if (v instanceof DateDayVector dv) {
        dv.set(r, (int) (long) (Long) x);
      } else {
        ((BitVector) v).set(r, (int) (long) (Long) x);
      }
    }
    v.setValueCount(rows);
    return v;
  }

  @Override
  public void close() {
    vectors.forEach(FieldVector::close);
    vectors.clear();
  }

  public static List<ColumnBatch> run(GpuColumnarPipeline pipeline, TransferMethod method, List<SourceBatch> batches) {
    return pipeline.run(GpuRuntime.requireDevice(), method, batches, 2, () -> false);
  }

  /**
   * Runs both backends; both must fail with an ArithmeticException or return the same rows (in any order),
   * the GPU run without falling back to the CPU unless {@code fallbackAllowed} names the reason.
   */
  public static List<Object[]> assertSameResult(GpuColumnarPipeline gpu, TransferMethod method,
      List<SourceBatch> batches, String where, String fallbackAllowed) {
    List<Object[]> expected;
    try {
      expected = rowsOf(gpu.cpuPipeline().run(batches, 3, () -> false));
    } catch (ArithmeticException e) {
      assertThrows(ArithmeticException.class, () -> run(gpu, method, batches), where + ": CPU failed with " + e);
      return List.of();
    }
    List<Object[]> actual = rowsOf(run(gpu, method, batches));
    String fallback = gpu.lastFallback();
    if (fallback != null && (fallbackAllowed == null || !fallback.contains(fallbackAllowed))) {
      throw new AssertionError(where + ": fell back to the CPU: " + fallback);
    }
    assertSameRows(expected, actual, where);
    return actual;
  }

  /**
   * Runs a pipeline without an aggregation on both backends: both must fail with an ArithmeticException, or
   * return the same batches (one per morsel that kept a row), rows in the same order, the same types and values,
   * the GPU run without falling back to the CPU. Returns the GPU's batches (null when both failed).
   */
  public static List<ColumnBatch> assertSameBatches(GpuColumnarPipeline gpu, TransferMethod method,
      List<SourceBatch> batches, String where) {
    List<ColumnBatch> expected;
    try {
      expected = gpu.cpuPipeline().run(batches, 3, () -> false);
    } catch (ArithmeticException e) {
      assertThrows(ArithmeticException.class, () -> run(gpu, method, batches), where + ": CPU failed with " + e);
      return null;
    }
    List<ColumnBatch> actual = run(gpu, method, batches);
    assertEquals(null, gpu.lastFallback(), where);
    assertEquals(expected.stream().map(ColumnBatch::rows).toList(), actual.stream().map(ColumnBatch::rows).toList(),
        where + ": rows per result batch");
    for (int b = 0; b < expected.size(); b++) {
      List<ColumnVector> want = Arrays.asList(expected.get(b).columns());
      List<ColumnVector> got = Arrays.asList(actual.get(b).columns());
      assertEquals(want.stream().map(v -> v.type).toList(), got.stream().map(v -> v.type).toList(), where);
      for (int r = 0; r < expected.get(b).rows(); r++) {
        assertEquals(Arrays.asList(RowReference.row(want, r)), Arrays.asList(RowReference.row(got, r)),
            where + ", batch " + b + ", row " + r);
      }
    }
    return actual;
  }

  public static void assertSameRows(List<Object[]> expected, List<Object[]> actual, String where) {
    assertEquals(expected.size(), actual.size(), where);
    for (int i = 0; i < expected.size(); i++) {
      assertEquals(Arrays.asList(expected.get(i)), Arrays.asList(actual.get(i)), where + ", row " + i);
    }
  }

  public static List<Object[]> rowsOf(List<ColumnBatch> batches) {
    List<Object[]> out = new ArrayList<>();
    for (ColumnBatch batch : batches) {
      for (int r = 0; r < batch.rows(); r++) {
        out.add(RowReference.row(Arrays.asList(batch.columns()), r));
      }
    }
    out.sort(Comparator.comparing(row -> Arrays.asList(row).toString()));
    return out;
  }
}
