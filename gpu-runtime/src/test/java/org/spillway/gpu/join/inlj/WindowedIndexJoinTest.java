package org.spillway.gpu.join.inlj;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.CancellationException;
import java.util.function.Function;
import java.util.stream.LongStream;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.spillway.gpu.index.IndexKind;
import org.spillway.gpu.index.SortedKeyColumn;
import org.spillway.gpu.index.SortedKeyIndex;
import org.spillway.gpu.join.JoinType;
import org.spillway.gpu.join.ZipfDistribution;

/**
 * The windowed index nested-loop join through every index kind against a plain hash join on random relations:
 * duplicate, skewed, NULL and extreme probe keys, empty sides, no and all matches, windows from one key to more
 * than the probe, every join type; the output is in probe order. The partitioner is checked on its own.
 */
class WindowedIndexJoinTest {
  private static final int THREADS = 3;
  private static final long[] EXTREMES = ProbeKeys.EXTREMES;

  @ParameterizedTest
  @EnumSource(IndexKind.class)
  void joinsLikeAHashJoinOnRandomRelations(IndexKind kind) {
    long seed = System.nanoTime();
    SplittableRandom random = new SplittableRandom(seed);
    // sparse keys over the whole range with both extremes, and dense keys around zero
    long[] sparse = LongStream.concat(LongStream.of(EXTREMES), random.longs(3000)).distinct().sorted().toArray();
    long[] dense = LongStream.range(-1500, 1500).toArray();
    for (long[] build : new long[][] {sparse, dense}) {
      long[] probe = ProbeKeys.around(build, 2000, random);
      boolean[] nulls = ProbeKeys.nulls(probe.length, random);
      withIndex(kind, build, index -> {
        for (int window : new int[] {1, 3, 7, 500, probe.length - 1, probe.length, probe.length + 1}) {
          for (JoinType type : JoinType.values()) {
            check(index, build, probe, nulls, type, window, kind + " " + type + " window=" + window + " seed=" + seed);
          }
        }
        check(index, build, probe, null, JoinType.INNER, -1, kind + " no NULL flags, default window seed=" + seed);
        return null;
      });
    }
  }

  @ParameterizedTest
  @EnumSource(IndexKind.class)
  void joinsSkewedProbes(IndexKind kind) {
    long seed = System.nanoTime();
    SplittableRandom random = new SplittableRandom(seed);
    long[] build = random.longs(5000, -1L << 40, 1L << 40).distinct().sorted().toArray();
    withIndex(kind, build, index -> {
      for (double exponent : new double[] {0, 0.5, 1, 1.5, 1.75}) {
        ZipfDistribution zipf = new ZipfDistribution(build.length, exponent);
        long[] probe = LongStream.range(0, 6000).map(i -> build[zipf.sample(random)]).toArray();
        // windows that divide the probe exactly and that do not
        for (int window : new int[] {1000, 1024}) {
          check(index, build, probe, null, JoinType.INNER, window, kind + " zipf=" + exponent + " seed=" + seed);
        }
      }
      return null;
    });
  }

  @ParameterizedTest
  @EnumSource(IndexKind.class)
  void joinsNoMatchAllMatchAndEmptySides(IndexKind kind) {
    long[] build = LongStream.range(0, 1000).map(i -> i * 7 - 3000).toArray();
    long[] allMatch = LongStream.range(0, 3000).map(i -> build[(int) (i * 31 % build.length)]).toArray();
    long[] noMatch = LongStream.range(0, 3000).map(i -> build[(int) (i % build.length)] + 1 + i % 6).toArray();
    withIndex(kind, build, index -> {
      for (JoinType type : JoinType.values()) {
        check(index, build, allMatch, null, type, 64, kind + " all match " + type);
        check(index, build, noMatch, null, type, 64, kind + " no match " + type);
        check(index, build, new long[0], null, type, 64, kind + " empty probe " + type);
      }
      WindowedIndexJoin join = new WindowedIndexJoin(index, 64 * Long.BYTES, THREADS);
      assertEquals(allMatch.length, join.join(allMatch, null, JoinType.INNER).size());
      assertEquals(0, join.join(noMatch, null, JoinType.INNER).size());
      return null;
    });
    withIndex(kind, new long[0], index -> {
      for (JoinType type : JoinType.values()) {
        check(index, new long[0], EXTREMES, null, type, 2, kind + " empty build " + type);
      }
      return null;
    });
  }

