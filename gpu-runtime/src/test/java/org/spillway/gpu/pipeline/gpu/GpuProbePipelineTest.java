package org.spillway.gpu.pipeline.gpu;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.IntVector;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.spillway.gpu.GpuTest;
import org.spillway.gpu.RandomColumns;
import org.spillway.gpu.device.CudaDevice;
import org.spillway.gpu.device.GpuRuntime;
import org.spillway.gpu.expr.AggCall;
import org.spillway.gpu.expr.Expr;
import org.spillway.gpu.join.hash.JoinProbe;
import org.spillway.gpu.pipeline.ColumnBatch;
import org.spillway.gpu.pipeline.PipelineStage;
import org.spillway.gpu.pipeline.RandomBatches;
import org.spillway.gpu.pipeline.SourceBatch;
import org.spillway.gpu.pipeline.cpu.ColumnarPipeline;
import org.spillway.gpu.transfer.TransferMethod;
import org.spillway.gpu.transfer.TransferOptions;
import org.spillway.gpu.vector.ColumnVector;
import org.spillway.gpu.vector.ExprType;
import org.spillway.gpu.vector.IndexedColumns;

/**
 * GPU pipelines that probe hash joins against the CPU backend over the same build sides, on fresh random data:
 * inner, left, semi and anti probes, build columns read by filters, projections, group keys and aggregates, two
 * probes in one pipeline (a star join), NULL keys and payloads on both sides, keys at the extremes (the table's
 * empty marker among them), both filter variants and transfer methods; duplicate build keys of an inner join run on
 * the CPU and say so; the join tables' device memory is given back.
 */
@GpuTest
class GpuProbePipelineTest {
  private static final TransferOptions SMALL_CHUNKS = TransferOptions.DEFAULT.withChunkBytes(4096);
  private static final ExprType BIG = ExprType.INT64;
  private static final ExprType INT = ExprType.INT32;
  private static final ExprType DEC2 = ExprType.decimal(2);
  /** Probe side: key a (INT64), key b (INT32), group g (INT32), value v (DECIMAL(2)). */
  private static final List<ExprType> PROBE = List.of(BIG, INT, INT, DEC2);
  /** Build side: key (INT64), payload p (DECIMAL(2)), day d (DATE). */
  private static final List<ExprType> BUILD = List.of(BIG, DEC2, ExprType.DATE);
  private static final long[] EXTREMES = {-1, Long.MIN_VALUE, Long.MAX_VALUE, 0};

  private BufferAllocator allocator;
  private final List<FieldVector> vectors = new ArrayList<>();

  @BeforeEach void open() {
    allocator = RandomColumns.allocatorFor(TransferMethod.PINNED_COPY);
  }

  @AfterEach void close() {
    vectors.forEach(FieldVector::close);
    vectors.clear();
    allocator.close();
  }

  static Stream<Arguments> variants() {
    return Stream.of(Arguments.of(TransferMethod.PINNED_COPY, FilterVariant.BRANCHING, true),
        Arguments.of(TransferMethod.ZERO_COPY, FilterVariant.PREDICATION, true),
        Arguments.of(TransferMethod.ZERO_COPY, FilterVariant.BRANCHING, false));
  }

  @ParameterizedTest
  @MethodSource("variants")
  void randomProbesMatchTheCpuBackend(TransferMethod method, FilterVariant variant, boolean nulls) {
    long seed = System.nanoTime();
    Random random = new Random(seed);
    GpuRuntime.requireDevice();
    for (int round = 0; round < 24; round++) {
      JoinProbe.Kind kind = JoinProbe.Kind.values()[round % 4];
      boolean buildFirst = kind.projectsBuild() && random.nextBoolean();
      boolean aggregate = round % 8 < 5;
      int probeRows = new int[] {0, 1, 700, 5000}[random.nextInt(4)];
      int buildRows = new int[] {0, 1, 300, 2000}[random.nextInt(4)];
      boolean unique = kind.projectsBuild() || random.nextBoolean();
      Build build = build(random, buildRows, unique, nulls);
      List<SourceBatch> batches = List.of(probe(random, probeRows, nulls), probe(random, probeRows / 3, nulls));
      List<PipelineStage> stages = stages(kind, buildFirst, aggregate, random);
      String where = "seed " + seed + ", round " + round + ", " + kind + ", buildFirst " + buildFirst + ", aggregate "
          + aggregate + ", " + method + ", " + variant + ", nulls " + nulls + ", probe rows " + probeRows
          + ", build rows " + buildRows + ", unique " + unique + ", stages " + stages;
      assertMatchesCpu(new GpuColumnarPipeline(PROBE, stages).withTransferOptions(SMALL_CHUNKS)
          .withFilterVariant(variant), method, batches, List.of(build), stages, where);
    }
  }

  /**
   * A zero-copy aggregating pass launches over tables of whole batches read in place (kernel time by CUDA events,
   * where a launch per batch reports none), a table of at most TABLE_BATCHES batches a launch; the rows equal the CPU
   * backend's, and equal those of a launch per batch (the property off).
   */
  @Test void zeroCopyPassesLaunchOverTablesOfBatches() {
    Random random = new Random(11);
    Build build = build(random, 2000, true, true);
    List<SourceBatch> batches = new ArrayList<>();
    for (int b = 0; b < GpuBatchStreamer.TABLE_BATCHES + 3; b++) {
      batches.add(probe(random, new int[] {0, 1, 256, 5000, 131_072}[random.nextInt(5)], b % 2 == 0));
    }
    for (JoinProbe.Kind kind : List.of(JoinProbe.Kind.INNER, JoinProbe.Kind.SEMI, JoinProbe.Kind.ANTI)) {
      List<PipelineStage> stages = stages(kind, false, true, random);
      GpuColumnarPipeline tables = new GpuColumnarPipeline(PROBE, stages).withFilterVariant(FilterVariant.BRANCHING);
      assertMatchesCpu(tables, TransferMethod.ZERO_COPY, batches, List.of(build), stages, kind + " over tables");
      assertTrue(tables.lastRun().kernelNanos() >= 0, kind + ": launched over tables");
      System.setProperty("spillway.gpu.zeroCopyTables", "false");
      try {
        GpuColumnarPipeline each = new GpuColumnarPipeline(PROBE, stages).withFilterVariant(FilterVariant.BRANCHING);
        assertMatchesCpu(each, TransferMethod.ZERO_COPY, batches, List.of(build), stages, kind + " a launch per batch");
        assertEquals(-1, each.lastRun().kernelNanos(), kind + ": launched per batch");
      } finally {
        System.clearProperty("spillway.gpu.zeroCopyTables");
      }
    }
  }

