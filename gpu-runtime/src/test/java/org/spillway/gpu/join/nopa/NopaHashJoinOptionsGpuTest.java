package org.spillway.gpu.join.nopa;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.spillway.gpu.join.nopa.NopaCheck.compare;
import static org.spillway.gpu.join.nopa.NopaCheck.freshSeed;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CancellationException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import jcuda.driver.CUdevice_attribute;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.spillway.gpu.GpuTest;
import org.spillway.gpu.device.CudaDevice;
import org.spillway.gpu.device.GpuRuntime;
import org.spillway.gpu.join.GpuJoinStats;
import org.spillway.gpu.join.JoinOutput;
import org.spillway.gpu.join.JoinType;
import org.spillway.gpu.transfer.ColumnType;
import org.spillway.gpu.transfer.TransferMethod;
import org.spillway.gpu.transfer.TransferOptions;

/**
 * NopaHashJoin's settings against CpuNopaHashJoin: every transfer method the device supports, forced
 * placements, output buffers too small for the pairs, cancellation, default chunk sizes, and the statistics it
 * reports. Allocator counts are checked by {@link GpuTest}.
 */
@GpuTest
class NopaHashJoinOptionsGpuTest {
  private static final ColumnType I64 = ColumnType.INT64;

  static Stream<TransferMethod> methods() {
    CudaDevice device = GpuRuntime.device().orElse(null);
    List<TransferMethod> out = new ArrayList<>();
    for (TransferMethod m : TransferMethod.values()) {
      if (device == null || m.support(device).supported()) {
        out.add(m);
      }
    }
    return out.stream();
  }

  @ParameterizedTest
  @MethodSource("methods")
  void everySupportedTransferMethodAndPlacement(TransferMethod method) {
    long seed = freshSeed();
    SplittableRandom random = new SplittableRandom(seed);
    GpuJoinRelation r = GpuJoinRelation.of(3000, () -> random.nextInt(2000), random, 0.1, I64, I64);
    GpuJoinRelation s = GpuJoinRelation.of(12000, () -> random.nextInt(4000), random, 0.1, ColumnType.INT32,
        ColumnType.INT32);
    List<String> variants = compare(method.label(), seed, r, s, NopaCheck.everyPlacement(method));
    assertTrue(variants.stream().anyMatch(v -> v.endsWith("/gpu")), variants.toString());
    assertTrue(variants.stream().anyMatch(v -> v.endsWith("/host")), variants.toString());
    assertTrue(variants.stream().anyMatch(v -> v.contains("/hybrid(0.")), variants.toString());
  }

  @Test
  void automaticPlacementSpillsPastTheBudget() {
    long seed = freshSeed();
    SplittableRandom random = new SplittableRandom(seed);
    GpuJoinRelation r = GpuJoinRelation.of(6000, random::nextLong, random, 0, I64, I64);
    GpuJoinRelation s = GpuJoinRelation.of(6000, () -> r.keys()[random.nextInt(6000)], random, 0, I64, I64);
    NopaOptions base = NopaOptions.DEFAULT.withTransfer(NopaCheck.SMALL_CHUNKS);
    JoinType[] inner = {JoinType.INNER};
    JoinOutput[] both = JoinOutput.values();
    // 6000 rows: 16384 slots of 16 bytes = 256 KiB.
    assertEquals(List.of("nopa/linear-probing/gpu", "nopa/linear-probing/gpu"),
        compare("fits", seed, r, s, base.withTableBudget(256 << 10), inner, both));
    assertEquals(List.of("nopa/linear-probing/hybrid(0.25)", "nopa/linear-probing/hybrid(0.25)"),
        compare("a quarter fits", seed, r, s, base.withTableBudget(64 << 10), inner, both));
    // Dense keys: the speculative linear-probing table (256 KiB) fits, but not beside the array table (96 KiB),
    // so the array table is built from R again; and with a smaller budget the array table spills.
    long start = random.nextLong() >> 2;
    long[] next = {start};
    GpuJoinRelation dense = GpuJoinRelation.of(6000, () -> next[0]++, random, 0, I64, I64);
    GpuJoinRelation denseProbe = GpuJoinRelation.of(6000, () -> start + random.nextInt(7000), random, 0, I64, I64);
    assertEquals(List.of("nopa/perfect-hash/gpu", "nopa/perfect-hash/gpu"),
        compare("dense, no room for both tables", seed, dense, denseProbe, base.withTableBudget(300 << 10), inner, both));
    assertEquals(List.of("nopa/perfect-hash/hybrid(0.50)", "nopa/perfect-hash/hybrid(0.50)"),
        compare("dense, half the array table fits", seed, dense, denseProbe, base.withTableBudget(48000), inner, both));
  }

  @Test
  void moreBuildKeysMinusOneThanTheSpeculativeSideListHolds() {
    long seed = freshSeed();
    SplittableRandom random = new SplittableRandom(seed);
    GpuJoinRelation r = GpuJoinRelation.of(90_000, () -> random.nextInt(20) == 0 ? 5 : -1, random, 0.01, I64, I64);
    GpuJoinRelation s = GpuJoinRelation.of(30, () -> random.nextInt(3) - 1 + 5 * random.nextInt(2), random, 0, I64,
        I64);
    long minusOnes = Arrays.stream(r.keys()).filter(k -> k == -1).count();
    assertTrue(minusOnes > 1 << 16, minusOnes + " rows with key -1 do not overflow the speculative side list");
    compare(minusOnes + " build keys -1", seed, r, s, NopaOptions.DEFAULT.withTransfer(NopaCheck.SMALL_CHUNKS),
        JoinType.values(), JoinOutput.values());
  }

