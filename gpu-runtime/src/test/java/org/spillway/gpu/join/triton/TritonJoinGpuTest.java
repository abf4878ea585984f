package org.spillway.gpu.join.triton;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.SplittableRandom;
import java.util.concurrent.CancellationException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongSupplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.spillway.gpu.GpuTest;
import org.spillway.gpu.device.CudaDevice;
import org.spillway.gpu.device.GpuRuntime;
import org.spillway.gpu.join.GpuJoinStats;
import org.spillway.gpu.join.JoinOutput;
import org.spillway.gpu.join.JoinResult;
import org.spillway.gpu.join.JoinType;
import org.spillway.gpu.join.ReferenceJoin;
import org.spillway.gpu.join.ZipfDistribution;
import org.spillway.gpu.join.radix.CpuRadixJoin;
import org.spillway.gpu.transfer.ColumnType;

/**
 * TritonJoin against the CPU radix join on fresh random relations (seed in every message): duplicates,
 * NULL keys, empty sides, no and all matches, type extremes, Zipf skew on one and on both sides (the
 * overflow path), every join type and both outputs, cache shares from none to all, forced small budgets and
 * B1 from 1 to 10. The GpuTest extension checks that no device or pinned memory leaks.
 */
@GpuTest
class TritonJoinGpuTest {
  private static CpuRadixJoin cpu;

  @BeforeAll
  static void start() {
    cpu = new CpuRadixJoin(4);
  }

  @AfterAll
  static void stop() {
    cpu.close();
  }

  private static CudaDevice device() {
    return GpuRuntime.requireDevice();
  }

  private static long freshSeed() {
    return System.nanoTime() * 0x9E3779B97F4A7C15L;
  }

  /** Every join type and output of {@code r ⋈ s} through {@code options}, compared with the CPU radix join. */
  private static void check(String scenario, long seed, PinnedRelation r, PinnedRelation s, TritonOptions options) {
    try (TritonJoin triton = new TritonJoin(device(), options)) {
      for (JoinType type : JoinType.values()) {
        String where = scenario + ", " + type + ", " + options + ", seed " + seed;
        JoinResult expected = cpu.join(r.cpu(), s.cpu(), type, JoinOutput.MATERIALIZED);
        JoinResult pairs = triton.join(r.host(), s.host(), type, JoinOutput.MATERIALIZED);
        assertArrayEquals(ReferenceJoin.pairsOf(expected), ReferenceJoin.pairsOf(pairs),
            where + " (" + pairs.algorithm() + ")");
        checkStats(triton, pairs, r.rows() + s.rows() > 0, where);
        JoinResult expectedAgg = cpu.join(r.cpu(), s.cpu(), type, JoinOutput.AGGREGATED);
        JoinResult agg = triton.join(r.host(), s.host(), type, JoinOutput.AGGREGATED);
        assertArrayEquals(new long[] {expectedAgg.rowCount(), expectedAgg.buildPayloadSum(),
            expectedAgg.probePayloadSum()}, new long[] {agg.rowCount(), agg.buildPayloadSum(), agg.probePayloadSum()},
            where + " aggregated (" + agg.algorithm() + ")");
        checkStats(triton, agg, r.rows() + s.rows() > 0, where);
      }
    }
  }

  private static void checkStats(TritonJoin triton, JoinResult result, boolean readsSomething, String where) {
    GpuJoinStats stats = triton.lastStats();
    assertEquals(result.algorithm(), stats.variant(), where);
    assertTrue(stats.variant().matches("triton/bits=\\d+\\+\\d+/cache=\\d\\.\\d\\d"), where + ": " + stats.variant());
    assertEquals(4, stats.phases().size(), where);
    assertTrue(stats.totalNanos() > 0 && (stats.bytesToDevice() > 0 || !readsSomething), where + ": " + stats);
  }

  private static PinnedRelation relation(int rows, LongSupplier key, ColumnType keyType, double nulls,
      SplittableRandom random) {
    return PinnedRelation.random(device(), rows, key, keyType, keyType, nulls, random);
  }