  /**
   * The scan shared with the CPU backend ({@link GpuColumnarPipeline#withCoprocessing}): many probe batches, each
   * taken by the GPU or the CPU workers, the two results combined; duplicate build keys of an inner join leave the
   * GPU's part to the CPU after all, with the same result.
   */
  @ParameterizedTest
  @MethodSource("variants")
  void sharedScansMatchTheCpuBackend(TransferMethod method, FilterVariant variant, boolean nulls) {
    long seed = System.nanoTime();
    Random random = new Random(seed);
    CudaDevice device = GpuRuntime.requireDevice();
    for (int round = 0; round < 16; round++) {
      JoinProbe.Kind kind = JoinProbe.Kind.values()[round % 4];
      boolean aggregate = round % 3 != 0;
      boolean unique = kind.projectsBuild() ? round % 8 != 1 : random.nextBoolean();
      Build build = build(random, new int[] {1, 300, 2000}[random.nextInt(3)], unique, nulls);
      List<SourceBatch> batches = new ArrayList<>();
      for (int b = 4 + random.nextInt(12); b > 0; b--) {
        batches.add(probe(random, new int[] {0, 256, 4096, 20000}[random.nextInt(4)], nulls));
      }
      List<PipelineStage> stages = stages(kind, false, aggregate, random);
      String where = "seed " + seed + ", round " + round + ", " + kind + ", aggregate " + aggregate + ", " + method
          + ", " + variant + ", nulls " + nulls + ", unique " + unique + ", stages " + stages;
      GpuColumnarPipeline gpu = new GpuColumnarPipeline(PROBE, stages).withTransferOptions(SMALL_CHUNKS)
          .withFilterVariant(variant).withCoprocessing(true);
      List<Object[]> expected = RandomBatches.rowsOf(bound(stages, List.of(build)).run(batches, 2, () -> false));
      List<ColumnBatch> out = gpu.run(device, method, batches, List.of(build), stop -> bound(stages, List.of(build)),
          4, () -> false);
      RandomBatches.assertSameRows(expected, RandomBatches.rowsOf(out), where);
      GpuColumnarPipeline.Share share = gpu.lastShare();
      assertNotNull(share, where);
      long nonEmpty = batches.stream().filter(b -> b.rows() > 0).count();
      assertTrue(share.gpu() + share.cpu() >= nonEmpty && share.gpu() + share.cpu() <= batches.size(),
          where + ": " + share);
      if (gpu.lastFallback() != null) {
        assertTrue(kind.projectsBuild() && !unique, where + ": fell back: " + gpu.lastFallback());
        assertEquals(share.gpu(), share.fallback(), where);
      }
    }
  }

  /** Two probes in one pass (Q5's shape): an inner join whose payload is grouped, then a semi-join on another key. */
  @Test void starJoinProbesTwoTablesInOnePass() {
    Random random = new Random(7);
    Build dimension = build(random, 400, true, true);
    Build filter = build(random, 50, false, false);
    List<PipelineStage> stages = List.of(
        new PipelineStage.HashJoinProbe(probe(JoinProbe.Kind.INNER, 0, false)),
        new PipelineStage.Filter(new Expr.Compare(Expr.CompareOp.GT, new Expr.Column(5, DEC2),
            new Expr.Literal(-2000L, DEC2))),
        new PipelineStage.HashJoinProbe(new JoinProbe(JoinProbe.Kind.SEMI, new int[] {1}, List.of(INT), new int[] {0},
            BUILD, false, null)),
        new PipelineStage.Aggregate(new int[] {6}, List.of(new AggCall(AggCall.Kind.SUM, 3, DEC2),
            new AggCall(AggCall.Kind.COUNT, -1, BIG), new AggCall(AggCall.Kind.MAX, 5, DEC2))));
    List<SourceBatch> batches = List.of(probe(random, 20000, true));
    GpuColumnarPipeline gpu = new GpuColumnarPipeline(PROBE, stages).withTransferOptions(SMALL_CHUNKS);
    List<IndexedColumns> builds = List.of(dimension, filter);
    List<Object[]> expected = RandomBatches.rowsOf(bound(stages, builds).run(batches, 2, () -> false));
    List<ColumnBatch> out = gpu.run(GpuRuntime.requireDevice(), TransferMethod.ZERO_COPY, batches, builds,
        () -> bound(stages, builds), 2, () -> false);
    assertNull(gpu.lastFallback());
    assertTrue(expected.size() > 10, "groups: " + expected.size());
    RandomBatches.assertSameRows(expected, RandomBatches.rowsOf(out), "star join");
  }

