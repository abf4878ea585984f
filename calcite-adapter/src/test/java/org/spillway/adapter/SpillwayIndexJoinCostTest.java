package org.spillway.adapter;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.spillway.adapter.SpillwayJoinCost.Candidate;
import org.spillway.adapter.SpillwayJoinCost.Estimate;
import org.spillway.adapter.SpillwayStatistics.KeyStatistics;
import org.spillway.gpu.calibrate.MachineProfile;

/**
 * The windowed index join in the join cost model (digest 3.3): chosen for a probe that is selective against a large
 * indexed table and not for one that is not, the index kinds ordered by the lines a lookup misses, the GPU variant
 * priced by the link's random-read bandwidth, and the reasons EXPLAIN gives where it cannot run.
 */
class SpillwayIndexJoinCostTest {
  private static final long GIB = 1L << 30;
  private static final MachineProfile CPU_HOST = new MachineProfile(MachineProfile.FORMAT_VERSION, "test",
      "test host", 16, 80, null, "no GPU", Map.of(), Map.of(), null, List.of(), null, null);

  /** A GPU host whose random 128 B reads over the link reach {@code randomGbPerSecond}. */
  private static MachineProfile gpuHost(double randomGbPerSecond) {
    return gpuHost(randomGbPerSecond, 70 * GIB);
  }

  /** The same, with a GPU memory budget of {@code budget} bytes. */
  private static MachineProfile gpuHost(double randomGbPerSecond, long budget) {
    return new MachineProfile(MachineProfile.FORMAT_VERSION, "test", "test host", 16, 80,
        new MachineProfile.GpuInfo("H100", 80 * GIB, budget, 132, false), null,
        Map.of("pinned copy", 55.0, "zero-copy", 51.0), Map.of(), 55.0,
        List.of(new MachineProfile.LinkAccess("random", 128, randomGbPerSecond, randomGbPerSecond * 1e9 / 128)),
        20.0, 3000.0);
  }

  /** Orders of {@code indexed} sparse unique keys built on, probed by {@code probe} rows. */
  private static Estimate estimate(double indexed, double probe) {
    return new Estimate(indexed, probe, probe, new KeyStatistics(1L, (long) indexed * 4, indexed, true), false);
  }

  /** Both orientations, the index join offered where the indexed table is the build side. */
  private static SpillwayJoinChoice choose(MachineProfile profile, double indexed, double probe, SpillwayDevice device,
      SpillwayJoinAlgorithm forced, Function<SpillwayJoinAlgorithm, Optional<String>> whyNot, boolean indexExists) {
    SpillwayJoinCost cost = new SpillwayJoinCost(profile);
    Estimate onIndexed = estimate(indexed, probe);
    Estimate onProbe = new Estimate(probe, indexed, probe, null, true);
    return SpillwayJoinChoice.choose(cost, List.of(onIndexed, onProbe), device, forced, whyNot, true, c -> true,
        e -> indexExists && !e.buildLeft() ? cost.inlj(e, "RADIXSPLINE", indexed) : List.of());
  }

  @Test void aSelectiveProbeOfALargeIndexedTableJoinsThroughTheIndex() {
    Function<SpillwayJoinAlgorithm, Optional<String>> none = a -> Optional.empty();
    SpillwayJoinChoice selective = choose(CPU_HOST, 1.5e8, 1e5, SpillwayDevice.CPU, SpillwayJoinAlgorithm.AUTO, none,
        true);
    assertEquals(SpillwayJoinAlgorithm.INLJ, selective.chosen().algorithm());
    assertEquals("radixspline", selective.chosen().variant());
    assertEquals(SpillwayJoinAlgorithm.CPU_NOPA, selective.runnerUp().algorithm());
    SpillwayJoinChoice everyRow = choose(CPU_HOST, 1.5e8, 6e8, SpillwayDevice.CPU, SpillwayJoinAlgorithm.AUTO, none,
        true);
    assertNotEquals(SpillwayJoinAlgorithm.INLJ, everyRow.chosen().algorithm());
    SpillwayJoinChoice noIndex = choose(CPU_HOST, 1.5e8, 1e5, SpillwayDevice.CPU, SpillwayJoinAlgorithm.AUTO, none,
        false);
    assertEquals(SpillwayJoinAlgorithm.CPU_NOPA, noIndex.chosen().algorithm(), "no index, no index join");
  }