  /** Small enough for compute-sanitizer: two partitions, overflowing sub-partitions, spilled pages. */
  @Test
  void smallJoinForTheSanitizer() {
    long seed = freshSeed();
    SplittableRandom random = new SplittableRandom(seed);
    ZipfDistribution zipf = new ZipfDistribution(500, 1.0);
    try (PinnedRelation r = relation(1_500, () -> zipf.sample(random), ColumnType.INT64, 0.05, random);
         PinnedRelation s = relation(2_000, () -> zipf.sample(random), ColumnType.INT64, 0.05, random)) {
      check("small Zipf 1.0", seed, r, s, TritonOptions.DEFAULT.withTableCapacity(64).withBits(1, 2)
          .withCacheShare(0.5).withLogPageTuples(4));
    }
  }

  @Test
  void primaryAndForeignKeys() {
    long seed = freshSeed();
    SplittableRandom random = new SplittableRandom(seed);
    int n = 60_000;
    long[] pk = random.longs(n).toArray();
    try (PinnedRelation r = new PinnedRelation(device(), pk, ColumnType.INT64, random.longs(n).toArray(),
             ColumnType.INT64, null);
         PinnedRelation s = relation(150_000, () -> pk[random.nextInt(n)], ColumnType.INT64, 0, random)) {
      check("PK-FK", seed, r, s, TritonOptions.DEFAULT);
    }
  }

  @Test
  void duplicatesAndNullKeysOnBothSides() {
    long seed = freshSeed();
    SplittableRandom random = new SplittableRandom(seed);
    try (PinnedRelation r = relation(40_000, () -> random.nextInt(10_000), ColumnType.INT32, 0.1, random);
         PinnedRelation s = relation(50_000, () -> random.nextInt(15_000), ColumnType.INT32, 0.2, random)) {
      check("duplicates + NULLs, INT32", seed, r, s, TritonOptions.DEFAULT);
    }
  }

  @Test
  void prefixSumOnTheCpu() {
    long seed = freshSeed();
    SplittableRandom random = new SplittableRandom(seed);
    try (PinnedRelation r = relation(50_000, () -> random.nextInt(20_000), ColumnType.INT64, 0.1, random);
         PinnedRelation s = relation(70_000, () -> random.nextInt(25_000), ColumnType.INT32, 0.1, random)) {
      check("CPU prefix sum", seed, r, s, TritonOptions.DEFAULT.withCpuPrefixSum(true).withCacheShare(0.5));
    }
  }

  @Test
  void emptySidesNoMatchesAndAllMatches() {
    long seed = freshSeed();
    SplittableRandom random = new SplittableRandom(seed);
    try (PinnedRelation empty = relation(0, random::nextLong, ColumnType.INT64, 0, random);
         PinnedRelation r = relation(5_000, () -> random.nextInt(1000), ColumnType.INT64, 0.05, random);
         PinnedRelation disjoint = relation(7_000, () -> 1000 + random.nextInt(1000), ColumnType.INT64, 0.05, random);
         PinnedRelation same = relation(6_000, () -> 42, ColumnType.INT64, 0, random)) {
      check("empty build", seed, empty, r, TritonOptions.DEFAULT);
      check("empty probe", seed, r, empty, TritonOptions.DEFAULT);
      check("both empty", seed, empty, empty, TritonOptions.DEFAULT);
      check("no match", seed, r, disjoint, TritonOptions.DEFAULT);
      try (PinnedRelation few = relation(50, () -> 42, ColumnType.INT64, 0, random)) {
        check("all match (one key)", seed, few, same, TritonOptions.DEFAULT);
      }
    }
  }

