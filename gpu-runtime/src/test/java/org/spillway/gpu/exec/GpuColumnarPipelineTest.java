package org.spillway.gpu.exec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.spillway.gpu.GpuRuntime;
import org.spillway.gpu.GpuTest;
import org.spillway.gpu.RandomColumns;
import org.spillway.gpu.transfer.TransferMethod;
import org.spillway.gpu.transfer.TransferOptions;

/**
 * The GPU backend against the CPU backend on fresh random data without NULLs: random expression programs
 * in random filter/project/aggregate pipelines (global and grouped, ragged sizes, one row, empty input),
 * hash tables that must grow, the empty-marker key, and errors; results must be equal, value for value.
 */
@GpuTest
class GpuColumnarPipelineTest {
  /** 4 KiB chunks: 512 rows of 8 bytes, so that small batches still span many chunks and ragged ends. */
  private static final TransferOptions SMALL_CHUNKS = TransferOptions.DEFAULT.withChunkBytes(4096);
  private static final ExprType DEC2 = ExprType.decimal(2);
  private static final int[][] KEY_CHOICES = {{}, {2}, {2, 3}, {0}, {1}, {2, 4}, {4}};
  private static final int[] SIZES = {0, 1, 31, 513, 1000, 4099};

  private BufferAllocator allocator;
  private final List<FieldVector> vectors = new ArrayList<>();

  @BeforeEach void open() {
    allocator = RandomColumns.allocatorFor(TransferMethod.PINNED_COPY);
  }

  @AfterEach void close() {
    vectors.forEach(FieldVector::close);
    allocator.close();
  }

  @ParameterizedTest
  @EnumSource(value = TransferMethod.class, names = {"PINNED_COPY", "ZERO_COPY"})
  void randomPipelinesMatchTheCpuBackend(TransferMethod method) {
    long seed = System.nanoTime();
    Random random = new Random(seed);
    RandomExprs gen = new RandomExprs(random);
    int supported = 0;
    for (int attempt = 0; attempt < 600 && supported < 30; attempt++) {
      Expr condition = gen.bool(2);
      List<Expr> exprs = List.of(gen.int64(1), gen.decimal(2), new Expr.Column(6, ExprType.STRING),
          new Expr.Column(4, ExprType.DATE), new Expr.Column(0, ExprType.INT32));
      int[] keys = KEY_CHOICES[random.nextInt(KEY_CHOICES.length)];
      List<AggCall> calls = List.of(new AggCall(AggCall.Kind.SUM, 1, DEC2),
          new AggCall(AggCall.Kind.SUM0, 0, ExprType.INT64),
          new AggCall(AggCall.Kind.COUNT, -1, ExprType.INT64), new AggCall(AggCall.Kind.COUNT, 1, ExprType.INT64),
          new AggCall(AggCall.Kind.MIN, 3, ExprType.DATE), new AggCall(AggCall.Kind.MAX, 1, DEC2),
          new AggCall(AggCall.Kind.MIN, 0, ExprType.INT64), new AggCall(AggCall.Kind.SUM, 4, ExprType.INT64));
      List<PipelineStage> stages = List.of(new PipelineStage.Filter(condition), new PipelineStage.Project(exprs),
          new PipelineStage.Aggregate(keys, calls));
      GpuColumnarPipeline gpu = new GpuColumnarPipeline(RandomExprs.SCHEMA, stages).withTransferOptions(SMALL_CHUNKS);
      if (gpu.unsupportedReason().isPresent()) {
        continue;
      }
      supported++;
      List<SourceBatch> batches = new ArrayList<>();
      for (int b = random.nextInt(3); b >= 0; b--) {
        batches.add(randomBatch(gen, SIZES[random.nextInt(SIZES.length)]));
      }
      String where = "seed " + seed + ", attempt " + attempt + ", " + method + ", keys " + Arrays.toString(keys)
          + ", filter " + condition + ", project " + exprs;
      assertSameResult(gpu, method, batches, where);
    }
    assertTrue(supported >= 30, "only " + supported + " random pipelines compiled for the GPU (seed " + seed + ")");
  }