  /**
   * A join on two 32-bit key columns (Q5's and Q9's shape) packs them into one 64-bit key on both sides; NULL in
   * either column matches nothing.
   */
  @Test void twoKeyColumnsPackIntoOne() {
    Random random = new Random(5);
    int rows = 600;
    long[] high = new long[rows];
    long[] low = new long[rows];
    long[] payload = new long[rows];
    boolean[] nulls = new boolean[rows];
    for (int r = 0; r < rows; r++) {
      high[r] = r % 120;  // the probe's b
      low[r] = r / 120 * 8 + (r % 3 == 0 ? -1 : 0);  // the probe's g, negative now and then
      payload[r] = random.nextInt(1000);
      nulls[r] = r % 17 == 0;
    }
    List<ExprType> types = List.of(INT, INT, DEC2);
    IndexedColumns build = new IndexedColumns() {
      private final ColumnVector[] columns = {ColumnVector.ofLongs(INT, high, nulls, rows),
          ColumnVector.ofLongs(INT, low, null, rows), ColumnVector.ofLongs(DEC2, payload, null, rows)};

      @Override public int rows() {
        return rows;
      }

      @Override public List<ExprType> types() {
        return types;
      }

      @Override public ColumnVector column(int c) {
        return columns[c];
      }

      @Override public ColumnVector gather(int c, int[] ids, int count) {
        return columns[c].gatherOrNull(ids, count);
      }
    };
    for (JoinProbe.Kind kind : List.of(JoinProbe.Kind.INNER, JoinProbe.Kind.LEFT, JoinProbe.Kind.ANTI)) {
      List<PipelineStage> stages = List.of(
          new PipelineStage.HashJoinProbe(new JoinProbe(kind, new int[] {1, 2}, List.of(INT, INT), new int[] {0, 1},
              types, false, null)),
          new PipelineStage.Aggregate(new int[] {2}, kind.projectsBuild()
              ? List.of(new AggCall(AggCall.Kind.SUM, 6, DEC2), new AggCall(AggCall.Kind.COUNT, -1, BIG))
              : List.of(new AggCall(AggCall.Kind.COUNT, -1, BIG))));
      List<SourceBatch> batches = List.of(probe(random, 4000, true));
      assertMatchesCpu(new GpuColumnarPipeline(PROBE, stages), TransferMethod.ZERO_COPY, batches, List.of(build),
          stages, kind + " on two keys");
    }
  }

  /**
   * Two key columns of 64-bit types (Q2's part key and supply cost) pack as 32-bit ones do: a probe value beyond 32
   * bits (the probe's extreme keys) matches nothing, as on the CPU; a build value beyond 32 bits refuses the GPU
   * table, and the CPU runs the pipeline, saying why.
   */
  @Test void twoKeysOf64BitTypesPackWhereTheirValuesFit() {
    Random random = new Random(9);
    SourceBatch batch = probe(random, 5000, true);
    BigIntVector a = (BigIntVector) batch.columns().get(0);
    BigIntVector v = (BigIntVector) batch.columns().get(3);
    java.util.Set<List<Long>> pairs = new java.util.LinkedHashSet<>();
    for (int r = 0; r < batch.rows() && pairs.size() < 700; r += 3) {  // every third row's pair, where it fits
      if (!a.isNull(r) && !v.isNull(r) && a.get(r) == (int) a.get(r)) {
        pairs.add(List.of(a.get(r), v.get(r)));
      }
    }
    pairs.add(List.of(-5L, 123_456L));  // a pair no probe row has
    int rows = pairs.size();
    long[] keys = new long[rows];
    long[] costs = new long[rows];
    int i = 0;
    for (List<Long> pair : pairs) {
      keys[i] = pair.get(0);
      costs[i++] = pair.get(1);
    }
    Build fits = new Build(new ColumnVector[] {ColumnVector.ofLongs(BIG, keys, null, rows),
        ColumnVector.ofLongs(DEC2, costs, null, rows), ColumnVector.ofLongs(ExprType.DATE, new long[rows], null, rows)},
        rows);
    for (JoinProbe.Kind kind : List.of(JoinProbe.Kind.INNER, JoinProbe.Kind.LEFT, JoinProbe.Kind.SEMI,
        JoinProbe.Kind.ANTI)) {
      List<PipelineStage> stages = List.of(
          new PipelineStage.HashJoinProbe(new JoinProbe(kind, new int[] {0, 3}, List.of(BIG, DEC2), new int[] {0, 1},
              BUILD, false, null)),
          new PipelineStage.Aggregate(new int[] {2}, List.of(new AggCall(AggCall.Kind.COUNT, -1, BIG))));
      assertMatchesCpu(new GpuColumnarPipeline(PROBE, stages), TransferMethod.PINNED_COPY, List.of(batch),
          List.of(fits), stages, kind + " on two 64-bit keys");
    }
    long[] beyond = keys.clone();
    beyond[rows / 2] = 1L << 40;
    Build refused = new Build(new ColumnVector[] {ColumnVector.ofLongs(BIG, beyond, null, rows),
        fits.column(1), fits.column(2)}, rows);
    List<PipelineStage> semi = List.of(new PipelineStage.HashJoinProbe(new JoinProbe(JoinProbe.Kind.SEMI,
        new int[] {0, 3}, List.of(BIG, DEC2), new int[] {0, 1}, BUILD, false, null)),
        new PipelineStage.Aggregate(new int[] {2}, List.of(new AggCall(AggCall.Kind.COUNT, -1, BIG))));
    GpuColumnarPipeline gpu = new GpuColumnarPipeline(PROBE, semi);
    List<Object[]> expected = RandomBatches.rowsOf(bound(semi, List.of(refused)).run(List.of(batch), 2, () -> false));
    List<ColumnBatch> out = gpu.run(GpuRuntime.requireDevice(), TransferMethod.PINNED_COPY, List.of(batch),
        List.of(refused), stop -> bound(semi, List.of(refused)), 2, () -> false);
    assertTrue(gpu.lastFallback() != null && gpu.lastFallback().contains("beyond 32 bits"), gpu.lastFallback());
    RandomBatches.assertSameRows(expected, RandomBatches.rowsOf(out), "a build value beyond 32 bits");
  }