  @Test
  void typeExtremes() {
    long seed = freshSeed();
    SplittableRandom random = new SplittableRandom(seed);
    long[] wide = {Long.MIN_VALUE, Long.MAX_VALUE, -1, 0, 1, Long.MIN_VALUE + 1};
    long[] narrow = {Integer.MIN_VALUE, Integer.MAX_VALUE, -1, 0, 1};
    LongSupplier w = () -> random.nextInt(3) == 0 ? random.nextLong() : wide[random.nextInt(wide.length)];
    LongSupplier n = () -> random.nextInt(3) == 0 ? random.nextInt() : narrow[random.nextInt(narrow.length)];
    try (PinnedRelation r = relation(3_000, w, ColumnType.INT64, 0.1, random);
         PinnedRelation s = relation(4_000, w, ColumnType.INT64, 0.1, random)) {
      check("INT64 extremes", seed, r, s, TritonOptions.DEFAULT);
    }
    try (PinnedRelation r = relation(3_000, n, ColumnType.INT32, 0.1, random);
         PinnedRelation s = relation(4_000, n, ColumnType.INT32, 0.1, random)) {
      check("INT32 extremes", seed, r, s, TritonOptions.DEFAULT);
    }
  }

  @ParameterizedTest
  @ValueSource(doubles = {0.0, 0.5, 1.0, 1.75})
  void zipfOnTheProbeSide(double exponent) {
    long seed = freshSeed();
    SplittableRandom random = new SplittableRandom(seed);
    ZipfDistribution zipf = new ZipfDistribution(20_000, exponent);
    try (PinnedRelation r = relation(20_000, () -> 3L * random.nextInt(20_000), ColumnType.INT64, 0, random);
         PinnedRelation s = relation(80_000, () -> 3L * zipf.sample(random), ColumnType.INT64, 0, random)) {
      check("Zipf " + exponent + " probe side", seed, r, s, TritonOptions.DEFAULT);
    }
  }

  @ParameterizedTest
  @ValueSource(doubles = {0.5, 1.0, 1.75})
  void zipfOnBothSidesTakesTheOverflowPath(double exponent) {
    long seed = freshSeed();
    SplittableRandom random = new SplittableRandom(seed);
    ZipfDistribution zipf = new ZipfDistribution(2_000, exponent);
    // A 64-row table makes the hot keys' sub-partitions overflow while the output stays materializable.
    try (PinnedRelation r = relation(3_000, () -> zipf.sample(random) * 31L, ColumnType.INT64, 0.02, random);
         PinnedRelation s = relation(3_000, () -> zipf.sample(random) * 31L, ColumnType.INT64, 0.02, random)) {
      check("Zipf " + exponent + " both sides", seed, r, s, TritonOptions.DEFAULT.withTableCapacity(64));
      check("Zipf " + exponent + " both sides, B1 = 2", seed, r, s,
          TritonOptions.DEFAULT.withTableCapacity(100).withBits(2, 1));
    }
  }

  @Test
  void heavySkewWithTheDefaultTableAggregates() {
    long seed = freshSeed();
    SplittableRandom random = new SplittableRandom(seed);
    ZipfDistribution zipf = new ZipfDistribution(100_000, 1.75);
    try (PinnedRelation r = relation(20_000, () -> zipf.sample(random), ColumnType.INT64, 0, random);
         PinnedRelation s = relation(20_000, () -> zipf.sample(random), ColumnType.INT64, 0, random);
         TritonJoin triton = new TritonJoin(device())) {
      for (JoinType type : JoinType.values()) {
        JoinResult expected = cpu.join(r.cpu(), s.cpu(), type, JoinOutput.AGGREGATED);
        JoinResult agg = triton.join(r.host(), s.host(), type, JoinOutput.AGGREGATED);
        assertArrayEquals(new long[] {expected.rowCount(), expected.buildPayloadSum(), expected.probePayloadSum()},
            new long[] {agg.rowCount(), agg.buildPayloadSum(), agg.probePayloadSum()},
            "Zipf 1.75 both sides, " + type + ", seed " + seed + " (" + agg.algorithm() + ")");
      }
    }
  }