  @Test void growsTheHashTableForManyGroupsAndKeepsTheEmptyMarkerKey() {
    int rows = 150_000;
    BigIntVector key = new BigIntVector("k", allocator);
    IntVector small = new IntVector("s", allocator);
    vectors.add(key);
    vectors.add(small);
    key.allocateNew(rows);
    small.allocateNew(rows);
    for (int r = 0; r < rows; r++) {
      key.set(r, (r * 7919L) % 90_000 - 45_000);  // 90 000 groups, -1 among them
      small.set(r, r % 3 - 1);
    }
    key.setValueCount(rows);
    small.setValueCount(rows);
    SourceBatch batch = new SourceBatch(List.of(key, small), rows);
    List<AggCall> calls = List.of(new AggCall(AggCall.Kind.COUNT, -1, ExprType.INT64),
        new AggCall(AggCall.Kind.SUM, 1, ExprType.INT64), new AggCall(AggCall.Kind.MAX, 0, ExprType.INT64));
    List<ExprType> types = List.of(ExprType.INT64, ExprType.INT32);
    for (int[] keys : new int[][] {{0}, {1, 1}, {0, 1}}) {
      // {1, 1}: two INT32 keys of -1 pack into the all-ones word that marks empty slots
      boolean fits = keys.length == 1 || keys[0] == 1;
      GpuColumnarPipeline gpu = new GpuColumnarPipeline(types, List.of(new PipelineStage.Aggregate(keys, calls)));
      assertEquals(fits, gpu.unsupportedReason().isEmpty(), gpu.unsupportedReason().orElse("supported"));
      if (fits) {
        assertSameResult(gpu, TransferMethod.PINNED_COPY, List.of(batch), "keys " + Arrays.toString(keys));
      }
    }
  }

  @Test void globalAggregateOverNoRowsAndStagesAfterTheAggregate() {
    SourceBatch empty = randomBatch(new RandomExprs(new Random(1)), 0);
    SourceBatch some = randomBatch(new RandomExprs(new Random(2)), 700);
    Expr never = new Expr.Compare(Expr.CompareOp.LT, new Expr.Column(0, ExprType.INT32),
        new Expr.Literal(-1000L, ExprType.INT32));
    List<AggCall> calls = List.of(new AggCall(AggCall.Kind.SUM, 1, ExprType.INT64),
        new AggCall(AggCall.Kind.SUM0, 1, ExprType.INT64), new AggCall(AggCall.Kind.COUNT, -1, ExprType.INT64),
        new AggCall(AggCall.Kind.MIN, 2, DEC2));
    PipelineStage aggregate = new PipelineStage.Aggregate(new int[0], calls);
    // AVG as Calcite reduces it: SUM / COUNT in a projection above the aggregation (on the CPU)
    Expr count = new Expr.Column(2, ExprType.INT64);
    Expr nonEmpty = new Expr.Compare(Expr.CompareOp.NE, count, new Expr.Literal(0L, ExprType.INT64));
    Expr quotient = new Expr.Arith(Expr.ArithOp.DIVIDE, new Expr.Column(1, ExprType.INT64), count, ExprType.INT64);
    PipelineStage average = new PipelineStage.Project(List.of(new Expr.Case(List.of(nonEmpty), List.of(quotient),
        new Expr.Literal(-1L, ExprType.INT64)), new Expr.Column(3, DEC2)));
    for (List<SourceBatch> batches : List.of(List.<SourceBatch>of(), List.of(empty), List.of(some, empty))) {
      assertSameResult(new GpuColumnarPipeline(RandomExprs.SCHEMA, List.of(aggregate, average)),
          TransferMethod.PINNED_COPY, batches, "AVG over " + batches.size() + " batches");
      GpuColumnarPipeline filtered = new GpuColumnarPipeline(RandomExprs.SCHEMA,
          List.of(new PipelineStage.Filter(never), aggregate));
      List<Object[]> rows = assertSameResult(filtered, TransferMethod.ZERO_COPY, batches, "no row passes");
      assertEquals(1, rows.size());
      assertNull(rows.get(0)[0]);
      assertEquals(List.of(0L, 0L), Arrays.asList(rows.get(0)).subList(1, 3));
    }
  }