  /**
   * FLOAT64 residuals after a probe (TPC-H Q17's {@code CAST(l_quantity AS DOUBLE) < 0.2 * avg}, the average a
   * build column of doubles): casts of decimals and integers, +, -, *, / (by zero too: infinities and NaN) and every
   * comparison, with NULLs on both sides, select exactly the rows the CPU backend selects. Averages near the probe's
   * values (the same decimal now and then) make ties that one rounding step apart would break.
   */
  @ParameterizedTest
  @MethodSource("variants")
  void doubleResidualsMatchTheCpuBackend(TransferMethod method, FilterVariant variant, boolean nulls) {
    long seed = System.nanoTime();
    Random random = new Random(seed);
    GpuRuntime.requireDevice();
    List<ExprType> types = List.of(BIG, ExprType.FLOAT64);
    for (int round = 0; round < 12; round++) {
      int rows = 400;
      long[] keys = new long[rows];
      double[] averages = new double[rows];
      boolean[] averageNulls = new boolean[rows];
      for (int r = 0; r < rows; r++) {
        keys[r] = r - 200;
        averageNulls[r] = nulls && random.nextInt(9) == 0;
        averages[r] = averageNulls[r] ? 0 : switch (random.nextInt(12)) {
          case 0 -> Double.NaN;
          case 1 -> random.nextBoolean() ? Double.POSITIVE_INFINITY : Double.NEGATIVE_INFINITY;
          case 2 -> -0.0;
          case 3, 4, 5 -> (random.nextInt(200000) - 100000) / 100.0;  // the probe's v as a double, exactly
          default -> (double) (random.nextInt(2_000_000) - 1_000_000) / (1 + random.nextInt(40));  // an average
        };
      }
      IndexedColumns build = doubles(types, ColumnVector.ofLongs(BIG, keys, null, rows),
          ColumnVector.ofDoubles(averages, nulls ? averageNulls : null, rows), rows);
      // joined: a, b, g, v, key, average
      Expr v = new Expr.Cast(new Expr.Column(3, DEC2), ExprType.FLOAT64);
      Expr g = new Expr.Cast(new Expr.Column(2, INT), ExprType.FLOAT64);
      Expr average = new Expr.Column(5, ExprType.FLOAT64);
      Expr fifth = new Expr.Arith(Expr.ArithOp.TIMES, new Expr.Cast(new Expr.Literal(2L, ExprType.decimal(1)),
          ExprType.FLOAT64), average, ExprType.FLOAT64);
      Expr.ArithOp op = Expr.ArithOp.values()[random.nextInt(4)];
      Expr mixed = new Expr.Arith(op, new Expr.Arith(Expr.ArithOp.MINUS, average, v, ExprType.FLOAT64), g,
          ExprType.FLOAT64);
      Expr.CompareOp compare = Expr.CompareOp.values()[random.nextInt(6)];
      Expr condition = switch (round % 3) {
        case 0 -> new Expr.Compare(Expr.CompareOp.LT, v, fifth);
        case 1 -> new Expr.Compare(compare, v, average);
        default -> new Expr.Logical(false, List.of(new Expr.Compare(compare, mixed, new Expr.Literal(0.5,
            ExprType.FLOAT64)), new Expr.Compare(Expr.CompareOp.EQ, new Expr.Case(List.of(new Expr.IsNull(
            new Expr.Column(3, DEC2), false)), List.of(average), fifth), v)));
      };
      List<PipelineStage> stages = List.of(
          new PipelineStage.HashJoinProbe(new JoinProbe(JoinProbe.Kind.INNER, new int[] {0}, List.of(BIG),
              new int[] {0}, types, false, null)),
          new PipelineStage.Filter(condition),
          new PipelineStage.Aggregate(new int[] {2}, List.of(new AggCall(AggCall.Kind.SUM, 3, DEC2),
              new AggCall(AggCall.Kind.COUNT, -1, BIG))));
      List<SourceBatch> batches = List.of(probe(random, 6000, nulls), probe(random, 900, nulls));
      String where = "seed " + seed + ", round " + round + ", " + method + ", " + variant + ", nulls " + nulls
          + ", condition " + condition;
      assertMatchesCpu(new GpuColumnarPipeline(PROBE, stages).withTransferOptions(SMALL_CHUNKS)
          .withFilterVariant(variant), method, batches, List.of(build), stages, where);
    }
  }

  /**
   * A mark join's probe side on the GPU (TPC-H Q4's and Q22's shape): a filter, then a MARK_BUILD probe of build keys
   * with NULLs, unique or not; the marks the GPU sets (alone, or beside the CPU workers of a shared scan) give the same
   * semi- and anti-join rows as the CPU backend's marks.
   */
  @ParameterizedTest
  @MethodSource("variants")
  void markingProbesMarkTheBuildRowsTheCpuMarks(TransferMethod method, FilterVariant variant, boolean nulls) {
    long seed = System.nanoTime();
    Random random = new Random(seed);
    for (int round = 0; round < 12; round++) {
      assertMarksAsTheCpu(probe(JoinProbe.Kind.MARK_BUILD, 0, true), 1, random, round % 4 != 3, round % 2 == 1,
          method, variant, nulls, "seed " + seed + ", round " + round);
    }
  }

  /**
   * Several semi- and anti-joins of one build side marking in one probe (TPC-H Q21's EXISTS and NOT EXISTS): per join
   * a condition over the joined row that reads build and probe columns (NULLs on both sides, Kleene's AND), or the key
   * match alone; build keys with duplicates, whose every row the GPU visits. Alone and beside the CPU workers of a
   * shared scan, the GPU's marks keep the CPU backend's rows for every combination of semi- and anti-joins.
   */
  @ParameterizedTest
  @MethodSource("variants")
  void severalMarksUnderConditionsMarkTheRowsTheCpuMarks(TransferMethod method, FilterVariant variant, boolean nulls) {
    long seed = System.nanoTime();
    Random random = new Random(seed);
    int buildAt = 0;
    int probeAt = BUILD.size();
    Expr differs = new Expr.Compare(Expr.CompareOp.NE, new Expr.Column(buildAt + 1, DEC2),
        new Expr.Column(probeAt + 3, DEC2));
    Expr differsLate = new Expr.Logical(true, List.of(differs, new Expr.Compare(Expr.CompareOp.GT,
        new Expr.Column(probeAt + 2, INT), new Expr.Literal(20L, INT))));
    for (int round = 0; round < 12; round++) {
      List<Expr> conditions = round % 4 < 2 ? List.of(differs, differsLate)
          : java.util.Arrays.asList(differs, differsLate, null);
      assertMarksAsTheCpu(JoinProbe.marking(new int[] {0}, List.of(BIG), new int[] {0}, BUILD, conditions),
          conditions.size(), random, round % 3 == 2, round % 2 == 1, method, variant, nulls,
          "seed " + seed + ", round " + round + ", marks " + conditions.size());
    }
  }

