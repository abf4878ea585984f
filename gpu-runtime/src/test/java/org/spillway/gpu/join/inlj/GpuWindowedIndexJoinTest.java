package org.spillway.gpu.join.inlj;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.SplittableRandom;
import java.util.concurrent.CancellationException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.stream.LongStream;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.IntVector;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.spillway.gpu.GpuTest;
import org.spillway.gpu.device.ArrowAllocators;
import org.spillway.gpu.device.CudaDevice;
import org.spillway.gpu.device.DeviceBuffer;
import org.spillway.gpu.device.GpuMemoryException;
import org.spillway.gpu.device.GpuRuntime;
import org.spillway.gpu.device.HostMemoryKind;
import org.spillway.gpu.index.IndexKind;
import org.spillway.gpu.index.SortedKeyColumn;
import org.spillway.gpu.index.SortedKeyIndex;
import org.spillway.gpu.join.JoinType;
import org.spillway.gpu.join.ZipfDistribution;
import org.spillway.gpu.pipeline.gpu.GpuColumnarPipeline;

/**
 * The GPU windowed index join returns the CPU one's join index, through every index kind in pinned memory, on
 * fresh random inputs: duplicate, skewed, NULL and extreme probe keys, no and all matches, empty sides, windows
 * that do and do not divide the probe, 4-byte keys, Arrow vectors in pinned and pageable memory, lookups in
 * translation slices of several reaches (one partition per slice up to the whole column); a cancelled join
 * frees all it took (and {@link GpuTest} checks every test for leaks).
 */
@GpuTest
class GpuWindowedIndexJoinTest {
  private static final int THREADS = 2;
  /** Window budgets in 8-byte keys: one key (a warp on the GPU), windows that do not divide the probes, the default. */
  private static final long[] WINDOWS = {1, 96, 1000, 100_000, -1};

  @ParameterizedTest
  @EnumSource(IndexKind.class)
  void joinsAsTheCpuJoinOnRandomRelations(IndexKind kind) {
    long seed = System.nanoTime();
    SplittableRandom random = new SplittableRandom(seed);
    long[] sparse = LongStream.concat(LongStream.of(ProbeKeys.EXTREMES), random.longs(3000)).distinct().sorted()
        .toArray();
    long[] dense = LongStream.range(-1500, 1500).toArray();
    for (long[] build : new long[][] {sparse, dense}) {
      long[] probe = ProbeKeys.around(build, 3000, random);
      boolean[] nulls = ProbeKeys.nulls(probe.length, random);
      withPinnedIndex(kind, build, false, index -> {
        for (long window : WINDOWS) {
          for (JoinType type : JoinType.values()) {
            check(index, probe, nulls, type, window, kind + " " + type + " window=" + window + " seed=" + seed);
          }
        }
        check(index, probe, null, JoinType.INNER, -1, kind + " no NULL flags seed=" + seed);
      });
    }
  }

  @ParameterizedTest
  @EnumSource(IndexKind.class)
  void joinsSkewedProbes(IndexKind kind) {
    long seed = System.nanoTime();
    SplittableRandom random = new SplittableRandom(seed);
    long[] build = random.longs(5000, -1L << 40, 1L << 40).distinct().sorted().toArray();
    withPinnedIndex(kind, build, false, index -> {
      for (double exponent : new double[] {0, 0.5, 1, 1.5, 1.75}) {
        ZipfDistribution zipf = new ZipfDistribution(build.length, exponent);
        long[] probe = LongStream.range(0, 6144).map(i -> build[zipf.sample(random)]).toArray();
        for (long window : new long[] {1024, 1500}) {  // windows that divide the probe and that do not
          check(index, probe, null, JoinType.INNER, window, kind + " zipf=" + exponent + " seed=" + seed);
        }
      }
    });
  }

