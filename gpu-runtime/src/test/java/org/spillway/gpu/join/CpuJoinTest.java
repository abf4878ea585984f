package org.spillway.gpu.join;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.spillway.gpu.join.nopa.CpuNopaHashJoin;
import org.spillway.gpu.join.radix.CpuRadixJoin;
import java.util.List;
import java.util.SplittableRandom;
import java.util.function.LongSupplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Both CPU joins, on one and on several threads and with one- and two-pass partitioning, against the
 * reference join on random relations; every seed is fresh and printed in the failure message (set
 * {@code -Dspillway.join.seed=N} to replay one).
 */
class CpuJoinTest {
  private static List<EquiJoin> joins;

  @BeforeAll
  static void startJoins() {
    joins = List.of(new CpuNopaHashJoin(1), new CpuNopaHashJoin(3), new CpuRadixJoin(1), new CpuRadixJoin(3, 5),
        new CpuRadixJoin(2, 13));
  }

  @AfterAll
  static void stopJoins() {
    joins.forEach(EquiJoin::close);
  }

  private static long freshSeed() {
    String fixed = System.getProperty("spillway.join.seed");
    return fixed != null ? Long.parseLong(fixed) : System.nanoTime() * 0x9E3779B97F4A7C15L;
  }

  /** A relation whose columns the test keeps, to compute the expected aggregates. */
  record Relation(long[] keys, long[] payloads, long[] validity) {
    JoinInput input() {
      return JoinInput.withValidity(keys, payloads, validity);
    }

    static Relation of(int rows, LongSupplier key, SplittableRandom random, double nullShare) {
      long[] keys = new long[rows];
      long[] payloads = new long[rows];
      long[] validity = nullShare > 0 ? new long[(rows + 63) / 64] : null;
      for (int i = 0; i < rows; i++) {
        keys[i] = key.getAsLong();
        payloads[i] = random.nextLong();
        if (validity != null && random.nextDouble() >= nullShare) {
          validity[i >>> 6] |= 1L << i;
        }
      }
      return new Relation(keys, payloads, validity);
    }
  }

  /** Runs every join, type and output on {@code r ⋈ s} and compares with the reference. */
  private static void checkAll(String scenario, long seed, Relation r, Relation s) {
    for (JoinType type : JoinType.values()) {
      long[] expected = ReferenceJoin.pairs(r.input(), s.input(), type);
      long[] expectedAggregate = ReferenceJoin.aggregate(expected, r.payloads(), s.payloads());
      for (int j = 0; j < joins.size(); j++) {
        EquiJoin join = joins.get(j);
        String where = scenario + ", " + type + ", join #" + j + " " + join.name() + ", seed " + seed;
        JoinResult pairs = join.join(r.input(), s.input(), type, JoinOutput.MATERIALIZED);
        assertArrayEquals(expected, ReferenceJoin.pairsOf(pairs), where + " (" + pairs.algorithm() + ")");
        JoinResult agg = join.join(r.input(), s.input(), type, JoinOutput.AGGREGATED);
        assertArrayEquals(expectedAggregate,
            new long[] {agg.rowCount(), agg.buildPayloadSum(), agg.probePayloadSum()},
            where + " aggregated (" + agg.algorithm() + ")");
      }
    }
  }

  @Test
  void randomRelationsWithDuplicatesAndNulls() {
    long seed = freshSeed();
    SplittableRandom random = new SplittableRandom(seed);
    int distinct = 1 + random.nextInt(3000);
    Relation r = Relation.of(4000, () -> random.nextInt(distinct), random, 0.1);
    Relation s = Relation.of(9000, () -> random.nextInt(distinct * 2), random, 0.1);
    checkAll("random, duplicates, 10% NULL keys", seed, r, s);
  }

  @Test
  void emptySides() {
    long seed = freshSeed();
    SplittableRandom random = new SplittableRandom(seed);
    Relation empty = Relation.of(0, random::nextLong, random, 0);
    Relation some = Relation.of(500, () -> random.nextInt(100), random, 0.2);
    checkAll("empty build", seed, empty, some);
    checkAll("empty probe", seed, some, empty);
    checkAll("both empty", seed, empty, empty);
  }

  @Test
  void noMatchAndAllMatch() {
    long seed = freshSeed();
    SplittableRandom random = new SplittableRandom(seed);
    Relation evens = Relation.of(3000, () -> 2L * random.nextInt(5000), random, 0);
    Relation odds = Relation.of(3000, () -> 2L * random.nextInt(5000) + 1, random, 0);
    checkAll("no match", seed, evens, odds);
    Relation allMatch = Relation.of(6000, () -> evens.keys()[random.nextInt(evens.keys().length)], random, 0);
    checkAll("all match", seed, evens, allMatch);
  }