  /**
   * A filter, then {@code marking} (of {@code marks} marks) over fresh random probe batches and a build side (unique
   * keys or not): the marks the GPU sets, alone or in a shared scan, keep the CPU backend's build rows for every
   * combination of semi- and anti-joins.
   */
  private void assertMarksAsTheCpu(JoinProbe marking, int marks, Random random, boolean unique, boolean shared,
      TransferMethod method, FilterVariant variant, boolean nulls, String round) {
    Build build = build(random, new int[] {0, 1, 300, 2000}[random.nextInt(4)], unique, nulls);
    List<SourceBatch> batches = new ArrayList<>();
    for (int b = 1 + random.nextInt(8); b > 0; b--) {
      batches.add(probe(random, new int[] {0, 700, 5000}[random.nextInt(3)], nulls));
    }
    List<PipelineStage> stages = List.of(new PipelineStage.Filter(new Expr.Compare(Expr.CompareOp.LT,
        new Expr.Column(2, INT), new Expr.Literal((long) random.nextInt(40), INT))),
        new PipelineStage.HashJoinProbe(marking));
    String where = round + ", " + method + ", " + variant + ", nulls " + nulls + ", unique " + unique + ", shared "
        + shared + ", build rows " + build.rows();
    ColumnarPipeline cpu = bound(stages, List.of(build));
    cpu.run(batches, 2, () -> false);
    JoinProbe cpuMarks = ((PipelineStage.HashJoinProbe) cpu.stages().get(1)).probe();
    ColumnarPipeline gpuBound = bound(stages, List.of(build));
    JoinProbe gpuMarks = ((PipelineStage.HashJoinProbe) gpuBound.stages().get(1)).probe();
    GpuColumnarPipeline gpu = new GpuColumnarPipeline(PROBE, stages).withTransferOptions(SMALL_CHUNKS)
        .withFilterVariant(variant).withCoprocessing(shared)
        .withBuildMarks((probe, set) -> gpuMarks.markBuildRows(set));
    assertEquals("supported", gpu.unsupportedReason().orElse("supported"), where);
    List<ColumnBatch> out = gpu.run(GpuRuntime.requireDevice(), method, batches, List.of(build), stop -> gpuBound, 2,
        () -> false);
    assertEquals(0, out.stream().mapToInt(ColumnBatch::rows).sum(), where);
    assertMarkingFallback(build, gpu, where);
    for (int combination = 0; combination < 1 << marks; combination++) {
      boolean[] wanted = new boolean[marks];
      for (int m = 0; m < marks; m++) {
        wanted[m] = (combination >> m & 1) == 1;
      }
      assertEquals(java.util.Arrays.toString(cpuMarks.markedBuildRows(wanted)),
          java.util.Arrays.toString(gpuMarks.markedBuildRows(wanted)),
          where + ", wanted " + java.util.Arrays.toString(wanted));
    }
  }

  /**
   * A marking probe runs on the GPU whatever its build keys, unless more than one build row has the key that marks the
   * table's empty slots (its row is kept aside, one only): then the CPU marks, saying why.
   */
  private static void assertMarkingFallback(Build build, GpuColumnarPipeline gpu, String where) {
    ColumnVector keys = build.columns()[0];
    int emptyMarkers = 0;
    for (int r = 0; r < build.rows(); r++) {
      emptyMarkers += !keys.isNull(r) && keys.longs[r] == -1 ? 1 : 0;
    }
    String fallback = gpu.lastFallback();
    assertEquals(emptyMarkers > 1 ? "empty marker" : null, fallback == null ? null
        : fallback.contains("empty marker") ? "empty marker" : fallback, where);
  }

  /**
   * A rows pipeline returning an INNER probe's TEXT build column (TPC-H Q21's s_name): the GPU returns the build row
   * ids and the host gathers the strings (NULLs among them), beside values the kernel computes; alone and in a shared
   * scan, the same rows as the CPU backend.
   */
  @ParameterizedTest
  @MethodSource("variants")
  void textBuildColumnsComeBackGathered(TransferMethod method, FilterVariant variant, boolean nulls) {
    long seed = System.nanoTime();
    Random random = new Random(seed);
    GpuRuntime.requireDevice();
    List<ExprType> types = List.of(BIG, ExprType.TEXT);
    for (int round = 0; round < 8; round++) {
      int rows = new int[] {1, 300, 2000}[random.nextInt(3)];
      long[] keys = new long[rows];
      Object[] names = new Object[rows];
      boolean[] nameNulls = new boolean[rows];
      for (int r = 0; r < rows; r++) {
        keys[r] = r * 3 - 200;
        nameNulls[r] = nulls && random.nextInt(7) == 0;
        names[r] = nameNulls[r] ? null : "Supplier#" + r + (random.nextBoolean() ? "é" : "");
      }
      IndexedColumns build = doubles(types, ColumnVector.ofLongs(BIG, keys, null, rows),
          ColumnVector.ofObjects(ExprType.TEXT, names, nulls ? nameNulls : null, rows), rows);
      // joined: a, b, g, v, key, name
      List<PipelineStage> stages = List.of(
          new PipelineStage.HashJoinProbe(new JoinProbe(JoinProbe.Kind.INNER, new int[] {0}, List.of(BIG),
              new int[] {0}, types, false, null)),
          new PipelineStage.Filter(new Expr.Compare(Expr.CompareOp.NE, new Expr.Column(2, INT),
              new Expr.Literal(5L, INT))),
          new PipelineStage.Project(List.of(new Expr.Column(5, ExprType.TEXT), new Expr.Column(3, DEC2),
              new Expr.Column(4, BIG), new Expr.Column(5, ExprType.TEXT))));
      List<SourceBatch> batches = new ArrayList<>();
      for (int b = 1 + random.nextInt(6); b > 0; b--) {
        batches.add(probe(random, new int[] {0, 700, 5000}[random.nextInt(3)], nulls));
      }
      boolean shared = round % 2 == 1;
      String where = "seed " + seed + ", round " + round + ", " + method + ", " + variant + ", nulls " + nulls
          + ", shared " + shared + ", build rows " + rows;
      assertMatchesCpu(new GpuColumnarPipeline(PROBE, stages).withTransferOptions(SMALL_CHUNKS)
          .withFilterVariant(variant).withCoprocessing(shared), method, batches, List.of(build), stages, where);
    }
  }