  @ParameterizedTest
  @EnumSource(IndexKind.class)
  void joinsNoMatchAllMatchAndEmptySides(IndexKind kind) {
    long[] build = LongStream.range(0, 1000).map(i -> i * 7 - 3000).toArray();
    long[] allMatch = LongStream.range(0, 3000).map(i -> build[(int) (i * 31 % build.length)]).toArray();
    long[] noMatch = LongStream.range(0, 3000).map(i -> build[(int) (i % build.length)] + 1 + i % 6).toArray();
    withPinnedIndex(kind, build, false, index -> {
      for (JoinType type : JoinType.values()) {
        check(index, allMatch, null, type, 64, kind + " all match " + type);
        check(index, noMatch, null, type, 64, kind + " no match " + type);
        check(index, new long[0], null, type, 64, kind + " empty probe " + type);
      }
      assertEquals(allMatch.length, gpu(index, allMatch, null, JoinType.INNER, 64).size());
      assertEquals(0, gpu(index, noMatch, null, JoinType.INNER, 64).size());
    });
    withPinnedIndex(kind, new long[0], false, index -> {
      for (JoinType type : JoinType.values()) {
        check(index, ProbeKeys.EXTREMES, null, type, 2, kind + " empty build " + type);
      }
    });
  }

  /** A 4-byte column probed by int[], INT vectors in pageable memory and BIGINT vectors in pinned memory, NULLs in. */
  @ParameterizedTest
  @EnumSource(IndexKind.class)
  void joinsArrowVectorsOfBothWidthsWithNulls(IndexKind kind) {
    long seed = System.nanoTime();
    SplittableRandom random = new SplittableRandom(seed);
    long[] build = random.ints(4000, Integer.MIN_VALUE, Integer.MAX_VALUE).asLongStream().distinct().sorted()
        .toArray();
    long[] probe = LongStream.of(ProbeKeys.around(build, 3000, random))
        .map(k -> k == (int) k ? k : random.nextInt()).toArray();
    long[] wideProbe = LongStream.of(probe).map(k -> random.nextInt(8) == 0 ? k + (1L << 32) : k).toArray();
    boolean[] nulls = ProbeKeys.nulls(probe.length, random);
    CudaDevice device = GpuRuntime.requireDevice();
    withPinnedIndex(kind, build, true, index -> {
      try (GpuWindowedIndexJoin join = new GpuWindowedIndexJoin(device, index, 1000L * Long.BYTES);
           BufferAllocator pageable = new RootAllocator();
           BufferAllocator pinned = ArrowAllocators.root(HostMemoryKind.PINNED);
           IntVector ints = new IntVector("ints", pageable);
           BigIntVector longs = new BigIntVector("longs", pinned)) {
        ints.allocateNew(probe.length);
        longs.allocateNew(probe.length);
        for (int i = 0; i < probe.length; i++) {
          if (nulls[i]) {
            ints.setNull(i);
            longs.setNull(i);
          } else {
            ints.set(i, (int) probe[i]);
            longs.set(i, wideProbe[i]);
          }
        }
        ints.setValueCount(probe.length);
        longs.setValueCount(probe.length);
        int[] intArray = LongStream.of(probe).mapToInt(k -> (int) k).toArray();
        for (JoinType type : JoinType.values()) {
          assertSame(cpu(index, probe, nulls, type, 1000), join.join(ints, type, () -> false),
              kind + " INT vector " + type + " seed=" + seed);
          assertSame(cpu(index, probe, nulls, type, 1000), join.join(intArray, nulls, type, () -> false),
              kind + " int[] " + type + " seed=" + seed);
          assertSame(cpu(index, wideProbe, nulls, type, 1000), join.join(longs, type, () -> false),
              kind + " BIGINT vector " + type + " seed=" + seed);
        }
      }
    });
  }