  @Test void sumOverflowAndArithmeticErrorsFailAsOnTheCpu() {
    BigIntVector big = new BigIntVector("big", allocator);
    vectors.add(big);
    big.allocateNew(3000);
    for (int i = 0; i < 3000; i++) {
      big.set(i, Long.MAX_VALUE / 2000);
    }
    big.setValueCount(3000);
    List<SourceBatch> batches = List.of(new SourceBatch(List.of(big), 3000));
    List<ExprType> types = List.of(ExprType.INT64);
    for (int[] keys : new int[][] {{}, {0}}) {
      List<PipelineStage> sum = List.of(new PipelineStage.Aggregate(keys,
          List.of(new AggCall(AggCall.Kind.SUM, 0, ExprType.INT64))));
      ArithmeticException cpu = assertThrows(ArithmeticException.class,
          () -> new ColumnarPipeline(types, sum).run(batches, 2, () -> false));
      ArithmeticException gpu = assertThrows(ArithmeticException.class, () -> run(new GpuColumnarPipeline(types, sum),
          TransferMethod.PINNED_COPY, batches));
      assertEquals(cpu.getMessage(), gpu.getMessage());
    }
    Expr times = new Expr.Arith(Expr.ArithOp.TIMES, new Expr.Column(0, ExprType.INT64),
        new Expr.Literal(4000L, ExprType.INT64), ExprType.INT64);
    List<PipelineStage> overflowing = List.of(new PipelineStage.Project(List.of(times)),
        new PipelineStage.Aggregate(new int[] {0}, List.of(new AggCall(AggCall.Kind.COUNT, -1, ExprType.INT64))));
    ArithmeticException e = assertThrows(ArithmeticException.class,
        () -> run(new GpuColumnarPipeline(types, overflowing), TransferMethod.PINNED_COPY, batches));
    assertTrue(e.getMessage().startsWith("INT64 overflow or division by zero in TIMES($0, 4000)"), e.getMessage());
  }

  private List<ColumnBatch> run(GpuColumnarPipeline pipeline, TransferMethod method, List<SourceBatch> batches) {
    return pipeline.run(GpuRuntime.requireDevice(), method, batches, 2, () -> false);
  }

  /** Runs both backends; both must fail with an ArithmeticException or return the same rows (in any order). */
  private List<Object[]> assertSameResult(GpuColumnarPipeline gpu, TransferMethod method, List<SourceBatch> batches,
      String where) {
    List<Object[]> expected;
    try {
      expected = rowsOf(gpu.cpuPipeline().run(batches, 3, () -> false));
    } catch (ArithmeticException e) {
      assertThrows(ArithmeticException.class, () -> run(gpu, method, batches), where + ": CPU failed with " + e);
      return List.of();
    }
    List<Object[]> actual = rowsOf(run(gpu, method, batches));
    assertNull(gpu.lastFallback(), where);
    assertEquals(expected.size(), actual.size(), where);
    for (int i = 0; i < expected.size(); i++) {
      assertEquals(Arrays.asList(expected.get(i)), Arrays.asList(actual.get(i)), where + ", row " + i);
    }
    return actual;
  }

  private static List<Object[]> rowsOf(List<ColumnBatch> batches) {
    List<Object[]> out = new ArrayList<>();
    for (ColumnBatch batch : batches) {
      for (int r = 0; r < batch.rows(); r++) {
        out.add(RowReference.row(Arrays.asList(batch.columns()), r));
      }
    }
    out.sort(Comparator.comparing(row -> Arrays.asList(row).toString()));
    return out;
  }

  /** A batch of the random schema without NULLs, in pinned memory. */
  private SourceBatch randomBatch(RandomExprs gen, int rows) {
    List<FieldVector> columns = new ArrayList<>();
    for (int c = 0; c < RandomExprs.SCHEMA.size(); c++) {
      ExprType type = RandomExprs.SCHEMA.get(c);
      FieldVector v = switch (type.kind()) {
        case INT32, STRING -> new IntVector("c" + c, allocator);
        case INT64, DECIMAL -> new BigIntVector("c" + c, allocator);
        case FLOAT64 -> new Float8Vector("c" + c, allocator);
        case DATE -> new DateDayVector("c" + c, allocator);
        default -> new BitVector("c" + c, allocator);
      };
      vectors.add(v);
      v.setInitialCapacity(Math.max(rows, 1));
      v.allocateNew();
      for (int r = 0; r < rows; r++) {
        Object x = null;
        while (x == null) {
          x = gen.value(type);
        }
        if (v instanceof IntVector iv) {
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
      columns.add(v);
    }
    return new SourceBatch(columns, rows);
  }
}