  /** A build side of the given columns. */
  private static IndexedColumns doubles(List<ExprType> types, ColumnVector keys, ColumnVector values, int rows) {
    ColumnVector[] columns = {keys, values};
    return new IndexedColumns() {
      @Override public int rows() {
        return rows;
      }

      @Override public List<ExprType> types() {
        return types;
      }

      @Override public ColumnVector column(int c) {
        return columns[c];
      }

      @Override public ColumnVector gather(int c, int[] ids, int count) {
        return columns[c].gatherOrNull(ids, count);
      }
    };
  }

  /** An inner join over duplicate build keys pairs a probe row with several rows: the CPU runs it and says why. */
  @Test void duplicateBuildKeysOfAnInnerJoinRunOnTheCpu() {
    Random random = new Random(11);
    Build build = build(random, 500, false, false);
    List<PipelineStage> stages = stages(JoinProbe.Kind.INNER, false, true, random);
    List<SourceBatch> batches = List.of(probe(random, 3000, false));
    GpuColumnarPipeline gpu = new GpuColumnarPipeline(PROBE, stages);
    List<Object[]> expected = RandomBatches.rowsOf(bound(stages, List.of(build)).run(batches, 2, () -> false));
    List<ColumnBatch> out = gpu.run(GpuRuntime.requireDevice(), TransferMethod.ZERO_COPY, batches, List.of(build),
        () -> bound(stages, List.of(build)), 2, () -> false);
    assertNotNull(gpu.lastFallback());
    assertTrue(gpu.lastFallback().contains("duplicate keys"), gpu.lastFallback());
    RandomBatches.assertSameRows(expected, RandomBatches.rowsOf(out), "duplicates");
  }

  /**
   * A build side held in a table's Arrow batches (as a bare scan's output is) that the GPU column cache holds: the
   * cold run fills the cache with its key, payload and day columns, the warm run makes the 64-bit arrays from the
   * cached copies (a copy for the 8-byte key and payload, a widening for the 4-byte days) instead of uploading them;
   * both give the CPU backend's rows, for every probe kind.
   */
  @Test void buildColumnsTheColumnCacheHoldsAreMadeOnTheGpu() {
    long seed = System.nanoTime();
    Random random = new Random(seed);
    CudaDevice device = GpuRuntime.requireDevice();
    try (GpuColumnCache cache = new GpuColumnCache(device, 1L << 30)) {
      for (int k = 0; k < 4; k++) {
        JoinProbe.Kind kind = JoinProbe.Kind.values()[k];
        Build rows = build(random, 2500, true, false);
        IndexedColumns held = held(rows, new int[] {0, 1, 700, 0, 1799});
        List<PipelineStage> stages = stages(kind, false, random.nextBoolean(), random);
        List<SourceBatch> batches = List.of(probe(random, 4000, true), probe(random, 900, false));
        String where = "seed " + seed + ", " + kind + ", " + stages;
        List<Object[]> expected = RandomBatches.rowsOf(bound(stages, List.of(rows)).run(batches, 2, () -> false));
        GpuColumnarPipeline gpu = new GpuColumnarPipeline(PROBE, stages).withCache(cache);
        for (String run : new String[] {"cold", "warm"}) {
          List<ColumnBatch> out = gpu.run(device, TransferMethod.ZERO_COPY, batches, List.of(held),
              stop -> bound(stages, List.of(held)), 2, () -> false);
          assertNull(gpu.lastFallback(), where);
          RandomBatches.assertSameRows(expected, RandomBatches.rowsOf(out), where + " (" + run + ")");
          String timing = where + " (" + run + "): " + gpu.lastJoinTiming();
          assertEquals(0, gpu.lastJoinUploadedBytes(), timing);
          if (run.equals("cold")) {
            assertTrue(gpu.lastJoinCachedBytes() >= 2500L * 8, timing + ": the build keys, at least, from the cache");
            assertEquals(0, gpu.lastJoinKeptBytes(), timing);
          } else {  // the table (and the columns it gathers) as the cold run left them in the cache
            assertEquals(0, gpu.lastJoinCachedBytes(), timing);
            assertTrue(gpu.lastJoinKeptBytes() >= 2500L * 12, timing);
          }
        }
        // another probe of the same build side finds the table where its kind builds the same one
        JoinProbe.Kind other = JoinProbe.Kind.values()[(k + 1) % 4];
        List<PipelineStage> otherStages = stages(other, false, random.nextBoolean(), random);
        GpuColumnarPipeline second = new GpuColumnarPipeline(PROBE, otherStages).withCache(cache);
        List<ColumnBatch> out = second.run(device, TransferMethod.ZERO_COPY, batches, List.of(held),
            stop -> bound(otherStages, List.of(held)), 2, () -> false);
        RandomBatches.assertSameRows(RandomBatches.rowsOf(bound(otherStages, List.of(rows)).run(batches, 2,
            () -> false)), RandomBatches.rowsOf(out), where + ", then " + other + ", " + otherStages);
      }
      assertTrue(cache.hits() > 0, cache.hits() + " hits");
    }
  }

  /**
   * A build side held in a table's pinned Arrow batches, without a column cache: its key, payload and day columns are
   * made on the GPU from the batches (copied, or widened from 4 bytes a day) instead of being written as 64-bit values
   * on the host and uploaded, and every probe kind gives the CPU backend's rows.
   */
  @Test void buildColumnsOfPinnedBatchesAreMadeOnTheGpu() {
    long seed = System.nanoTime();
    Random random = new Random(seed);
    CudaDevice device = GpuRuntime.requireDevice();
    for (int k = 0; k < 4; k++) {  // the kinds that end in rows (a marking probe ends its pipeline)
      JoinProbe.Kind kind = JoinProbe.Kind.values()[k];
      Build rows = build(random, 3000, true, false);
      IndexedColumns held = held(rows, new int[] {1200, 0, 1, 1799});
      List<PipelineStage> stages = stages(kind, false, random.nextBoolean(), random);
      List<SourceBatch> batches = List.of(probe(random, 4000, true), probe(random, 900, false));
      String where = "seed " + seed + ", " + kind + ", " + stages;
      List<Object[]> expected = RandomBatches.rowsOf(bound(stages, List.of(rows)).run(batches, 2, () -> false));
      GpuColumnarPipeline gpu = new GpuColumnarPipeline(PROBE, stages);
      List<ColumnBatch> out = gpu.run(device, TransferMethod.PINNED_COPY, batches, List.of(held),
          stop -> bound(stages, List.of(held)), 2, () -> false);
      assertNull(gpu.lastFallback(), where);
      RandomBatches.assertSameRows(expected, RandomBatches.rowsOf(out), where);
      long uploaded = gpu.lastJoinUploadedBytes();
      assertTrue(uploaded >= 3000L * 8 && uploaded <= 3000L * 20, where + ": " + gpu.lastJoinTiming());
    }
  }

