package org.spillway.gpu.join.nopa;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.spillway.gpu.join.nopa.NopaCheck.compare;
import static org.spillway.gpu.join.nopa.NopaCheck.freshSeed;
import static org.spillway.gpu.join.nopa.NopaCheck.standard;

import java.util.List;
import java.util.SplittableRandom;
import java.util.function.LongSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.spillway.gpu.GpuTest;
import org.spillway.gpu.join.ZipfDistribution;
import org.spillway.gpu.transfer.ColumnType;

/**
 * NopaHashJoin against CpuNopaHashJoin on fresh random relations (seed in every message; replay one with
 * {@code -Dspillway.join.seed=N}): every join type and output, INT32 and INT64 columns, the table in GPU memory,
 * in host memory and split, zero-copy and pinned copy. Allocator counts are checked by {@link GpuTest}.
 */
@GpuTest
class NopaHashJoinGpuTest {
  private static final ColumnType I32 = ColumnType.INT32;
  private static final ColumnType I64 = ColumnType.INT64;

  @Test
  void randomRelationsWithDuplicatesAndNulls() {
    long seed = freshSeed();
    SplittableRandom random = new SplittableRandom(seed);
    int distinct = 1 + random.nextInt(3000);
    for (ColumnType keys : List.of(I32, I64)) {
      GpuJoinRelation r = GpuJoinRelation.of(4000, () -> random.nextInt(distinct), random, 0.1, keys, I64);
      GpuJoinRelation s = GpuJoinRelation.of(20000, () -> random.nextInt(2 * distinct), random, 0.1, keys, I32);
      compare("random, duplicates, 10% NULL keys", seed, r, s, standard());
    }
  }

  @Test
  void emptySides() {
    long seed = freshSeed();
    SplittableRandom random = new SplittableRandom(seed);
    GpuJoinRelation empty = GpuJoinRelation.of(0, random::nextLong, random, 0, I64, I64);
    GpuJoinRelation some = GpuJoinRelation.of(500, () -> random.nextInt(100), random, 0.2, I64, I64);
    GpuJoinRelation allNull = GpuJoinRelation.of(300, () -> random.nextInt(100), random, 1.0, I64, I64);
    compare("empty build", seed, empty, some, standard());
    compare("empty probe", seed, some, empty, standard());
    compare("both empty", seed, empty, empty, standard());
    compare("build all NULL", seed, allNull, some, standard());
  }

  @Test
  void noMatchAndAllMatch() {
    long seed = freshSeed();
    SplittableRandom random = new SplittableRandom(seed);
    GpuJoinRelation evens = GpuJoinRelation.of(3000, () -> 2L * random.nextInt(5000), random, 0, I32, I32);
    GpuJoinRelation odds = GpuJoinRelation.of(9000, () -> 2L * random.nextInt(5000) + 1, random, 0, I32, I32);
    compare("no match", seed, evens, odds, standard());
    GpuJoinRelation allMatch = GpuJoinRelation.of(9000, () -> evens.keys()[random.nextInt(3000)], random, 0, I32, I64);
    compare("all match", seed, evens, allMatch, standard());
  }

  @Test
  void keysAtTypeExtremesIncludingMinusOne() {
    long seed = freshSeed();
    SplittableRandom random = new SplittableRandom(seed);
    long[] wide = {Long.MIN_VALUE, Long.MIN_VALUE + 1, Long.MAX_VALUE, Long.MAX_VALUE - 1, -1, 0, 1, -2};
    LongSupplier wideKey = () -> random.nextInt(3) == 0 ? random.nextLong() : wide[random.nextInt(wide.length)];
    compare("INT64 extremes", seed, GpuJoinRelation.of(2000, wideKey, random, 0.05, I64, I64),
        GpuJoinRelation.of(5000, wideKey, random, 0.05, I64, I64), standard());
    long[] narrow = {Integer.MIN_VALUE, Integer.MIN_VALUE + 1, Integer.MAX_VALUE, Integer.MAX_VALUE - 1, -1, 0, 1};
    LongSupplier narrowKey = () -> random.nextInt(3) == 0 ? random.nextInt() : narrow[random.nextInt(narrow.length)];
    compare("INT32 extremes", seed, GpuJoinRelation.of(2000, narrowKey, random, 0.05, I32, I32),
        GpuJoinRelation.of(5000, narrowKey, random, 0.05, I32, I64), standard());
    GpuJoinRelation minusOnes = GpuJoinRelation.of(50, () -> -1L, random, 0, I64, I64);
    compare("only key -1", seed, minusOnes, GpuJoinRelation.of(70, () -> random.nextInt(3) - 1, random, 0, I64, I64),
        standard());
    GpuJoinRelation oneMinusOne = GpuJoinRelation.of(1, () -> -1L, random, 0, I32, I32);
    compare("a single build key -1 (array table)", seed, oneMinusOne,
        GpuJoinRelation.of(70, () -> random.nextInt(3) - 1, random, 0, I64, I64), standard());
  }

