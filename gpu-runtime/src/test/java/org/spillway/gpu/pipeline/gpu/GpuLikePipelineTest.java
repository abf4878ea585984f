package org.spillway.gpu.pipeline.gpu;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VarCharVector;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.spillway.gpu.GpuTest;
import org.spillway.gpu.RandomColumns;
import org.spillway.gpu.device.ArrowAllocators;
import org.spillway.gpu.device.CudaDevice;
import org.spillway.gpu.device.GpuRuntime;
import org.spillway.gpu.device.HostMemoryKind;
import org.spillway.gpu.expr.AggCall;
import org.spillway.gpu.expr.Expr;
import org.spillway.gpu.pipeline.ColumnBatch;
import org.spillway.gpu.pipeline.PipelineStage;
import org.spillway.gpu.pipeline.RandomBatches;
import org.spillway.gpu.pipeline.SourceBatch;
import org.spillway.gpu.transfer.TransferMethod;
import org.spillway.gpu.transfer.TransferOptions;
import org.spillway.gpu.vector.ExprType;

/**
 * GPU pipelines filtering by {@code [NOT] LIKE} over plain text (TPC-H Q13's orders pipeline and its kin) against
 * the CPU backend, on fresh random text: empty strings, NULLs, multi-byte UTF-8 and line terminators, pieces at the
 * very start and end, overlapping pieces ({@code %aa%aa%}), rows longer than 1 KB, many batches cut into small chunks
 * (so that chunks start inside a batch's offsets), grouped, global and row-returning pipelines, LIKE inside CASE and
 * OR; both filter variants, zero-copy and pinned-copy methods, a scan shared with the CPU, the column cache (which
 * holds the text too, where it has room) and pageable text, which the GPU cannot read in place.
 */
@GpuTest
class GpuLikePipelineTest {
  private static final TransferOptions SMALL_CHUNKS = TransferOptions.DEFAULT.withChunkBytes(4096);
  /** o_orderkey, o_custkey, o_comment. */
  private static final List<ExprType> ORDERS = List.of(ExprType.INT64, ExprType.INT32, ExprType.TEXT);
  private static final Expr COMMENT = new Expr.Column(2, ExprType.TEXT);
  private static final String[] WORDS = {"a", "a", "aa", "b", "special", "requests", " ", "é", "€", "\uD834\uDD1E",
      "\n", "spec", "quests"};
  private static final List<String> PATTERNS = List.of("%special%requests%", "%aa%aa%", "%", "", "%%", "a%", "%a",
      "special%", "%requests", "é%€", "%\uD834\uDD1E%", "%a%a%a%a%", "%\n%", "aa", "%€");

  private BufferAllocator allocator;
  private final List<FieldVector> vectors = new ArrayList<>();

  @AfterEach void close() {
    vectors.forEach(FieldVector::close);
    vectors.clear();
    if (allocator != null) {
      allocator.close();
    }
  }

  static Stream<Arguments> variants() {
    return Stream.of(Arguments.of(TransferMethod.PINNED_COPY, FilterVariant.BRANCHING),
        Arguments.of(TransferMethod.ZERO_COPY, FilterVariant.PREDICATION),
        Arguments.of(TransferMethod.ZERO_COPY, FilterVariant.BRANCHING));
  }

  @ParameterizedTest
  @MethodSource("variants")
  void randomLikesMatchTheCpuBackend(TransferMethod method, FilterVariant variant) {
    allocator = RandomColumns.allocatorFor(TransferMethod.PINNED_COPY);
    long seed = System.nanoTime();
    Random random = new Random(seed);
    for (int round = 0; round < 24; round++) {
      String pattern = round < PATTERNS.size() ? PATTERNS.get(round) : pattern(random);
      assertSameAsTheCpu(random, 1 + random.nextInt(8), round % 4, like(pattern, random.nextBoolean()), method,
          variant, "seed " + seed + ", round " + round);
    }
  }