  /** {@code rows} as a table's Arrow batches of the given sizes (their sum): 8-byte key and payload, 4-byte days. */
  private IndexedColumns held(Build rows, int[] batchRows) {
    List<List<FieldVector>> columns = List.of(new ArrayList<>(), new ArrayList<>(), new ArrayList<>());
    int from = 0;
    for (int n : batchRows) {
      BigIntVector key = new BigIntVector("key", allocator);
      BigIntVector payload = new BigIntVector("p", allocator);
      org.apache.arrow.vector.DateDayVector day = new org.apache.arrow.vector.DateDayVector("d", allocator);
      List<FieldVector> batch = List.of(key, payload, day);
      for (FieldVector v : batch) {
        vectors.add(v);
        v.setInitialCapacity(Math.max(1, n));
        v.allocateNew();
      }
      for (int r = 0; r < n; r++) {
        key.set(r, rows.columns()[0].longs[from + r]);
        payload.set(r, rows.columns()[1].longs[from + r]);
        day.set(r, (int) rows.columns()[2].longs[from + r]);
      }
      for (int c = 0; c < 3; c++) {
        batch.get(c).setValueCount(n);
        columns.get(c).add(batch.get(c));
      }
      from += n;
    }
    org.spillway.gpu.pipeline.ArrowColumnGather[] readers = new org.spillway.gpu.pipeline.ArrowColumnGather[3];
    for (int c = 0; c < 3; c++) {
      readers[c] = new org.spillway.gpu.pipeline.ArrowColumnGather(columns.get(c), BUILD.get(c));
    }
    int total = from;
    return new IndexedColumns() {
      @Override public int rows() {
        return total;
      }

      @Override public List<ExprType> types() {
        return BUILD;
      }

      @Override public ColumnVector column(int c) {
        return readers[c].all();
      }

      @Override public ColumnVector gather(int c, int[] ids, int count) {
        return readers[c].gather(ids, count);
      }

      @Override public LongWriter longWriter(int c) {
        return readers[c]::writeLongs;
      }

      @Override public List<HeldValues> heldValues(int c) {
        return readers[c].heldValues();
      }
    };
  }

  /** Runs leave the device's allocator as they found it: the tables and build columns are freed. */
  @Test void joinTablesAreFreed() {
    CudaDevice device = GpuRuntime.requireDevice();
    Random random = new Random(3);
    Build build = build(random, 3000, true, true);
    List<PipelineStage> stages = stages(JoinProbe.Kind.LEFT, true, true, random);
    List<SourceBatch> batches = List.of(probe(random, 4000, true));
    GpuColumnarPipeline gpu = new GpuColumnarPipeline(PROBE, stages);
    gpu.run(device, TransferMethod.ZERO_COPY, batches, List.of(build), () -> bound(stages, List.of(build)), 2,
        () -> false);
    GpuColumnarPipeline.releaseIdleResources(device);
    int live = device.allocator().liveBuffers();
    long bytes = device.allocator().allocatedBytes();
    for (int i = 0; i < 3; i++) {
      gpu.run(device, TransferMethod.ZERO_COPY, batches, List.of(build), () -> bound(stages, List.of(build)), 2,
          () -> false);
      assertTrue(gpu.lastJoinBytes() > 0);
    }
    GpuColumnarPipeline.releaseIdleResources(device);
    assertEquals(live, device.allocator().liveBuffers());
    assertEquals(bytes, device.allocator().allocatedBytes());
  }

  /**
   * A probe of {@code kind} on key a, then (when it projects the build side) a filter on the build payload, then an
   * aggregate grouped by a random key (the probe's group, a build column) or the rows themselves.
   */
  private static List<PipelineStage> stages(JoinProbe.Kind kind, boolean buildFirst, boolean aggregate,
      Random random) {
    List<PipelineStage> stages = new ArrayList<>();
    if (random.nextBoolean()) {
      stages.add(new PipelineStage.Filter(new Expr.Compare(Expr.CompareOp.NE, new Expr.Column(2, INT),
          new Expr.Literal(3L, INT))));
    }
    stages.add(new PipelineStage.HashJoinProbe(probe(kind, 0, buildFirst)));
    int probeAt = buildFirst ? BUILD.size() : 0;
    int buildAt = buildFirst ? 0 : PROBE.size();
    List<Expr> columns = new ArrayList<>(List.of(new Expr.Column(probeAt + 2, INT), new Expr.Column(probeAt + 3, DEC2),
        new Expr.Column(probeAt, BIG)));
    if (kind.projectsBuild()) {
      if (random.nextBoolean()) {
        stages.add(new PipelineStage.Filter(new Expr.Logical(false, List.of(
            new Expr.IsNull(new Expr.Column(buildAt + 1, DEC2), false),
            new Expr.Compare(Expr.CompareOp.LT, new Expr.Column(buildAt + 1, DEC2), new Expr.Literal(5000L, DEC2))))));
      }
      columns.add(new Expr.Column(buildAt + 1, DEC2));
      columns.add(new Expr.Column(buildAt + 2, ExprType.DATE));
      columns.add(new Expr.Arith(Expr.ArithOp.PLUS, new Expr.Column(buildAt + 1, DEC2),
          new Expr.Column(probeAt + 3, DEC2), DEC2));
    }
    stages.add(new PipelineStage.Project(columns));
    if (aggregate) {
      int[] keys = kind.projectsBuild() && random.nextBoolean() ? new int[] {4} : new int[] {0};
      List<AggCall> calls = new ArrayList<>(List.of(new AggCall(AggCall.Kind.SUM, 1, DEC2),
          new AggCall(AggCall.Kind.COUNT, -1, BIG), new AggCall(AggCall.Kind.MIN, 2, BIG)));
      if (kind.projectsBuild()) {
        calls.add(new AggCall(AggCall.Kind.SUM, 5, DEC2));
        calls.add(new AggCall(AggCall.Kind.COUNT, 3, BIG));
      }
      stages.add(new PipelineStage.Aggregate(keys, calls));
    }
    return stages;
  }