  @Test void moreProbesCostTheIndexJoinMoreAndABiggerIndexSlightly() {
    SpillwayJoinCost cost = new SpillwayJoinCost(CPU_HOST);
    double few = cost.inlj(estimate(1e8, 1e5), "BTREE", 1e8).get(0).seconds();
    double many = cost.inlj(estimate(1e8, 1e7), "BTREE", 1e8).get(0).seconds();
    double bigger = cost.inlj(estimate(1e10, 1e5), "BTREE", 1e10).get(0).seconds();
    assertTrue(many > 50 * few, few + " vs " + many);
    assertTrue(bigger > few && bigger < 2 * few, few + " vs " + bigger);
  }

  @Test void kindsMissTheCacheInThePapersOrder() {
    double rows = Math.pow(2, 33);
    double binary = SpillwayJoinCost.uncachedLines("BINARY_SEARCH", rows, 32L << 20, 64);
    double btree = SpillwayJoinCost.uncachedLines("BTREE", rows, 32L << 20, 64);
    double harmonia = SpillwayJoinCost.uncachedLines("HARMONIA", rows, 32L << 20, 64);
    double radixSpline = SpillwayJoinCost.uncachedLines("RADIXSPLINE", rows, 32L << 20, 64);
    assertTrue(radixSpline < harmonia && harmonia < btree && btree < binary,
        radixSpline + " < " + harmonia + " < " + btree + " < " + binary);
    assertEquals(11, binary, 1e-9, "2^36 bytes of keys, 2^25 cached: 11 halvings miss");
    assertEquals(0, SpillwayJoinCost.uncachedLines("BINARY_SEARCH", 1e6, 32L << 20, 64), "8 MB stay cached");
  }

  @Test void theGpuIndexJoinPaysTheLinksRandomReads() {
    Estimate e = estimate(4e9, 1e7);
    Candidate fast = new SpillwayJoinCost(gpuHost(20)).inlj(e, "BINARY_SEARCH", 4e9).get(1);
    Candidate slow = new SpillwayJoinCost(gpuHost(5)).inlj(e, "BINARY_SEARCH", 4e9).get(1);
    assertEquals(SpillwayJoinAlgorithm.GPU_INLJ, fast.algorithm());
    assertEquals("zero-copy", fast.transfer());
    assertTrue(slow.seconds() > 2.5 * fast.seconds(), fast + " vs " + slow);
    assertEquals(1, new SpillwayJoinCost(CPU_HOST).inlj(e, "BINARY_SEARCH", 4e9).size(), "no GPU, no GPU variant");
  }

  @Test void whereTheIndexJoinCannotRunExplainSaysWhy() {
    Function<SpillwayJoinAlgorithm, Optional<String>> whyNot = a -> a.indexed() && !a.gpu()
        ? Optional.of("no index join: table orders has no index on o_orderkey") : Optional.of("not in this build");
    SpillwayJoinChoice forced = choose(CPU_HOST, 1.5e8, 1e5, SpillwayDevice.CPU, SpillwayJoinAlgorithm.INLJ, whyNot,
        false);
    assertEquals(SpillwayJoinAlgorithm.CPU_NOPA, forced.chosen().algorithm());
    assertEquals("joinAlgorithm=inlj: no index join: table orders has no index on o_orderkey", forced.cpuBecause());
    SpillwayJoinChoice gpuOnCpu = choose(gpuHost(20), 1.5e8, 1e5, SpillwayDevice.CPU, SpillwayJoinAlgorithm.GPU_INLJ,
        whyNot, true);
    assertEquals("joinAlgorithm=gpu-inlj: device=cpu", gpuOnCpu.cpuBecause());
    // no hash table fits the GPU, where the pipelined GPU hash join would be chosen before any join node
    SpillwayJoinChoice auto = choose(gpuHost(20, 0), 4e9, 1e6, SpillwayDevice.AUTO, SpillwayJoinAlgorithm.AUTO,
        a -> a.gpu() ? Optional.of("not in this build") : Optional.empty(), true);
    assertEquals(SpillwayJoinAlgorithm.INLJ, auto.chosen().algorithm(), "the CPU index join serves");
    assertTrue(auto.cpuBecause().startsWith("gpu-inlj ") && auto.cpuBecause().endsWith("not in this build"),
        auto.cpuBecause());
  }
}