  @Test
  void mixedKeyWidthsJoinOnValue() {
    long seed = freshSeed();
    SplittableRandom random = new SplittableRandom(seed);
    LongSupplier key = () -> random.nextInt(4000) - 2000;
    compare("INT32 build, INT64 probe", seed, GpuJoinRelation.of(3000, key, random, 0.05, I32, I64),
        GpuJoinRelation.of(6000, key, random, 0.05, I64, I32), standard());
  }

  @Test
  void denseUniqueBuildUsesTheArrayTableAndDuplicatesFallBack() {
    long seed = freshSeed();
    SplittableRandom random = new SplittableRandom(seed);
    long base = random.nextLong() >> 1;
    long[] next = {base};
    GpuJoinRelation dense = GpuJoinRelation.of(50_000, () -> next[0]++, random, 0, I64, I64);
    shuffle(dense.keys(), random);
    GpuJoinRelation probe = GpuJoinRelation.of(80_000, () -> base - 1000 + random.nextInt(52_000), random, 0.05, I64,
        I64);
    for (String v : compare("dense unique build", seed, dense, probe, standard())) {
      assertTrue(v.startsWith("nopa/perfect-hash/"), v + ", seed " + seed);
    }
    dense.keys()[random.nextInt(50_000)] = base + random.nextInt(50_000);
    for (String v : compare("dense build with one duplicate", seed, dense, probe, standard())) {
      assertTrue(v.startsWith("nopa/linear-probing/"), v + ", seed " + seed);
    }
  }

  private static void shuffle(long[] values, SplittableRandom random) {
    for (int i = values.length - 1; i > 0; i--) {
      int j = random.nextInt(i + 1);
      long t = values[i];
      values[i] = values[j];
      values[j] = t;
    }
  }

  @ParameterizedTest(name = "Zipf {0}")
  @ValueSource(doubles = {0, 0.5, 1.0, 1.5, 1.75})
  void zipfSkewOnOneAndOnBothSides(double exponent) {
    long seed = freshSeed();
    SplittableRandom random = new SplittableRandom(seed);
    ZipfDistribution zipf = new ZipfDistribution(2000, exponent);
    // Scrambled ranks: the hot keys are scattered over the key space, not the smallest ones.
    LongSupplier skewed = () -> zipf.sample(random) * 0x9E3779B97F4A7C15L + 7;
    LongSupplier uniform = () -> random.nextInt(2000) * 0x9E3779B97F4A7C15L + 7;
    compare("Zipf " + exponent + " on probe side", seed, GpuJoinRelation.of(1500, uniform, random, 0.02, I64, I64),
        GpuJoinRelation.of(8000, skewed, random, 0.02, I64, I64), standard());
    compare("Zipf " + exponent + " on build side", seed, GpuJoinRelation.of(1500, skewed, random, 0.02, I64, I64),
        GpuJoinRelation.of(3000, uniform, random, 0.02, I64, I64), standard());
    compare("Zipf " + exponent + " on both sides", seed, GpuJoinRelation.of(1500, skewed, random, 0, I64, I64),
        GpuJoinRelation.of(1500, skewed, random, 0, I64, I64), standard());
  }
}
