package org.spillway.adapter;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
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
import org.spillway.gpu.join.inlj.TranslationSlices;

/**
 * The windowed index join in the join cost model (digest 3.3): chosen for a probe that is selective against a large
 * indexed table and not for one that is not, the index kinds ordered by the lines a lookup misses, the GPU variant
 * priced by the link's random-read bandwidth, and the reasons EXPLAIN gives where it cannot run.
 */
class SpillwayIndexJoinCostTest {
  private static final long GIB = 1L << 30;
  private static final long WINDOW = 32L << 20;
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
        e -> indexExists && !e.buildLeft() ? cost.inlj(e, "RADIXSPLINE", indexed, WINDOW) : List.of());
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
    double few = cost.inlj(estimate(1e8, 1e5), "BTREE", 1e8, WINDOW).get(0).seconds();
    double many = cost.inlj(estimate(1e8, 1e7), "BTREE", 1e8, WINDOW).get(0).seconds();
    double bigger = cost.inlj(estimate(1e10, 1e5), "BTREE", 1e10, WINDOW).get(0).seconds();
    assertTrue(many > 50 * few, few + " vs " + many);
    assertTrue(bigger > few && bigger < 2 * few, few + " vs " + bigger);
  }

  @Test void kindsMissTheCacheInThePapersOrder() {
    double rows = Math.pow(2, 33);
    double binary = SpillwayIndexJoinCost.uncachedLines("BINARY_SEARCH", rows, 32L << 20, 64);
    double btree = SpillwayIndexJoinCost.uncachedLines("BTREE", rows, 32L << 20, 64);
    double harmonia = SpillwayIndexJoinCost.uncachedLines("HARMONIA", rows, 32L << 20, 64);
    double radixSpline = SpillwayIndexJoinCost.uncachedLines("RADIXSPLINE", rows, 32L << 20, 64);
    assertTrue(radixSpline < harmonia && harmonia < btree && btree < binary,
        radixSpline + " < " + harmonia + " < " + btree + " < " + binary);
    assertEquals(11, binary, 1e-9, "2^36 bytes of keys, 2^25 cached: 11 halvings miss");
    assertEquals(0, SpillwayIndexJoinCost.uncachedLines("BINARY_SEARCH", 1e6, 32L << 20, 64), "8 MB stay cached");
  }

  @Test void theGpuIndexJoinPaysTheLinksRandomReads() {
    Estimate e = estimate(4e9, 1e7);
    Candidate fast = new SpillwayJoinCost(gpuHost(20)).inlj(e, "BINARY_SEARCH", 4e9, WINDOW).get(1);
    Candidate slow = new SpillwayJoinCost(gpuHost(5)).inlj(e, "BINARY_SEARCH", 4e9, WINDOW).get(1);
    assertEquals(SpillwayJoinAlgorithm.GPU_INLJ, fast.algorithm());
    assertEquals("zero-copy", fast.transfer());
    assertTrue(slow.seconds() > 2.5 * fast.seconds(), fast + " vs " + slow);
    assertEquals(1, new SpillwayJoinCost(CPU_HOST).inlj(e, "BINARY_SEARCH", 4e9, WINDOW).size(), "no GPU, no GPU variant");
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

  /** {@code profile} with the index lookup rates calibration measures. */
  private static MachineProfile withLookups(MachineProfile p, MachineProfile.IndexLookupRates lookups) {
    return new MachineProfile(p.formatVersion(), p.createdAt(), p.host(), p.cpuCores(), p.cpuScanGbPerSecond(),
        p.gpu(), p.gpuUnavailableReason(), p.transferGbPerSecond(), p.unsupportedTransfers(),
        p.rawPinnedCopyGbPerSecond(), p.linkReads(), p.hostWriteGbPerSecond(), p.gpuMemoryReadGbPerSecond(),
        p.gpuPipelineRunMillis(), p.cpuPipelineGbPerSecond(), p.cpuJoinTuplesPerSecond(), p.calibrationMode(),
        p.gpuRowsNanosPerRow(), lookups);
  }

  /** Rates as calibration writes them: link lines within and beyond the TLB's reach, CPU lookups over 2 GiB. */
  private static MachineProfile.IndexLookupRates lookups(double within, double beyond, double binary,
      double radixSpline) {
    return new MachineProfile.IndexLookupRates(within, GIB, beyond, 32 * GIB, binary, radixSpline, 2 * GIB);
  }

  @Test void theCalibratedCpuLookupRateScalesTheCpuIndexJoin() {
    SpillwayIndexJoinCost assumed = new SpillwayJoinCost(CPU_HOST).indexJoins();
    SpillwayIndexJoinCost slow = new SpillwayJoinCost(withLookups(CPU_HOST, lookups(0, 0, 1e6, 4e6))).indexJoins();
    SpillwayIndexJoinCost fast = new SpillwayJoinCost(withLookups(CPU_HOST, lookups(0, 0, 4e6, 16e6))).indexJoins();
    // at the measured size, a lookup takes what was measured
    assertEquals(1e-6, slow.cpuLookupSeconds("BINARY_SEARCH", (2 * GIB) / 8.0), 1e-12);
    assertEquals(0.25e-6, slow.cpuLookupSeconds("RADIXSPLINE", (2 * GIB) / 8.0), 1e-12);
    for (String kind : List.of("BINARY_SEARCH", "BTREE", "HARMONIA", "RADIXSPLINE")) {
      double s = slow.cpuLookupSeconds(kind, 4e9);
      double f = fast.cpuLookupSeconds(kind, 4e9);
      assertEquals(4, s / f, 1e-9, kind + ": four times the measured rate, a quarter of the time");
      assertNotEquals(assumed.cpuLookupSeconds(kind, 4e9), s, kind);
    }
    assertTrue(slow.cpuLookupSeconds("BINARY_SEARCH", 4e9) > slow.cpuLookupSeconds("BINARY_SEARCH", 2.7e8),
        "a larger index misses more lines than the measured one");
    assertFalse(assumed.measured());
    assertTrue(slow.measured(), "a CPU host needs only the CPU rates");
  }

  @Test void beyondTheTlbReachSmallWindowsPayTheTranslatedRate() {
    MachineProfile gpu = withLookups(gpuHost(20), lookups(10, 1, 4e6, 16e6));
    SpillwayIndexJoinCost cost = new SpillwayJoinCost(gpu).indexJoins();
    assertEquals(1 / 10e9, cost.lineSecondsPerByte(8.0 * GIB, 1 << 22), 1e-20, "within the reach");
    // 64 GiB over 2048 partitions: 16 pages of 2 MiB each; 2^22 keys give 2048 lookups a partition
    double large = cost.lineSecondsPerByte(64.0 * GIB, 1 << 22);
    assertEquals((1 - 16 / 2048.0) / 10e9 + 16 / 2048.0 / 1e9, large, 1e-20);
    assertEquals(1 / 1e9, cost.lineSecondsPerByte(64.0 * GIB, 2048), 1e-20, "one lookup a partition: all translate");
    SpillwayIndexJoinCost unmeasured = new SpillwayJoinCost(gpuHost(20)).indexJoins();
    assertEquals(1 / (20e9 * SpillwayIndexJoinCost.ASSUMED_BEYOND_TLB_SHARE),
        unmeasured.lineSecondsPerByte(64.0 * GIB, 2048), 1e-20);
    assertFalse(unmeasured.measured());
    assertTrue(cost.measured());
    assertFalse(new SpillwayJoinCost(withLookups(gpuHost(20), new MachineProfile.IndexLookupRates(10.0, GIB, null,
        null, 4e6, 16e6, 2 * GIB))).indexJoins().measured(), "the region beyond the reach is missing");
  }

  /**
   * The benchmark's target shape on the H100 host's assumed numbers with measured lookup rates: R of 32 GiB indexed
   * (4.3e9 keys), a probe of 0.01% to 20% of them. The GPU index join at low selectivity, a hash join at high.
   */
  @Test void onAGpuHostTheIndexJoinWinsAtLowSelectivityAndAHashJoinAtHigh() {
    MachineProfile h100 = withLookups(AssumedGpuSite.h100(true).profile(), lookups(20, 5, 1.5e6, 3e6));
    double r = 32.0 * GIB / 8;
    Function<SpillwayJoinAlgorithm, Optional<String>> none = a -> Optional.empty();
    for (double selectivity : new double[] {1e-4, 1e-3, 1e-2}) {
      SpillwayJoinChoice low = choose(h100, r, r * selectivity, SpillwayDevice.AUTO, SpillwayJoinAlgorithm.AUTO, none,
          true);
      assertEquals(SpillwayJoinAlgorithm.GPU_INLJ, low.chosen().algorithm(), selectivity + ": " + low);
    }
    SpillwayJoinChoice high = choose(h100, r, r * 0.2, SpillwayDevice.AUTO, SpillwayJoinAlgorithm.AUTO, none, true);
    assertFalse(high.chosen().algorithm().indexed(), high.toString());
    assertEquals(SpillwayJoinAlgorithm.CPU_NOPA, high.chosen().algorithm(),
        "the pipelined hash join (its table fits the GPU) stands for GPU NOPA: " + high);
    // forced onto the GPU, the index join still wins where it is the faster GPU join
    SpillwayJoinChoice onGpu = choose(h100, r, r * 1e-3, SpillwayDevice.GPU, SpillwayJoinAlgorithm.AUTO, none, true);
    assertEquals(SpillwayJoinAlgorithm.GPU_INLJ, onGpu.chosen().algorithm(), onGpu.toString());
  }

  @Test void underAutoTheGpuIndexJoinCompetesWithTheGpuHashJoinItWouldReplace() {
    MachineProfile h100 = withLookups(AssumedGpuSite.h100(true).profile(), lookups(20, 5, 1.5e6, 3e6));
    double r = 32.0 * GIB / 8;
    SpillwayJoinCost cost = new SpillwayJoinCost(h100);
    Estimate selective = estimate(r, r * 1e-3);
    Candidate gpuInlj = cost.inlj(selective, "RADIXSPLINE", r, WINDOW).get(1);
    Candidate gpuNopa = cost.gpu(new Estimate(r * 1e-3, r, r * 1e-3, null, true)).get(0);
    assertEquals("gpu", gpuNopa.placement(), "the probe's table fits the GPU");
    assertTrue(gpuInlj.seconds() < gpuNopa.seconds(), gpuInlj + " vs " + gpuNopa);
    // the same join where the GPU index join is slower than the GPU hash join: dropped, as every GPU join node
    Function<SpillwayJoinAlgorithm, Optional<String>> none = a -> Optional.empty();
    SpillwayJoinChoice slowLink = choose(withLookups(h100, lookups(0.01, 0.001, 1.5e6, 3e6)), r, r * 1e-3,
        SpillwayDevice.AUTO, SpillwayJoinAlgorithm.AUTO, none, true);
    assertNotEquals(SpillwayJoinAlgorithm.GPU_INLJ, slowLink.chosen().algorithm(), slowLink.toString());
    assertTrue(slowLink.runnerUp() == null || slowLink.runnerUp().algorithm() != SpillwayJoinAlgorithm.GPU_INLJ,
        slowLink.toString());
  }

  /** One launch over a window's partitions (the unlimited reach): a larger window shares more translations. */
  @Test void aLargerWindowSpreadsTranslationsOverMoreLookups() {
    MachineProfile h100 = withLookups(AssumedGpuSite.h100(true).profile(), lookups(20, 2, 1.5e6, 3e6));
    double r = 64.0 * GIB / 8;
    SpillwayJoinCost cost = new SpillwayJoinCost(h100);
    Estimate e = estimate(r, 1e8);
    String before = System.getProperty(TranslationSlices.PROPERTY);
    try {
      System.setProperty(TranslationSlices.PROPERTY, "unlimited");
      double small = cost.inlj(e, "RADIXSPLINE", r, 1L << 20).get(1).seconds();
      double paper = cost.inlj(e, "RADIXSPLINE", r, WINDOW).get(1).seconds();
      assertTrue(small > 1.5 * paper, small + " vs " + paper);
      assertEquals(cost.inlj(e, "RADIXSPLINE", r, 1L << 20).get(0).seconds(), cost.inlj(e, "RADIXSPLINE", r, WINDOW)
          .get(0).seconds(), "the CPU's windows of either size keep every thread busy");
      System.clearProperty(TranslationSlices.PROPERTY);  // the engine's reach: launches over 1 GiB of the index each
      double sliced = cost.inlj(e, "RADIXSPLINE", r, WINDOW).get(1).seconds();
      assertTrue(sliced < paper, sliced + " vs " + paper);
      assertEquals(sliced, cost.inlj(e, "RADIXSPLINE", r, 1L << 20).get(1).seconds(), 1e-9,
          "within the reach every lookup reads at the rate measured there, whatever the window");
    } finally {
      if (before == null) {
        System.clearProperty(TranslationSlices.PROPERTY);
      } else {
        System.setProperty(TranslationSlices.PROPERTY, before);
      }
    }
  }

  /**
   * The CPU join's threads take its windows in rounds: a probe in fewer windows than threads runs on as many threads
   * (the target run's probes of 0.01% to 1% within one to eleven 32 MiB windows), one a few windows over a round
   * leaves most threads idle in the last; the planner charges the engine's balanced windows, a round of all threads.
   */
  @Test void theCpuJoinTakesItsWindowsInRounds() {
    SpillwayIndexJoinCost cost = new SpillwayJoinCost(CPU_HOST).indexJoins();
    Estimate e = new Estimate(4e9, 1e6, 0, new KeyStatistics(1L, (long) 16e9, 4e9, true), false);
    double all = cost.cpuJoinSeconds(e, "RADIXSPLINE", 4e9, 16);
    assertEquals(16, cost.cpuJoinSeconds(e, "RADIXSPLINE", 4e9, 1) / all, 1e-9);
    assertEquals(16 / 11.0, cost.cpuJoinSeconds(e, "RADIXSPLINE", 4e9, 11) / all, 1e-9);
    assertEquals(16 / 8.5, cost.cpuJoinSeconds(e, "RADIXSPLINE", 4e9, 17) / all, 1e-9, "two rounds for 17");
    assertEquals(all + SpillwayJoinCost.materialized(e, 16), cost.candidates(e, "RADIXSPLINE", 4e9, WINDOW).get(0)
        .seconds(), 1e-12, "a probe within one window is cut for every thread");
  }

  /**
   * A GPU RadixSpline lookup reads the column at its estimate first: where the estimate answers it (evenly spaced
   * keys) it reads one line over the link, else it walks the error window a line at a time, two lines on average,
   * fewer than a binary search over the window; the planner, not knowing its keys' spacing, charges the walk.
   */
  @Test void aRadixSplineLookupThatFindsItsKeyAtTheEstimateReadsOneLine() {
    MachineProfile gpu = gpuHost(20);
    SpillwayJoinCost joins = new SpillwayJoinCost(gpu);
    double binarySearch = SpillwayIndexJoinCost.uncachedLines("RADIXSPLINE", 4e9, SpillwayIndexJoinCost.GPU_L2_BYTES,
        SpillwayIndexJoinCost.GPU_LINE_BYTES);
    double search = SpillwayIndexJoinCost.GPU_RADIX_SPLINE_WALK_LINES;
    assertEquals(2, search, 1e-12, "16 keys (half the error bound) from the estimate: its line and the next");
    assertTrue(binarySearch > search, "a binary search over the window's 66 keys reads " + binarySearch + " lines");
    assertEquals(search, joins.indexJoins().gpuLinesPerLookup("RADIXSPLINE", 4e9), 1e-12);
    assertEquals(1, new SpillwayIndexJoinCost(joins, gpu, 1).gpuLinesPerLookup("RADIXSPLINE", 4e9), 1e-12);
    assertEquals((1 + search) / 2, new SpillwayIndexJoinCost(joins, gpu, 0.5).gpuLinesPerLookup("RADIXSPLINE", 4e9),
        1e-12);
    assertEquals(0, new SpillwayIndexJoinCost(joins, gpu, 1).gpuLinesPerLookup("RADIXSPLINE", 1e5), 1e-12,
        "a column within the L2 cache reads nothing over the link");
    assertEquals(joins.indexJoins().gpuLinesPerLookup("BINARY_SEARCH", 4e9),
        new SpillwayIndexJoinCost(joins, gpu, 1).gpuLinesPerLookup("BINARY_SEARCH", 4e9), "only RadixSpline estimates");
  }
}