  private static JoinProbe probe(JoinProbe.Kind kind, int probeKey, boolean buildFirst) {
    return new JoinProbe(kind, new int[] {probeKey}, List.of(PROBE.get(probeKey)), new int[] {0}, BUILD, buildFirst,
        null);
  }

  /** Runs {@code gpu} over {@code batches}: the GPU runs it (no fallback) and returns the CPU backend's rows. */
  private static void assertMatchesCpu(GpuColumnarPipeline gpu, TransferMethod method, List<SourceBatch> batches,
      List<? extends IndexedColumns> builds, List<PipelineStage> stages, String where) {
    assertEquals("supported", gpu.unsupportedReason().orElse("supported"), where);
    List<Object[]> expected = RandomBatches.rowsOf(bound(stages, builds).run(batches, 2, () -> false));
    List<ColumnBatch> out = gpu.run(GpuRuntime.requireDevice(), method, batches, builds,
        stop -> bound(stages, builds), 2, () -> false);
    assertNull(gpu.lastFallback(), where);
    RandomBatches.assertSameRows(expected, RandomBatches.rowsOf(out), where);
  }

  /** The CPU backend of {@code stages} with each probe bound to its build side. */
  private static ColumnarPipeline bound(List<PipelineStage> stages, List<? extends IndexedColumns> builds) {
    List<PipelineStage> out = new ArrayList<>();
    int b = 0;
    for (PipelineStage stage : stages) {
      if (stage instanceof PipelineStage.HashJoinProbe p) {
        List<List<String>> none = new ArrayList<>();
        for (int k = 0; k < p.probe().probeKeys().length; k++) {
          none.add(null);
        }
        out.add(new PipelineStage.HashJoinProbe(p.probe().bind(builds.get(b++), none, none, 2, () -> false)));
      } else {
        out.add(stage);
      }
    }
    return new ColumnarPipeline(PROBE, out);
  }

  /** A key drawn from a small range (so that keys match) or, now and then, one of the extremes. */
  private static long key(Random random) {
    return random.nextInt(20) == 0 ? EXTREMES[random.nextInt(EXTREMES.length)] : random.nextInt(1500) - 200;
  }

  private SourceBatch probe(Random random, int rows, boolean nulls) {
    BigIntVector a = new BigIntVector("a", allocator);
    IntVector b = new IntVector("b", allocator);
    IntVector g = new IntVector("g", allocator);
    BigIntVector v = new BigIntVector("v", allocator);
    List<FieldVector> columns = List.of(a, b, g, v);
    for (FieldVector c : columns) {
      vectors.add(c);
      c.setInitialCapacity(Math.max(1, rows));
      c.allocateNew();
    }
    for (int r = 0; r < rows; r++) {
      if (nulls && random.nextInt(10) == 0) {
        a.setNull(r);
      } else {
        a.set(r, key(random));
      }
      b.set(r, random.nextInt(120));
      g.set(r, random.nextInt(40));
      if (nulls && random.nextInt(8) == 0) {
        v.setNull(r);
      } else {
        v.set(r, random.nextInt(200000) - 100000);
      }
    }
    columns.forEach(c -> c.setValueCount(rows));
    return new SourceBatch(columns, rows);
  }

  /** A build side: unique keys (a shuffled range with extremes) or keys with duplicates; NULLs when asked. */
  private static Build build(Random random, int rows, boolean unique, boolean nulls) {
    long[] keys = new long[rows];
    boolean[] keyNulls = new boolean[rows];
    long[] payload = new long[rows];
    boolean[] payloadNulls = new boolean[rows];
    long[] days = new long[rows];
    List<Long> pool = new ArrayList<>();
    for (long k : EXTREMES) {
      pool.add(k);
    }
    for (long k = -200; pool.size() < rows; k += 1 + random.nextInt(2)) {
      if (k != -1 && k != 0) {  // the extremes are in already
        pool.add(k);
      }
    }
    java.util.Collections.shuffle(pool, random);
    // duplicates: now and then several rows of the empty slots' key (which a marking probe's table keeps one of)
    boolean emptyMarkers = random.nextInt(4) == 0;
    boolean marker = false;
    for (int r = 0; r < rows; r++) {
      keys[r] = unique ? pool.get(r) : key(random) % 60;
      keys[r] = !unique && keys[r] == -1 && marker && !emptyMarkers ? -2 : keys[r];
      marker |= keys[r] == -1;
      keyNulls[r] = nulls && random.nextInt(15) == 0;
      keys[r] = keyNulls[r] ? 0 : keys[r];
      payloadNulls[r] = nulls && random.nextInt(6) == 0;
      payload[r] = payloadNulls[r] ? 0 : random.nextInt(20000) - 10000;
      days[r] = 8000 + random.nextInt(3000);
    }
    return new Build(new ColumnVector[] {
        ColumnVector.ofLongs(BIG, keys, nulls ? keyNulls : null, rows),
        ColumnVector.ofLongs(DEC2, payload, nulls ? payloadNulls : null, rows),
        ColumnVector.ofLongs(ExprType.DATE, days, null, rows)}, rows);
  }

  /** A build side's rows, as a pipeline breaker's output would be. */
  private record Build(ColumnVector[] columns, int rows) implements IndexedColumns {
    @Override public List<ExprType> types() {
      return BUILD;
    }

    @Override public ColumnVector column(int c) {
      return columns[c];
    }

    @Override public ColumnVector gather(int c, int[] ids, int count) {
      return columns[c].gatherOrNull(ids, count);
    }
  }
}