  @Test
  void hostTableBuildsCorrectlyUnderHeavyAtomicContention() {
    CudaDevice device = GpuRuntime.requireDevice();
    System.out.println("NOPA: " + device + " HOST_NATIVE_ATOMIC_SUPPORTED="
        + device.attribute(CUdevice_attribute.CU_DEVICE_ATTRIBUTE_HOST_NATIVE_ATOMIC_SUPPORTED));
    long seed = freshSeed();
    SplittableRandom random = new SplittableRandom(seed);
    // 2^16 rows on 256 keys: every key 256 times, so thousands of CAS race for the same slots in host memory.
    GpuJoinRelation r = GpuJoinRelation.of(1 << 16, () -> random.nextInt(256), random, 0, I64, I64);
    GpuJoinRelation s = GpuJoinRelation.of(2000, () -> random.nextInt(300), random, 0, I64, I64);
    NopaOptions host = NopaOptions.DEFAULT.withPlacement(HashTablePlacement.HOST);
    compare("host table, contended build", seed, r, s, host, new JoinType[] {JoinType.INNER, JoinType.ANTI},
        JoinOutput.values());
  }

  @Test
  void overflowingOutputBuffersAreRunAgainWithRoom() {
    long seed = freshSeed();
    SplittableRandom random = new SplittableRandom(seed);
    GpuJoinRelation r = GpuJoinRelation.of(3000, () -> random.nextInt(300), random, 0.05, I64, I64);
    GpuJoinRelation s = GpuJoinRelation.of(20000, () -> random.nextInt(400), random, 0.05, I64, I64);
    for (NopaOptions options : NopaCheck.standard()) {
      NopaOptions tiny = options.withOutputPairsPerChunk(100);
      compare("output buffers of 100 pairs", seed, r, s, tiny, JoinType.values(),
          new JoinOutput[] {JoinOutput.MATERIALIZED});
    }
    NopaOptions tiny = NopaOptions.DEFAULT.withTransfer(NopaCheck.SMALL_CHUNKS).withOutputPairsPerChunk(100);
    NopaCheck.withGpuJoin(tiny, r, s, (gpu, build, probe) -> {
      gpu.join(build.keysOnly(), probe.keysOnly(), JoinType.INNER, JoinOutput.MATERIALIZED);
      assertTrue(gpu.lastStats().phases().stream().anyMatch(p -> p.name().startsWith("probe-overflow-rerun")),
          gpu.lastStats().toString());
    });
  }

  @Test
  void cancellationBetweenChunksReleasesEverything() {
    long seed = freshSeed();
    SplittableRandom random = new SplittableRandom(seed);
    GpuJoinRelation r = GpuJoinRelation.of(20000, () -> random.nextInt(5000), random, 0, I64, I64);
    GpuJoinRelation s = GpuJoinRelation.of(50000, () -> random.nextInt(5000), random, 0, I64, I64);
    for (NopaOptions options : NopaCheck.standard()) {
      for (int allowed : new int[] {0, 2, 5, 9}) {
        NopaCheck.withGpuJoin(options, r, s, (gpu, build, probe) -> {
          AtomicInteger checks = new AtomicInteger();
          assertThrows(CancellationException.class, () -> gpu.join(build.input(), probe.input(), JoinType.INNER,
              JoinOutput.MATERIALIZED, () -> checks.getAndIncrement() >= allowed), "seed " + seed);
        });
      }
    }
  }

  @Test
  void defaultChunksOnMillionsOfRowsWithStats() {
    long seed = freshSeed();
    SplittableRandom random = new SplittableRandom(seed);
    int rows = 1 << 21;
    GpuJoinRelation r = GpuJoinRelation.of(rows, () -> random.nextLong() >>> 1, random, 0.01, I64, I64);
    GpuJoinRelation s = GpuJoinRelation.of(2 * rows, () -> random.nextBoolean() ? r.keys()[random.nextInt(rows)]
        : random.nextLong(), random, 0.01, I64, I64);
    for (TransferMethod method : List.of(TransferMethod.ZERO_COPY, TransferMethod.PINNED_COPY)) {
      NopaOptions options = NopaOptions.DEFAULT.withMethod(method).withTransfer(TransferOptions.DEFAULT);
      compare("2^21 x 2^22, default chunks", seed, r, s, options, new JoinType[] {JoinType.INNER, JoinType.LEFT_OUTER},
          JoinOutput.values());
      NopaCheck.withGpuJoin(options, r, s, (gpu, build, probe) -> {
        gpu.join(build.input(), probe.input(), JoinType.INNER, JoinOutput.AGGREGATED);
        GpuJoinStats stats = gpu.lastStats();
        // One pass over R (the build gathers the key statistics) and one over S, each with its validity bits.
        long expected = 16L * rows + (rows + 7) / 8 + 16L * 2 * rows + (2L * rows + 7) / 8;
        assertEquals(expected, stats.bytesToDevice(), stats.toString());
        assertEquals("nopa/linear-probing/gpu", stats.variant());
        assertEquals(List.of("table-alloc", "build", "probe"),
            stats.phases().stream().map(GpuJoinStats.Phase::name).toList());
        assertTrue(stats.totalNanos() > 0 && stats.phases().stream().allMatch(p -> p.nanos() >= 0), stats.toString());
        System.out.printf("NOPA %s 2^21 x 2^22 INT64 aggregated: %s, %.3f G tuples/s%n", method.label(), stats,
            stats.tuplesPerSecond(rows, 2L * rows) / 1e9);
      });
    }
  }
}