  @Test
  void nullKeysNeverMatchEvenWhenTheirValueIsABuildKey() {
    long[] build = {-1, 0, 5};
    long[] probe = {0, 0, 5, -1};
    boolean[] nulls = {true, false, true, false};
    withIndex(IndexKind.BINARY_SEARCH, build, index -> {
      WindowedIndexJoin join = new WindowedIndexJoin(index, 16, THREADS);
      assertEquals(new JoinIndex(new int[] {1, 3}, new long[] {1, 0}), join.join(probe, nulls, JoinType.INNER));
      assertEquals(new JoinIndex(new int[] {0, 2}, new long[] {-1, -1}), join.join(probe, nulls, JoinType.ANTI));
      return null;
    });
  }

  @Test
  void windowsComeFromTheByteBudget() {
    withIndex(IndexKind.BINARY_SEARCH, new long[] {1}, index -> {
      assertEquals(1 << 22, new WindowedIndexJoin(index, THREADS).windowTuples());
      assertEquals(3, new WindowedIndexJoin(index, 3 * Long.BYTES + 7, THREADS).windowTuples());
      assertEquals(1, new WindowedIndexJoin(index, 1, THREADS).windowTuples());
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
          () -> new WindowedIndexJoin(index, 0, THREADS));
      assertTrue(e.getMessage().contains("at least one key"), e.getMessage());
      e = assertThrows(IllegalArgumentException.class,
          () -> new WindowedIndexJoin(index, THREADS).join(new long[2], new boolean[1], JoinType.INNER));
      assertTrue(e.getMessage().contains("1 flags for 2 keys"), e.getMessage());
      return null;
    });
  }

  /**
   * A probe within one budget window runs on every thread (a window each), and a probe larger than the emission's
   * ranges comes out in probe order for every join type: the parallel emission's ranges meet without a gap.
   */
  @Test
  void aProbeWithinOneWindowIsCutForEveryThreadAndEmittedInOrder() {
    long seed = System.nanoTime();
    long[] build = LongStream.range(0, 50_000).map(i -> 7 * i - 90_000).toArray();
    long[] probe = ProbeKeys.around(build, 300_000, new SplittableRandom(seed));
    withIndex(IndexKind.RADIXSPLINE, build, index -> {
      WindowedIndexJoin join = new WindowedIndexJoin(index, THREADS);
      assertEquals(THREADS, join.windowCount(probe.length));
      assertEquals(THREADS, WindowedIndexJoin.windowCount(probe.length, WindowedIndexJoin.DEFAULT_WINDOW_BYTES,
          THREADS));
      assertEquals(2 * THREADS, WindowedIndexJoin.windowCount(probe.length, 100_000L * Long.BYTES, THREADS));
      for (JoinType type : JoinType.values()) {
        check(index, build, probe, null, type, -1, "seed=" + seed + ", " + type);
      }
      return null;
    });
  }

  @Test
  void runPicksTheCpuJoinAndStopsWhenCancelled() {
    long seed = System.nanoTime();
    long[] build = LongStream.range(0, 500).map(i -> 3 * i - 700).toArray();
    long[] probe = ProbeKeys.around(build, 1000, new SplittableRandom(seed));
    withIndex(IndexKind.RADIXSPLINE, build, index -> {
      IndexJoinDevice cpu = IndexJoinDevice.cpu(THREADS);
      assertEquals(hashJoin(build, probe, null, JoinType.LEFT_OUTER),
          WindowedIndexJoin.run(cpu, probe, null, index, JoinType.LEFT_OUTER, 100 * Long.BYTES, () -> false),
          "seed=" + seed);
      assertThrows(CancellationException.class,
          () -> WindowedIndexJoin.run(cpu, probe, null, index, JoinType.INNER, 100 * Long.BYTES, () -> true));
      return null;
    });
    assertThrows(IllegalArgumentException.class, () -> IndexJoinDevice.cpu(0));
    assertThrows(IllegalArgumentException.class, () -> IndexJoinDevice.gpu(null));
  }

  /** Partitions come out by the keys' high bits, each in window order, without NULL and out-of-range keys. */
  @Test
  void partitionerGroupsByHighBitsStablyAndDropsUnmatchableKeys() {
    long[] build = {-1000, 1L << 20};
    withIndex(IndexKind.BINARY_SEARCH, build, index -> {
      WindowPartitioner partitioner = new WindowPartitioner(index.column());
      assertEquals(((1L << 20) + 1000 >>> (21 - WindowPartitioner.RADIX_BITS)) + 1, partitioner.fanout());
      long[] keys = {1L << 20, -1000, 7, Long.MAX_VALUE, 6, -1001, 1L << 19, -999, 8};
      boolean[] nulls = new boolean[keys.length];
      nulls[8] = true;
      PartitionedWindow window = new PartitionedWindow(keys.length, partitioner.fanout());
      int n = partitioner.partition(keys, nulls, 0, keys.length, window);
      // the low 10 bits of the 21-bit range put -1000 .. 7 into partition 0, in window order
      assertArrayEquals(new long[] {-1000, 7, 6, -999, 1L << 19, 1L << 20}, slice(window.keys, n));
      assertArrayEquals(new int[] {1, 2, 4, 7, 6, 0}, Arrays.copyOf(window.positions, n));
      // a window that starts inside the probe numbers its positions from its own start
      n = partitioner.partition(keys, nulls, 5, 3, window);
      assertArrayEquals(new long[] {-999, 1L << 19}, slice(window.keys, n));
      assertArrayEquals(new int[] {2, 1}, Arrays.copyOf(window.positions, n));
      return null;
    });
  }

  private static long[] slice(long[] values, int n) {
    return Arrays.copyOf(values, n);
  }

  /** Runs the join and compares it with the hash join; {@code window} -1 takes the default window. */
  private static void check(SortedKeyIndex index, long[] build, long[] probe, boolean[] nulls, JoinType type,
      int window, String what) {
    WindowedIndexJoin join = window < 0 ? new WindowedIndexJoin(index, THREADS)
        : new WindowedIndexJoin(index, (long) window * Long.BYTES, THREADS);
    JoinIndex actual = join.join(probe, nulls, type);
    JoinIndex expected = hashJoin(build, probe, nulls, type);
    assertArrayEquals(expected.probeRows(), actual.probeRows(), what + ": probe rows");
    assertArrayEquals(expected.buildRows(), actual.buildRows(), what + ": build rows");
  }

  /** The reference: a hash table of the build keys, probed row by row in probe order. */
  static JoinIndex hashJoin(long[] build, long[] probe, boolean[] nulls, JoinType type) {
    Map<Long, Long> rowOf = new HashMap<>();
    for (int row = 0; row < build.length; row++) {
      rowOf.put(build[row], (long) row);
    }
    LongStream.Builder probeRows = LongStream.builder();
    LongStream.Builder buildRows = LongStream.builder();
    for (int row = 0; row < probe.length; row++) {
      Long match = nulls != null && nulls[row] ? null : rowOf.get(probe[row]);
      boolean keep = switch (type) {
        case INNER, SEMI -> match != null;
        case ANTI -> match == null;
        case LEFT_OUTER -> true;
      };
      if (keep) {
        probeRows.add(row);
        buildRows.add(match == null || type == JoinType.SEMI ? -1 : match);
      }
    }
    return new JoinIndex(probeRows.build().mapToInt(Math::toIntExact).toArray(), buildRows.build().toArray());
  }

  /** Builds a {@code kind} index over {@code keys} off-heap, hands it to {@code body}, frees all (a leak fails). */
  private static void withIndex(IndexKind kind, long[] keys, Function<SortedKeyIndex, Void> body) {
    try (BufferAllocator allocator = new RootAllocator();
        ArrowBuf buf = allocator.buffer(Math.max(8, 8L * keys.length))) {
      for (int i = 0; i < keys.length; i++) {
        buf.setLong(8L * i, keys[i]);
      }
      try (SortedKeyIndex index = kind.build(SortedKeyColumn.ofLongs(buf.memoryAddress(), keys.length), allocator,
          THREADS)) {
        body.apply(index);
      }
    }
  }
}