  /**
   * Lookups in translation slices return the CPU join's index through every kind: random, duplicate, NULL, extreme,
   * no-match and all-match probe keys, with reaches below one partition's bytes (a slice per partition), of a few
   * partitions, of a third of the column and of all of it (one launch over the matchable keys only).
   */
  @ParameterizedTest
  @EnumSource(IndexKind.class)
  void joinsAsTheCpuJoinInTranslationSlices(IndexKind kind) {
    long seed = System.nanoTime();
    SplittableRandom random = new SplittableRandom(seed);
    // keys spread over the partitions (about ten keys each, 80 bytes); the probe adds the extremes, rejects here
    long[] build = random.longs(20_000, -1L << 40, 1L << 40).distinct().sorted().toArray();
    long[] probe = LongStream.concat(LongStream.of(ProbeKeys.around(build, 30_000, random)),
        random.longs(3000, 0, 100).map(i -> build[(int) i])).toArray();  // duplicates of a few keys
    boolean[] nulls = ProbeKeys.nulls(probe.length, random);
    long[] noMatch = LongStream.range(0, 5000).map(i -> build[1 + (int) (i % (build.length - 2))] + 1)
        .filter(k -> Arrays.binarySearch(build, k) < 0).toArray();
    long columnBytes = (long) build.length * Long.BYTES;
    withPinnedIndex(kind, build, false, index -> {
      for (long reach : new long[] {8, 1000, 64 << 10, columnBytes / 3, columnBytes}) {
        // a launch per slice and window: windows of 96 keys only with a few slices
        for (long window : reach < 64 << 10 ? new long[] {4096, -1} : new long[] {96, 4096, -1}) {
          String what = kind + " reach=" + reach + " window=" + window + " seed=" + seed;
          for (JoinType type : JoinType.values()) {
            assertSame(cpu(index, probe, nulls, type, window), sliced(index, probe, nulls, type, window, reach),
                what + " " + type);
          }
          assertSame(cpu(index, noMatch, null, JoinType.INNER, window),
              sliced(index, noMatch, null, JoinType.INNER, window, reach), what + " no match");
          assertEquals(0, sliced(index, noMatch, null, JoinType.INNER, window, reach).size(), what + " no match");
        }
      }
      try (GpuWindowedIndexJoin join = new GpuWindowedIndexJoin(GpuRuntime.requireDevice(), index, 4096 * 8L, 8)) {
        join.join(probe, nulls, JoinType.INNER, () -> false);
        assertTrue(join.lastStats().slicesPerWindow() > 1000, "a slice per partition: " + join.lastStats());
        assertEquals(8, join.translationReach());
      }
    });
  }

  /** A 4-byte column and an empty one, sliced, as the CPU join. */
  @ParameterizedTest
  @EnumSource(IndexKind.class)
  void joinsIntColumnsAndEmptyColumnsInTranslationSlices(IndexKind kind) {
    long seed = System.nanoTime();
    SplittableRandom random = new SplittableRandom(seed);
    long[] build = random.ints(8000, Integer.MIN_VALUE, Integer.MAX_VALUE).asLongStream().distinct().sorted()
        .toArray();
    long[] probe = LongStream.of(ProbeKeys.around(build, 6000, random)).map(k -> k == (int) k ? k : random.nextInt())
        .toArray();
    boolean[] nulls = ProbeKeys.nulls(probe.length, random);
    withPinnedIndex(kind, build, true, index -> {
      for (long reach : new long[] {4, 4096, 1L << 30}) {
        assertSame(cpu(index, probe, nulls, JoinType.LEFT_OUTER, 1000),
            sliced(index, probe, nulls, JoinType.LEFT_OUTER, 1000, reach), kind + " ints reach=" + reach
                + " seed=" + seed);
      }
    });
    withPinnedIndex(kind, new long[0], false, index -> assertSame(
        cpu(index, ProbeKeys.EXTREMES, null, JoinType.LEFT_OUTER, 2),
        sliced(index, ProbeKeys.EXTREMES, null, JoinType.LEFT_OUTER, 2, 8), kind + " empty build"));
  }

  /** The system property sets the reach of a join built without one; unset, a window's lookups are one launch. */
  @Test
  void thePropertySetsTheTranslationReach() {
    long[] build = LongStream.range(0, 50_000).map(i -> 3 * i).toArray();
    long[] probe = LongStream.range(0, 20_000).map(i -> i * 7).toArray();
    String before = System.getProperty(TranslationSlices.PROPERTY);
    withPinnedIndex(IndexKind.RADIXSPLINE, build, false, index -> {
      try {
        System.clearProperty(TranslationSlices.PROPERTY);
        assertEquals(1, statsOf(index, probe).slicesPerWindow());
        System.setProperty(TranslationSlices.PROPERTY, "64k");
        assertTrue(statsOf(index, probe).slicesPerWindow() > 1);
      } finally {
        if (before == null) {
          System.clearProperty(TranslationSlices.PROPERTY);
        } else {
          System.setProperty(TranslationSlices.PROPERTY, before);
        }
      }
    });
  }

  private static GpuWindowedIndexJoin.Stats statsOf(SortedKeyIndex index, long[] probe) {
    try (GpuWindowedIndexJoin join = new GpuWindowedIndexJoin(GpuRuntime.requireDevice(), index, 1 << 20)) {
      assertSame(cpu(index, probe, null, JoinType.INNER, 1 << 17), join.join(probe, null, JoinType.INNER,
          () -> false), "reach " + TranslationSlices.describe(join.translationReach()));
      return join.lastStats();
    }
  }