  /**
   * Random batches of orders through the pipeline of {@code shape} filtering by {@code condition}: the GPU runs it,
   * reading the text, with the CPU backend's rows.
   */
  private void assertSameAsTheCpu(Random random, int batchCount, int shape, Expr condition, TransferMethod method,
      FilterVariant variant, String where) {
    List<SourceBatch> batches = new ArrayList<>();
    for (int b = batchCount; b > 0; b--) {
      batches.add(orders(random, new int[] {0, 1, 256, 3000}[random.nextInt(4)], random.nextBoolean()));
    }
    List<PipelineStage> stages = stages(shape, condition);
    String at = where + ", " + method + ", " + variant + ", stages " + stages;
    GpuColumnarPipeline gpu = new GpuColumnarPipeline(ORDERS, stages).withTransferOptions(SMALL_CHUNKS)
        .withFilterVariant(variant);
    assertEquals("supported", gpu.unsupportedReason().orElse("supported"), at);
    if (shape == 3) {
      RandomBatches.assertSameBatches(gpu, method, batches, at);
    } else {
      RandomBatches.assertSameResult(gpu, method, batches, at, null);
    }
    assertTrue(batches.stream().allMatch(b -> b.rows() == 0) || gpu.lastRun().bytes() > 0, at);
  }

  /**
   * SUBSTRING(text FROM 1 FOR n) = an n-character ASCII literal, which the GPU matches as a LIKE prefix (TPC-H Q22's
   * country codes): values shorter than the literal, empty, NULL, starting with multi-byte characters and with the
   * literal beyond the prefix; OR-ed as Q22's IN list, in grouped, global and row-returning pipelines.
   */
  @ParameterizedTest
  @MethodSource("variants")
  void substringPrefixesMatchTheCpuBackend(TransferMethod method, FilterVariant variant) {
    allocator = RandomColumns.allocatorFor(TransferMethod.PINNED_COPY);
    long seed = System.nanoTime();
    Random random = new Random(seed);
    List<Expr> codes = new ArrayList<>();
    for (String code : List.of("a", "aa", "spec", "ab", " a")) {
      codes.add(new Expr.Compare(Expr.CompareOp.EQ, new Expr.Substring(COMMENT, 1, code.length()),
          new Expr.Literal(code, ExprType.TEXT)));
    }
    for (int round = 0; round < 8; round++) {
      Expr any = new Expr.Logical(false, codes.subList(0, 1 + random.nextInt(codes.size())));
      if (round % 2 == 1) {  // as a Sarg whose NULLs are FALSE puts it
        any = new Expr.Logical(true, List.of(new Expr.IsNull(new Expr.Substring(COMMENT, 1, 2), true), any));
      }
      assertSameAsTheCpu(random, 1 + random.nextInt(6), round % 4, round % 3 == 0 ? new Expr.Not(any) : any, method,
          variant, "seed " + seed + ", round " + round);
    }
  }

  /** TPC-H Q13's pipeline over many batches, the GPU and the CPU workers sharing the scan, results combined. */
  @ParameterizedTest
  @MethodSource("variants")
  void sharedScansMatchTheCpuBackend(TransferMethod method, FilterVariant variant) {
    allocator = RandomColumns.allocatorFor(TransferMethod.PINNED_COPY);
    long seed = System.nanoTime();
    Random random = new Random(seed);
    CudaDevice device = GpuRuntime.requireDevice();
    for (int round = 0; round < 6; round++) {
      List<SourceBatch> batches = new ArrayList<>();
      for (int b = 6 + random.nextInt(10); b > 0; b--) {
        batches.add(orders(random, new int[] {0, 256, 4096, 20000}[random.nextInt(4)], random.nextBoolean()));
      }
      List<PipelineStage> stages = stages(round % 4, like("%special%requests%", true));
      String where = "seed " + seed + ", round " + round + ", " + method + ", " + variant + ", stages " + stages;
      GpuColumnarPipeline gpu = new GpuColumnarPipeline(ORDERS, stages).withTransferOptions(SMALL_CHUNKS)
          .withFilterVariant(variant).withCoprocessing(true);
      List<Object[]> expected = RandomBatches.rowsOf(gpu.cpuPipeline().run(batches, 2, () -> false));
      List<ColumnBatch> out = gpu.run(device, method, batches, 4, () -> false);
      RandomBatches.assertSameRows(expected, RandomBatches.rowsOf(out), where);
      assertNull(gpu.lastFallback(), where);
      assertNotNull(gpu.lastShare(), where);
    }
  }