  @Test
  void keysAtTypeExtremesIncludingMinusOne() {
    long seed = freshSeed();
    SplittableRandom random = new SplittableRandom(seed);
    long[] extremes = {Long.MIN_VALUE, Long.MIN_VALUE + 1, Long.MAX_VALUE, Long.MAX_VALUE - 1, -1, 0, 1, -2};
    LongSupplier key = () -> random.nextInt(3) == 0 ? random.nextLong() : extremes[random.nextInt(extremes.length)];
    Relation r = Relation.of(2000, key, random, 0.05);
    Relation s = Relation.of(2000, key, random, 0.05);
    checkAll("type extremes", seed, r, s);
    Relation minusOneOnly = Relation.of(50, () -> -1L, random, 0);
    checkAll("only key -1", seed, minusOneOnly, Relation.of(70, () -> random.nextInt(3) - 1, random, 0));
  }

  @Test
  void denseUniqueBuildUsesPerfectHashingAndDuplicatesFallBack() {
    long seed = freshSeed();
    SplittableRandom random = new SplittableRandom(seed);
    long base = random.nextLong() >> 1;
    Relation dense = Relation.of(50_000, new Counter(base), random, 0);
    Relation probe = Relation.of(80_000, () -> base - 1000 + random.nextInt(52_000), random, 0.05);
    checkAll("dense unique build", seed, dense, probe);
    try (CpuNopaHashJoin nopa = new CpuNopaHashJoin(2)) {
      assertEquals("nopa/perfect-hash",
          nopa.join(dense.input(), probe.input(), JoinType.INNER, JoinOutput.AGGREGATED).algorithm());
      dense.keys()[random.nextInt(50_000)] = base + random.nextInt(50_000);
      checkAll("dense build with one duplicate", seed, dense, probe);
      JoinResult fallback = nopa.join(dense.input(), probe.input(), JoinType.INNER, JoinOutput.AGGREGATED);
      assertEquals("nopa/linear-probing", fallback.algorithm(), "seed " + seed);
    }
  }

  /** Consecutive keys from a start, as a dense primary key. */
  private static final class Counter implements LongSupplier {
    private long next;

    Counter(long start) {
      next = start;
    }

    @Override
    public long getAsLong() {
      return next++;
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
    checkAll("Zipf " + exponent + " on probe side", seed, Relation.of(1500, uniform, random, 0.02),
        Relation.of(6000, skewed, random, 0.02));
    checkAll("Zipf " + exponent + " on build side", seed, Relation.of(1500, skewed, random, 0.02),
        Relation.of(3000, uniform, random, 0.02));
    checkAll("Zipf " + exponent + " on both sides", seed, Relation.of(1500, skewed, random, 0),
        Relation.of(1500, skewed, random, 0));
  }

  @Test
  void radixBitsGrowWithTheBuildSide() {
    assertEquals(0, CpuRadixJoin.radixBits(1000, 1 << 20));
    assertEquals(0, CpuRadixJoin.radixBits(1 << 15, 1 << 20));
    assertEquals(1, CpuRadixJoin.radixBits((1 << 15) + 1, 1 << 20));
    assertEquals(9, CpuRadixJoin.radixBits(1 << 24, 1 << 20));
    try (CpuRadixJoin radix = new CpuRadixJoin(2, 13)) {
      Relation r = Relation.of(100, () -> 5, new SplittableRandom(1), 0);
      String algorithm = radix.join(r.input(), r.input(), JoinType.SEMI, JoinOutput.MATERIALIZED).algorithm();
      assertEquals("radix/bits=7+6", algorithm);
    }
  }

  @Test
  void badInputsFailWithTheReason() {
    long[] keys = {1, 2, 3};
    var missingPayload = assertThrows(IllegalArgumentException.class,
        () -> joins.get(0).join(JoinInput.keysOnly(keys), JoinInput.of(keys, keys), JoinType.INNER,
            JoinOutput.AGGREGATED));
    assertTrue(missingPayload.getMessage().contains("build side has no payload column"), missingPayload.getMessage());
    var ragged = assertThrows(IllegalArgumentException.class,
        () -> JoinInput.of(keys, new long[2]));
    assertTrue(ragged.getMessage().contains("2 rows but key column has 3"), ragged.getMessage());
    var shortBitmap = assertThrows(IllegalArgumentException.class,
        () -> JoinInput.withValidity(new long[65], null, new long[1]));
    assertTrue(shortBitmap.getMessage().contains("65 rows need 2"), shortBitmap.getMessage());
  }
}