  @ParameterizedTest
  @ValueSource(doubles = {0.0, 0.37, 1.0})
  void cacheSharesFromNoneToAll(double share) {
    long seed = freshSeed();
    SplittableRandom random = new SplittableRandom(seed);
    try (PinnedRelation r = relation(70_000, () -> random.nextInt(50_000), ColumnType.INT64, 0.01, random);
         PinnedRelation s = relation(90_000, () -> random.nextInt(60_000), ColumnType.INT64, 0.01, random)) {
      check("cache " + share, seed, r, s, TritonOptions.DEFAULT.withCacheShare(share).withLogPageTuples(6)
          .withBits(3, -1));
    }
  }

  @Test
  void smallBudgetSpillsAndRaisesB1() {
    long seed = freshSeed();
    SplittableRandom random = new SplittableRandom(seed);
    try (PinnedRelation r = relation(300_000, () -> random.nextInt(400_000), ColumnType.INT64, 0, random);
         PinnedRelation s = relation(300_000, () -> random.nextInt(400_000), ColumnType.INT64, 0, random);
         TritonJoin triton = new TritonJoin(device(), TritonOptions.DEFAULT.withBudget(40L << 20))) {
      JoinResult expected = cpu.join(r.cpu(), s.cpu(), JoinType.INNER, JoinOutput.AGGREGATED);
      JoinResult agg = triton.join(r.host(), s.host(), JoinType.INNER, JoinOutput.AGGREGATED);
      String where = "40 MiB budget, seed " + seed + " (" + agg.algorithm() + ")";
      assertArrayEquals(new long[] {expected.rowCount(), expected.buildPayloadSum(), expected.probePayloadSum()},
          new long[] {agg.rowCount(), agg.buildPayloadSum(), agg.probePayloadSum()}, where);
      assertTrue(!agg.algorithm().startsWith("triton/bits=0+"), where + ": two pairs of one partition exceed C/2");
      assertTrue(triton.lastStats().bytesToHost() > 0, where + ": part of the partitions spill");
    }
  }

  @ParameterizedTest
  @ValueSource(ints = {1, 2, 4, 6, 8, 10})
  void firstPassBitsFromOneToTen(int bits1) {
    long seed = freshSeed();
    SplittableRandom random = new SplittableRandom(seed);
    try (PinnedRelation r = relation(30_000, () -> random.nextInt(40_000) - 20_000, ColumnType.INT32, 0.05, random);
         PinnedRelation s = relation(45_000, () -> random.nextInt(40_000) - 20_000, ColumnType.INT32, 0.05, random)) {
      check("B1 = " + bits1, seed, r, s, TritonOptions.DEFAULT.withBits(bits1, bits1 % 3).withCacheShare(0.5)
          .withPass1Blocks(1 + bits1 * 3));
    }
  }

  @Test
  void cancellationBetweenPhasesReleasesEverything() {
    long seed = freshSeed();
    SplittableRandom random = new SplittableRandom(seed);
    try (PinnedRelation r = relation(10_000, random::nextLong, ColumnType.INT64, 0, random);
         PinnedRelation s = relation(10_000, random::nextLong, ColumnType.INT64, 0, random);
         TritonJoin triton = new TritonJoin(device(), TritonOptions.DEFAULT.withBits(4, -1))) {
      for (int after = 0; after < 4; after++) {
        AtomicInteger checks = new AtomicInteger();
        int limit = after;
        assertThrows(CancellationException.class, () -> triton.join(r.host(), s.host(), JoinType.INNER,
            JoinOutput.MATERIALIZED, () -> checks.getAndIncrement() >= limit), "cancel after " + after + " checks");
      }
      JoinResult expected = cpu.join(r.cpu(), s.cpu(), JoinType.INNER, JoinOutput.MATERIALIZED);
      assertArrayEquals(ReferenceJoin.pairsOf(expected), ReferenceJoin.pairsOf(triton.join(r.host(), s.host(),
          JoinType.INNER, JoinOutput.MATERIALIZED)), "after cancellations, seed " + seed);
    }
  }
}