  /**
   * With the column cache, the text is cached beside the fixed-width columns: the first run fills it, the second reads
   * everything from GPU memory (grouped, global and row-returning pipelines; one launch over a table of every batch)
   * and transfers nothing. A cache too small for the text leaves it read in place, with the same rows.
   */
  @Test void cachedTextIsReadFromGpuMemory() {
    allocator = RandomColumns.allocatorFor(TransferMethod.PINNED_COPY);
    Random random = new Random(13);
    List<SourceBatch> batches = new ArrayList<>();
    for (int b = 0; b < 5; b++) {
      batches.add(orders(random, 3000, b % 2 == 0));
    }
    CudaDevice device = GpuRuntime.requireDevice();
    for (int shape = 0; shape < 4; shape++) {
      try (GpuColumnCache cache = new GpuColumnCache(device, 1L << 30)) {
        GpuColumnarPipeline gpu = new GpuColumnarPipeline(ORDERS, stages(shape, like("%special%requests%", true)))
            .withCache(cache);
        for (int run = 0; run < 2; run++) {
          RandomBatches.assertSameResult(gpu, TransferMethod.ZERO_COPY, batches, "shape " + shape + ", run " + run,
              null);
        }
        assertTrue(gpu.lastRun().cachedBytes() > 0, "second run reads the cache: " + gpu.lastRun());
        assertEquals(0, gpu.lastRun().bytes(), "shape " + shape + ": nothing crosses the link: " + gpu.lastRun());
      }
    }
    // room for the fixed-width columns of every batch (12 bytes a row), not for their text as well
    try (GpuColumnCache small = new GpuColumnCache(device, 5 * 3000 * 12 + 5 * 4096)) {
      GpuColumnarPipeline gpu = new GpuColumnarPipeline(ORDERS, stages(0, like("%special%requests%", true)))
          .withCache(small);
      for (int run = 0; run < 2; run++) {
        RandomBatches.assertSameResult(gpu, TransferMethod.ZERO_COPY, batches, "small cache, run " + run, null);
      }
      assertTrue(gpu.lastRun().bytes() > 0, "text the cache cannot take crosses the link: " + gpu.lastRun());
    }
  }

  /** Text in pageable memory cannot be read in place: the CPU backend runs the pipeline and says why. */
  @Test void pageableTextRunsOnTheCpuWithTheReason() {
    allocator = ArrowAllocators.root(HostMemoryKind.PAGEABLE);
    Random random = new Random(11);
    List<SourceBatch> batches = List.of(orders(random, 3000, true), orders(random, 700, false));
    GpuColumnarPipeline gpu = new GpuColumnarPipeline(ORDERS, stages(0, like("%special%requests%", true)));
    RandomBatches.assertSameResult(gpu, TransferMethod.PAGEABLE_COPY, batches, "pageable", "pageable host memory");
    assertNotNull(gpu.lastFallback(), "the GPU cannot read pageable text in place");
  }

