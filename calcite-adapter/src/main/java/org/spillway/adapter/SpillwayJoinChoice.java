package org.spillway.adapter;

import org.spillway.adapter.SpillwayJoinCost.Candidate;
import org.spillway.adapter.SpillwayJoinCost.Estimate;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.ToDoubleFunction;

/**
 * The join algorithm a {@link SpillwayJoin} runs and why: the cheapest runnable candidate of the cost model
 * (or the forced one), the runner-up, and, where the GPU was asked for or would have been faster but cannot
 * run, the reason the CPU runs instead.
 */
record SpillwayJoinChoice(Candidate chosen, Candidate runnerUp, String cpuBecause, boolean calibrated) {
  static final String NO_GPU_IN_PROFILE = "the machine profile has no GPU (run: spillway calibrate)";
  /** A GPU pipeline's probe decides a join's orientation where it takes at most this share of the CPU's time. */
  static final double GPU_ORIENTATION_SHARE = 0.6;
  /** With {@code device=gpu}, where it takes at most this much more than the CPU's time. */
  static final double GPU_ORIENTATION_SLACK_SECONDS = 2e-3;

  /**
   * Chooses among the candidates of every orientation. {@code whyNot} says why a GPU algorithm cannot run
   * here (no device, not in this build), empty when it can; the CPU algorithms always can.
   */
  static SpillwayJoinChoice choose(SpillwayJoinCost cost, List<Estimate> orientations, SpillwayDevice device,
      SpillwayJoinAlgorithm forced, Function<SpillwayJoinAlgorithm, Optional<String>> whyNot, boolean calibrated) {
    return choose(cost, orientations, device, forced, whyNot, calibrated, c -> true);
  }

  /**
   * As above, among the candidates that {@code implemented} admits: an orientation that only some algorithms run
   * (a semi- or anti-join built on its returned side: only the CPU NOPA probe marks build rows) offers only those.
   */
  static SpillwayJoinChoice choose(SpillwayJoinCost cost, List<Estimate> orientations, SpillwayDevice device,
      SpillwayJoinAlgorithm forced, Function<SpillwayJoinAlgorithm, Optional<String>> whyNot, boolean calibrated,
      Predicate<Candidate> implemented) {
    return choose(cost, orientations, device, forced, whyNot, calibrated, implemented, e -> List.of());
  }

  /**
   * As above, with the candidates of the joins through an index that {@code indexed} finds for an orientation (the
   * windowed index join, where the build side is a table with an index on its key; a GPU one only where the device
   * may be the GPU).
   */
  static SpillwayJoinChoice choose(SpillwayJoinCost cost, List<Estimate> orientations, SpillwayDevice device,
      SpillwayJoinAlgorithm forced, Function<SpillwayJoinAlgorithm, Optional<String>> whyNot, boolean calibrated,
      Predicate<Candidate> implemented, Function<Estimate, List<Candidate>> indexed) {
    return choose(cost, orientations, device, forced, whyNot, calibrated, implemented, indexed, e -> Double.NaN);
  }