  /** Many windows in flight on both streams at once, against the CPU join. */
  @Test
  void joinsALargeProbeOverManyWindows() {
    long seed = System.nanoTime();
    SplittableRandom random = new SplittableRandom(seed);
    long[] build = LongStream.range(0, 1 << 20).map(i -> 3 * i + random.nextInt(3)).toArray();
    long[] probe = random.longs(3_000_000, -10, 3L << 20).toArray();
    boolean[] nulls = ProbeKeys.nulls(probe.length, random);
    withPinnedIndex(IndexKind.RADIXSPLINE, build, false, index -> {
      for (long window : new long[] {1 << 16, 100_003}) {
        check(index, probe, nulls, JoinType.LEFT_OUTER, window, "window=" + window + " seed=" + seed);
      }
    });
  }

  @Test
  void runPicksTheGpuJoin() {
    long seed = System.nanoTime();
    long[] build = LongStream.range(0, 500).map(i -> 3 * i - 700).toArray();
    long[] probe = ProbeKeys.around(build, 1000, new SplittableRandom(seed));
    withPinnedIndex(IndexKind.HARMONIA, build, false, index -> assertSame(
        WindowedIndexJoin.run(IndexJoinDevice.cpu(THREADS), probe, null, index, JoinType.SEMI, 800, () -> false),
        WindowedIndexJoin.run(IndexJoinDevice.gpu(GpuRuntime.requireDevice()), probe, null, index, JoinType.SEMI,
            800, () -> false),
        "seed=" + seed));
  }

  /** Cancelled after its first window, the join throws and leaves device and pinned memory where it found them. */
  @Test
  void cancellationBetweenWindowsFreesEverything() {
    CudaDevice device = GpuRuntime.requireDevice();
    long[] build = LongStream.range(0, 10_000).toArray();
    long[] probe = LongStream.range(0, 100_000).map(i -> i % 20_000).toArray();
    withPinnedIndex(IndexKind.BTREE, build, false, index -> {
      GpuColumnarPipeline.releaseIdleResources(device);
      long deviceBytes = device.allocator().allocatedBytes();
      try (GpuWindowedIndexJoin join = new GpuWindowedIndexJoin(device, index, 1024L * Long.BYTES)) {
        long withStructure = device.allocator().allocatedBytes();
        long pinnedBytes = device.pinnedAllocator().allocatedBytes();
        AtomicInteger asked = new AtomicInteger();
        assertThrows(CancellationException.class,
            () -> join.join(probe, null, JoinType.INNER, () -> asked.incrementAndGet() > 1));
        assertEquals(2, asked.get(), "asked before each window until cancelled");
        GpuColumnarPipeline.releaseIdleResources(device);
        assertEquals(withStructure, device.allocator().allocatedBytes());
        assertEquals(pinnedBytes, device.pinnedAllocator().allocatedBytes());
        // and the next join runs
        assertEquals(probe.length / 2, join.join(probe, null, JoinType.INNER, () -> false).size());
        assertTrue(join.lastStats().windows() > 1);
      }
      GpuColumnarPipeline.releaseIdleResources(device);
      assertEquals(deviceBytes, device.allocator().allocatedBytes(), "closing frees the structure's copy");
    });
  }

  /**
   * With room for the transfer's chunk buffers but not for a window's buffers, the join fails on its first window
   * and frees what it took: the chunk buffers and the window buffers allocated before the one that failed.
   */
  @Test
  void aFailedAllocationFreesWhatTheJoinTook() {
    CudaDevice device = GpuRuntime.requireDevice();
    int tuples = 1 << 16;
    long[] probe = LongStream.range(0, 5L * tuples).map(i -> i % 20_000).toArray();
    withPinnedIndex(IndexKind.BTREE, LongStream.range(0, 10_000).toArray(), false, index -> {
      GpuColumnarPipeline.releaseIdleResources(device);
      long deviceBytes = device.allocator().allocatedBytes();
      long pinnedBytes = device.pinnedAllocator().allocatedBytes();
      try (GpuWindowedIndexJoin join = new GpuWindowedIndexJoin(device, index, (long) tuples * Long.BYTES)) {
        long withStructure = device.allocator().allocatedBytes();
        // two chunk buffers of 8-byte slots fit, then the window's keys, but not their positions
        long spare = 2L * tuples * Long.BYTES + 10L * tuples;
        try (DeviceBuffer hog = device.allocator().allocate(device.allocator().availableBytes() - spare,
            "test: leaves too little for the join's windows")) {
          GpuMemoryException e = assertThrows(GpuMemoryException.class,
              () -> join.join(probe, null, JoinType.INNER, () -> false));
          assertTrue(e.getMessage().contains("windowed index join: probe key positions"), e.getMessage());
        }
        GpuColumnarPipeline.releaseIdleResources(device);
        assertEquals(withStructure, device.allocator().allocatedBytes());
      }
      assertEquals(deviceBytes, device.allocator().allocatedBytes());
      assertEquals(pinnedBytes, device.pinnedAllocator().allocatedBytes());
    });
  }