  /**
   * Pipelines over one to five text columns, each searched by LIKE: the kernels stage each tile's text of up to
   * three columns in equal shares of their shared memory (a fourth and fifth share it, so their tiles fit less
   * often and are read in place), grouped and row-returning, in small chunks and with rows over a tile's share.
   */
  @ParameterizedTest
  @MethodSource("variants")
  void severalTextColumnsShareTheStagedTiles(TransferMethod method, FilterVariant variant) {
    allocator = RandomColumns.allocatorFor(TransferMethod.PINNED_COPY);
    long seed = System.nanoTime();
    Random random = new Random(seed);
    for (int texts = 1; texts <= 5; texts++) {
      List<ExprType> types = new ArrayList<>(List.of(ExprType.INT64));
      List<Expr> likes = new ArrayList<>();
      for (int t = 1; t <= texts; t++) {
        types.add(ExprType.TEXT);
        likes.add(Expr.Like.of(new Expr.Column(t, ExprType.TEXT), PATTERNS.get(random.nextInt(PATTERNS.size())),
            null));
      }
      List<SourceBatch> batches = new ArrayList<>();
      for (int b = 1 + random.nextInt(4); b > 0; b--) {
        batches.add(texts(random, texts, new int[] {1, 256, 3000, 9000}[random.nextInt(4)]));
      }
      Expr key = new Expr.Column(0, ExprType.INT64);
      Expr any = likes.size() == 1 ? likes.get(0) : new Expr.Logical(false, likes);
      Expr flag = new Expr.Case(List.of(likes.get(likes.size() - 1)), List.of(new Expr.Literal(1L, ExprType.INT64)),
          new Expr.Literal(0L, ExprType.INT64));
      String where = "seed " + seed + ", " + texts + " text columns, " + method + ", " + variant;
      GpuColumnarPipeline grouped = new GpuColumnarPipeline(types, List.of(new PipelineStage.Filter(any),
          new PipelineStage.Project(List.of(flag, key)), new PipelineStage.Aggregate(new int[] {0},
              List.of(new AggCall(AggCall.Kind.SUM, 1, ExprType.INT64)))))
          .withTransferOptions(SMALL_CHUNKS).withFilterVariant(variant);
      RandomBatches.assertSameResult(grouped, method, batches, where + ", grouped", null);
      GpuColumnarPipeline rows = new GpuColumnarPipeline(types, List.of(new PipelineStage.Filter(any),
          new PipelineStage.Project(List.of(key)))).withTransferOptions(SMALL_CHUNKS).withFilterVariant(variant);
      RandomBatches.assertSameBatches(rows, method, batches, where + ", rows");
    }
  }

  /** A batch of keys and {@code texts} text columns of random text (some NULL). */
  private SourceBatch texts(Random random, int texts, int rows) {
    BigIntVector keys = new BigIntVector("k", allocator);
    keys.allocateNew(rows);
    List<FieldVector> columns = new ArrayList<>(List.of(keys));
    for (int r = 0; r < rows; r++) {
      keys.set(r, random.nextLong() % 1_000_000);
    }
    keys.setValueCount(rows);
    for (int t = 1; t <= texts; t++) {
      VarCharVector text = new VarCharVector("t" + t, allocator);
      text.allocateNew(rows);
      fill(text, random, rows, 9);
      columns.add(text);
    }
    vectors.addAll(columns);
    return new SourceBatch(columns, rows);
  }