  /**
   * As above, where {@code probedOnGpu} gives an orientation's time as a probe stage of a GPU pipeline (NaN where no
   * GPU pipeline could probe it: keys not unique, a table over the budget, a probe side that does not stream from a
   * scan). The CPU NOPA candidate stands for the pipelined probe on either device, so the orientation may follow the
   * device its pipeline will likely run on: Q9 builds on partsupp and orders and streams lineitem through every probe
   * on the GPU, where the CPU's cheaper orientation builds on lineitem's joined rows. The GPU's time replaces the
   * CPU's only where it is at most {@link #GPU_ORIENTATION_SHARE} of the CPU's best orientation (with
   * {@code device=gpu}, at most {@link #GPU_ORIENTATION_SLACK_SECONDS} above it): a GPU build side costs its rows' trip
   * from Java arrays, which the model knows only roughly, and an orientation chosen for the GPU is the worse one where
   * its pipeline then runs on the CPU (Q12 would build all of orders to probe a few lineitem rows; Q4 on
   * {@code device=gpu} would build its semi-join on lineitem).
   */
  static SpillwayJoinChoice choose(SpillwayJoinCost cost, List<Estimate> orientations, SpillwayDevice device,
      SpillwayJoinAlgorithm forced, Function<SpillwayJoinAlgorithm, Optional<String>> whyNot, boolean calibrated,
      Predicate<Candidate> implemented, Function<Estimate, List<Candidate>> indexed,
      ToDoubleFunction<Estimate> probedOnGpu) {
    List<Candidate> all = new ArrayList<>();
    List<Candidate> gpuProbed = new ArrayList<>();
    double cpuPipelined = orientations.stream().flatMap(e -> cost.cpu(e).stream())
        .filter(c -> c.algorithm() == SpillwayJoinAlgorithm.CPU_NOPA && implemented.test(c))
        .mapToDouble(Candidate::seconds).min().orElse(Double.POSITIVE_INFINITY);
    for (Estimate e : orientations) {
      double onGpu = device == SpillwayDevice.CPU || forced != SpillwayJoinAlgorithm.AUTO ? Double.NaN
          : probedOnGpu.applyAsDouble(e);
      boolean gpuWins = device == SpillwayDevice.GPU ? onGpu <= cpuPipelined + GPU_ORIENTATION_SLACK_SECONDS
          : onGpu <= GPU_ORIENTATION_SHARE * cpuPipelined;
      for (Candidate c : cost.cpu(e)) {
        if (c.algorithm() == SpillwayJoinAlgorithm.CPU_NOPA && gpuWins) {
          c = c.withSeconds(onGpu);
          gpuProbed.add(c);
        }
        all.add(c);
      }
      if (device != SpillwayDevice.CPU) {
        all.addAll(cost.gpu(e));
      }
      indexed.apply(e).stream().filter(c -> device != SpillwayDevice.CPU || !c.algorithm().gpu()).forEach(all::add);
    }
    all.removeIf(implemented.negate());
    // NOPA with its table in GPU memory is the pipelined hash join probed by a GPU pipeline: the CPU NOPA candidate
    // stands for it (its probe is a stage of the probe side's pipeline, which runs on the device its own cost
    // picks), unless the connection forces an algorithm. Where such a table fits, the hash joins that run as nodes
    // of their own (Triton, NOPA with a hybrid or host table) are not offered either: they hand every pair back over
    // the link and through Java arrays; they are for build sides that do not fit. An index join (on either device)
    // builds no table and reads only the lines its lookups need: it stays where it beats the GPU hash join it would
    // replace (the CPU NOPA candidate's own time is the pipeline's on the CPU).
    boolean fitsGpu = false;
    if (forced == SpillwayJoinAlgorithm.AUTO && device != SpillwayDevice.CPU) {
      double gpuHashJoin = all.stream().filter(SpillwayJoinChoice::gpuTable).mapToDouble(Candidate::seconds).min()
          .orElse(Double.NaN);
      fitsGpu = !Double.isNaN(gpuHashJoin);
      if (fitsGpu) {
        all.removeIf(c -> c.algorithm().indexed() ? c.seconds() >= gpuHashJoin : c.algorithm().gpu());
      }
    }
    all.sort(Comparator.comparingDouble(Candidate::seconds));
    List<Candidate> runnable = all.stream().filter(c -> !c.algorithm().gpu() || whyNot.apply(c.algorithm()).isEmpty())
        .toList();
    Candidate bestCpu = runnable.stream().filter(c -> !c.algorithm().gpu()).findFirst().orElseThrow();
    Candidate chosen;
    String because = null;
    if (forced != SpillwayJoinAlgorithm.AUTO) {
      Optional<Candidate> wanted = all.stream().filter(c -> c.algorithm() == forced).findFirst();
      chosen = wanted.filter(runnable::contains).orElse(bestCpu);
      if (chosen != wanted.orElse(null)) {
        because = "joinAlgorithm=" + forced + ": " + (device == SpillwayDevice.CPU && forced.gpu() ? "device=cpu"
            : whyNot.apply(forced).orElse(NO_GPU_IN_PROFILE));
      }
    } else if (device == SpillwayDevice.GPU) {
      // an orientation a GPU pipeline can probe first where it is not much slower than the other on the CPU
      Candidate pipelined = fitsGpu ? runnable.stream().filter(gpuProbed::contains).findFirst()
          .or(() -> runnable.stream().filter(c -> c.algorithm() == SpillwayJoinAlgorithm.CPU_NOPA).findFirst())
          .orElse(null) : null;
      Candidate indexedGpu = runnable.stream().filter(c -> c.algorithm() == SpillwayJoinAlgorithm.GPU_INLJ)
          .findFirst().orElse(null);
      chosen = pipelined != null ? (indexedGpu != null ? indexedGpu : pipelined)
          : runnable.stream().filter(c -> c.algorithm().gpu()).findFirst().orElse(bestCpu);
      if (pipelined == null && !chosen.algorithm().gpu()) {
        because = whyNot.apply(SpillwayJoinAlgorithm.NOPA).or(() -> whyNot.apply(SpillwayJoinAlgorithm.TRITON))
            .orElse(NO_GPU_IN_PROFILE);
      }
    } else {
      chosen = runnable.get(0);
      Candidate fastest = all.get(0);
      if (fastest != chosen && device == SpillwayDevice.AUTO) {
        because = fastest.summary() + " would be faster: " + whyNot.apply(fastest.algorithm()).orElseThrow();
      }
    }
    Candidate picked = chosen;
    Candidate runnerUp = runnable.stream().filter(c -> c.algorithm() != picked.algorithm()).findFirst().orElse(null);
    return new SpillwayJoinChoice(chosen, runnerUp, because, calibrated);
  }

  /** Whether a candidate is NOPA with its table in GPU memory. */
  private static boolean gpuTable(Candidate c) {
    return c.algorithm() == SpillwayJoinAlgorithm.NOPA && "gpu".equals(c.placement());
  }

  /** A time for EXPLAIN: milliseconds with three significant digits, or microseconds below 0.1 ms. */
  static String time(double seconds) {
    double ms = seconds * 1e3;
    if (ms < 0.1) {
      return String.format(Locale.ROOT, "%.3g us", seconds * 1e6);
    }
    return String.format(Locale.ROOT, "%.3g ms", ms);
  }
}