  @Test
  void refusesAnIndexInPageableMemory() {
    try (BufferAllocator pageable = new RootAllocator(); ArrowBuf buf = pageable.buffer(24)) {
      for (int i = 0; i < 3; i++) {
        buf.setLong(8L * i, i);
      }
      try (SortedKeyIndex index = IndexKind.BINARY_SEARCH.build(SortedKeyColumn.ofLongs(buf.memoryAddress(), 3),
          pageable, 1)) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
            () -> new GpuWindowedIndexJoin(GpuRuntime.requireDevice(), index, 1024));
        assertTrue(e.getMessage().contains("pinned host memory"), e.getMessage());
      }
    }
  }

  private static void check(SortedKeyIndex index, long[] probe, boolean[] nulls, JoinType type, long window,
      String what) {
    assertSame(cpu(index, probe, nulls, type, window), gpu(index, probe, nulls, type, window), what);
  }

  private static void assertSame(JoinIndex expected, JoinIndex actual, String what) {
    assertArrayEquals(expected.probeRows(), actual.probeRows(), what + ": probe rows");
    assertArrayEquals(expected.buildRows(), actual.buildRows(), what + ": build rows");
  }

  /** {@code window} in 8-byte keys, -1 for the default. */
  private static long bytes(long window) {
    return window < 0 ? WindowedIndexJoin.DEFAULT_WINDOW_BYTES : window * Long.BYTES;
  }

  private static JoinIndex cpu(SortedKeyIndex index, long[] probe, boolean[] nulls, JoinType type, long window) {
    return new WindowedIndexJoin(index, bytes(window), THREADS).join(probe, nulls, type);
  }

  private static JoinIndex gpu(SortedKeyIndex index, long[] probe, boolean[] nulls, JoinType type, long window) {
    try (GpuWindowedIndexJoin join = new GpuWindowedIndexJoin(GpuRuntime.requireDevice(), index, bytes(window))) {
      return join.join(probe, nulls, type, () -> false);
    }
  }

  /** As {@link #gpu}, a window's lookups in slices of {@code reach} bytes of the column. */
  private static JoinIndex sliced(SortedKeyIndex index, long[] probe, boolean[] nulls, JoinType type, long window,
      long reach) {
    try (GpuWindowedIndexJoin join = new GpuWindowedIndexJoin(GpuRuntime.requireDevice(), index, bytes(window),
        reach)) {
      return join.join(probe, nulls, type, () -> false);
    }
  }

  /** A {@code kind} index over {@code keys} (4 or 8 bytes each) in pinned memory, freed after {@code body}. */
  private static void withPinnedIndex(IndexKind kind, long[] keys, boolean ints, Consumer<SortedKeyIndex> body) {
    int width = ints ? Integer.BYTES : Long.BYTES;
    try (BufferAllocator pinned = ArrowAllocators.root(HostMemoryKind.PINNED);
         ArrowBuf buf = pinned.buffer(Math.max(8, (long) width * keys.length))) {
      for (int i = 0; i < keys.length; i++) {
        if (ints) {
          buf.setInt(4L * i, Math.toIntExact(keys[i]));
        } else {
          buf.setLong(8L * i, keys[i]);
        }
      }
      SortedKeyColumn column = ints ? SortedKeyColumn.ofInts(buf.memoryAddress(), keys.length)
          : SortedKeyColumn.ofLongs(buf.memoryAddress(), keys.length);
      try (SortedKeyIndex index = kind.build(column, pinned, THREADS)) {
        body.accept(index);
      }
    }
  }
}