  /**
   * The pipelines: 0 Q13's (filter, COUNT(o_orderkey) per o_custkey), 1 a global COUNT and SUM under the filter,
   * 2 the LIKE as a CASE and an OR feeding sums (NULL text makes them NULL or not as the CPU decides), 3 the filter
   * returning rows.
   */
  private static List<PipelineStage> stages(int shape, Expr like) {
    Expr key = new Expr.Column(0, ExprType.INT64);
    Expr customer = new Expr.Column(1, ExprType.INT32);
    return switch (shape) {
      case 0 -> List.of(new PipelineStage.Filter(like), new PipelineStage.Aggregate(new int[] {1},
          List.of(new AggCall(AggCall.Kind.COUNT, 0, ExprType.INT64))));
      case 1 -> List.of(new PipelineStage.Filter(like), new PipelineStage.Aggregate(new int[0],
          List.of(new AggCall(AggCall.Kind.COUNT, -1, ExprType.INT64), new AggCall(AggCall.Kind.SUM, 0,
              ExprType.INT64))));
      case 2 -> {
        Expr flag = new Expr.Case(List.of(like), List.of(new Expr.Literal(1L, ExprType.INT64)),
            new Expr.Literal(0L, ExprType.INT64));
        Expr either = new Expr.Logical(false, List.of(like, new Expr.Compare(Expr.CompareOp.LT, customer,
            new Expr.Literal(50L, ExprType.INT32))));
        yield List.of(new PipelineStage.Project(List.of(flag, either, key)), new PipelineStage.Aggregate(new int[] {1},
            List.of(new AggCall(AggCall.Kind.SUM, 0, ExprType.INT64), new AggCall(AggCall.Kind.COUNT, 2,
                ExprType.INT64))));
      }
      default -> List.of(new PipelineStage.Filter(like), new PipelineStage.Project(List.of(key, customer)));
    };
  }

  private static Expr like(String pattern, boolean negated) {
    Expr like = Expr.Like.of(COMMENT, pattern, null);
    return negated ? new Expr.Not(like) : like;
  }

  /** A batch of orders: keys, customers (some NULL), comments (some NULL where {@code nulls}). */
  private SourceBatch orders(Random random, int rows, boolean nulls) {
    BigIntVector keys = new BigIntVector("o_orderkey", allocator);
    IntVector customers = new IntVector("o_custkey", allocator);
    VarCharVector comments = new VarCharVector("o_comment", allocator);
    vectors.addAll(List.of(keys, customers, comments));
    keys.allocateNew(Math.max(1, rows));
    customers.allocateNew(Math.max(1, rows));
    comments.allocateNew(Math.max(1, rows));
    for (int r = 0; r < rows; r++) {
      keys.set(r, random.nextLong() % 1_000_000);
      if (nulls && random.nextInt(20) == 0) {
        customers.setNull(r);
      } else {
        customers.set(r, random.nextInt(100));
      }
    }
    fill(comments, random, rows, nulls ? 7 : 0);
    keys.setValueCount(rows);
    customers.setValueCount(rows);
    return new SourceBatch(List.of(keys, customers, comments), rows);
  }

  /** {@code rows} values of random text, one in {@code nullOneIn} NULL (none when 0). */
  private static void fill(VarCharVector text, Random random, int rows, int nullOneIn) {
    for (int r = 0; r < rows; r++) {
      if (nullOneIn > 0 && random.nextInt(nullOneIn) == 0) {
        text.setNull(r);
      } else {
        text.setSafe(r, text(random).getBytes(StandardCharsets.UTF_8));
      }
    }
    text.setValueCount(rows);
  }

  /** Random text: empty now and then, over 1 KB (of multi-byte characters) now and then, mostly short. */
  private static String text(Random random) {
    int pick = random.nextInt(100);
    int words = pick < 8 ? 0 : pick < 11 ? 400 + random.nextInt(200) : random.nextInt(14);
    StringBuilder s = new StringBuilder();
    for (int i = 0; i < words; i++) {
      s.append(WORDS[random.nextInt(WORDS.length)]);
    }
    return s.toString();
  }

  /** A random '%' pattern: one to three pieces of the words, anchored at either end or not. */
  private static String pattern(Random random) {
    StringBuilder p = new StringBuilder(random.nextBoolean() ? "%" : "");
    for (int pieces = 1 + random.nextInt(3); pieces > 0; pieces--) {
      for (int w = random.nextInt(3); w > 0; w--) {
        p.append(WORDS[random.nextInt(WORDS.length)]);
      }
      if (pieces > 1) {
        p.append('%');
      }
    }
    return p.append(random.nextBoolean() ? "%" : "").toString();
  }
}
