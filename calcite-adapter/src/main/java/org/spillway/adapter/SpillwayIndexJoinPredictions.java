package org.spillway.adapter;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.spillway.adapter.SpillwayJoinCost.Candidate;
import org.spillway.adapter.SpillwayJoinCost.Estimate;
import org.spillway.adapter.SpillwayStatistics.KeyStatistics;
import org.spillway.gpu.bench.BenchReport;
import org.spillway.gpu.calibrate.MachineProfile;
import org.spillway.gpu.calibrate.MachineProfiles;
import org.spillway.gpu.plan.IndexJoinNode;

/**
 * What the join cost model predicts and picks at each point of the index join benchmark's CSV (gpu-runtime's
 * {@code IndexJoinBenchmark}), on a machine profile: the predicted time of every join the benchmark measured, the
 * model's pick among them against the fastest measured (issue #15's target: the pick is the fastest or within 10% of
 * it), and the planner's own choice among every algorithm (where a GPU hash table fits, the pipelined hash join, which
 * EXPLAIN shows as cpu-nopa until its pipeline runs on the GPU). R holds sorted unique keys with gaps (no perfect hash)
 * and is the indexed side; the hash joins build on S, as the benchmark's do.
 *
 * <p>{@code SpillwayIndexJoinPredictions index-join.csv [PROFILE.json]} (the process's profile without one) writes
 * {@code index-join-predicted.csv} (a row per measured point) and {@code index-join-picks.csv} (a row per case)
 * beside the CSV, and prints both. It runs anywhere: the profile says what machine it predicts.
 */
public final class SpillwayIndexJoinPredictions {
  /** A pick within this factor of the fastest measured join meets the target. */
  static final double TOLERANCE = 1.10;
  /**
   * R's keys are evenly spaced ({@code SortedKeys}: row r holds 4r), so RadixSpline's estimate answers every lookup: a
   * key R holds is at its estimate, a key in a gap between the estimate's row and its neighbour.
   */
  static final double BENCHMARK_EXACT_SPLINE_SHARE = 1;

  private SpillwayIndexJoinPredictions() {}

  /** One case of the benchmark: its sweep, x (the case's label), R and S rows and window. */
  private record Case(String sweep, String label, double rRows, double sRows, long windowBytes) {}

  /** The two tables: per point and per case. */
  record Tables(BenchReport predicted, BenchReport picks) {}

  static Tables predict(BenchReport measured, MachineProfile profile) {
    SpillwayJoinCost cost = new SpillwayJoinCost(profile);
    SpillwayIndexJoinCost inlj = new SpillwayIndexJoinCost(cost, profile, BENCHMARK_EXACT_SPLINE_SHARE);
    BenchReport predicted = new BenchReport("Index join benchmark: measured and predicted", List.of("sweep", "case",
        "selectivity %", "R GiB", "join", "device", "measured ms", "predicted ms", "predicted / measured", "line"));
    BenchReport picks = new BenchReport("Index join benchmark: the cost model's picks", List.of("sweep", "case",
        "selectivity %", "R GiB", "fastest", "fastest ms", "model picks", "pick ms", "pick / fastest", "within 10%",
        "planner chooses"));
    Map<Case, List<Integer>> cases = new LinkedHashMap<>();
    for (int row = 0; row < measured.rowCount(); row++) {
      String label = measured.cell(row, "case").toString();
      String line = line(measured, row);
      Case c = new Case(measured.cell(row, "sweep").toString(), label.substring(0, label.length() - line.length())
          .trim(), number(measured.cell(row, "R rows")), number(measured.cell(row, "S rows")),
          Math.round(number(measured.cell(row, "window MiB")) * (1 << 20)));
      cases.computeIfAbsent(c, k -> new ArrayList<>()).add(row);
    }
    cases.forEach((c, rows) -> {
      Object selectivity = measured.cell(rows.get(0), "selectivity %");
      Object gib = measured.cell(rows.get(0), "R GiB");
      String fastest = null;
      double fastestMs = Double.POSITIVE_INFINITY;
      String pick = null;
      double pickPredicted = Double.POSITIVE_INFINITY;
      double pickMs = Double.NaN;
      for (int row : rows) {
        String join = measured.cell(row, "join").toString();
        String device = measured.cell(row, "device").toString();
        double ms = number(measured.cell(row, "ms"));
        double predictedMs = predictedSeconds(cost, inlj, c, join, device, windows(measured, row, c)) * 1e3;
        String line = line(measured, row);
        predicted.row(c.sweep(), c.label(), selectivity, gib, join, device, ms, predictedMs, predictedMs / ms, line);
        if (Double.isNaN(ms) || Double.isNaN(predictedMs)) {
          continue;
        }
        if (ms < fastestMs) {
          fastestMs = ms;
          fastest = line;
        }
        if (predictedMs < pickPredicted) {
          pickPredicted = predictedMs;
          pick = line;
          pickMs = ms;
        }
      }
      double ratio = pickMs / fastestMs;
      picks.row(c.sweep(), c.label(), selectivity, gib, fastest, fastestMs, pick, pickMs, ratio,
          pick == null ? "" : ratio <= TOLERANCE ? "yes" : "no", plannerChoice(cost, inlj, c));
    });
    return new Tables(predicted, picks);
  }

  /**
   * The join of a row as the benchmark's {@code line} names it: join and device, and for a GPU index join at a
   * finite translation reach the reach too (several rows of one case then share join and device); join and device in
   * a CSV without the column.
   */
  private static String line(BenchReport measured, int row) {
    return measured.columns().contains("line") ? measured.cell(row, "line").toString()
        : measured.cell(row, "join") + " " + measured.cell(row, "device");
  }

  /**
   * The windows the CPU index join of a row cut S into: the benchmark's {@code windows} column, or, in a CSV without
   * it, S over the window (the join then cut the probe by the window's budget alone).
   */
  private static double windows(BenchReport measured, int row, Case c) {
    double windows = measured.columns().contains("windows") ? number(measured.cell(row, "windows")) : Double.NaN;
    return windows > 0 ? windows : Math.ceil(c.sRows() / Math.max(1, c.windowBytes() / Long.BYTES));
  }

  /**
   * The model's time of a join the benchmark ran, as the benchmark times it, or NaN for one the model does not know:
   * the index joins' join proper (the GPU's windows by their CUDA events, the CPU's lookups in {@code windows}
   * windows and its emission), the GPU hash joins without staging keys into pinned memory or handing pairs back (the
   * benchmark's R and S lie in pinned memory, and its hash joins aggregate).
   */
  private static double predictedSeconds(SpillwayJoinCost cost, SpillwayIndexJoinCost inlj, Case c, String join,
      String device, double windows) {
    boolean gpu = device.equals("gpu");
    if (join.startsWith("inlj/")) {
      String kind = join.substring("inlj/".length());
      if (gpu) {
        return inlj.hasGpu() ? inlj.gpuJoinSeconds(indexed(c), kind, c.rRows(), c.windowBytes()) : Double.NaN;
      }
      return inlj.cpuJoinSeconds(indexed(c), kind, c.rRows(), windows);
    }
    Estimate onS = hashed(c);
    double notRun = cost.staging(onS) + cost.handBack(onS);
    Optional<Candidate> model = switch (join + " " + device) {
      case "nopa gpu" -> cost.gpu(onS).stream().filter(x -> x.algorithm() == SpillwayJoinAlgorithm.NOPA).findFirst();
      case "triton gpu" -> cost.gpu(onS).stream().filter(x -> x.algorithm() == SpillwayJoinAlgorithm.TRITON)
          .findFirst();
      case "cpu-nopa cpu" -> Optional.of(cost.cpu(onS).get(0));
      case "cpu-radix cpu" -> Optional.of(cost.cpu(onS).get(1));
      default -> Optional.empty();
    };
    return model.map(m -> m.seconds() - (m.algorithm().gpu() ? notRun : 0)).orElse(Double.NaN);
  }

  /** What the planner would choose for the case among every algorithm and both orientations, on any device. */
  private static String plannerChoice(SpillwayJoinCost cost, SpillwayIndexJoinCost inlj, Case c) {
    SpillwayJoinChoice choice = SpillwayJoinChoice.choose(cost, List.of(hashed(c), indexed(c)), SpillwayDevice.AUTO,
        SpillwayJoinAlgorithm.AUTO, a -> Optional.empty(), true, x -> true,
        e -> e.buildLeft() ? List.of() : List.of(inlj.candidates(e, "RADIXSPLINE", c.rRows(), c.windowBytes()),
            inlj.candidates(e, "BINARY_SEARCH", c.rRows(), c.windowBytes())).stream().flatMap(List::stream).toList());
    Candidate chosen = choice.chosen();
    String text = chosen.algorithm() + (chosen.variant() != null ? "/" + chosen.variant() : "") + " "
        + SpillwayJoinChoice.time(chosen.seconds());
    if (chosen.algorithm() == SpillwayJoinAlgorithm.CPU_NOPA) {  // the pipelined join: its GPU time where it fits
      Optional<Candidate> onGpu = cost.gpu(chosen.buildLeft() ? hashed(c) : indexed(c)).stream()
          .filter(x -> x.algorithm() == SpillwayJoinAlgorithm.NOPA && "gpu".equals(x.placement())).findFirst();
      text += onGpu.map(g -> ", in a gpu pipeline " + SpillwayJoinChoice.time(g.seconds())).orElse("");
    }
    return text;
  }

  /** Built on R, the indexed side (the index join's orientation): unique keys with gaps. */
  private static Estimate indexed(Case c) {
    return new Estimate(c.rRows(), c.sRows(), c.sRows(), new KeyStatistics(0L, (long) (4 * c.rRows()), c.rRows(),
        true), false);
  }

  /** Built on S (the hash joins' orientation): keys drawn from R's range, with repeats. */
  private static Estimate hashed(Case c) {
    return new Estimate(c.sRows(), c.rRows(), c.sRows(), new KeyStatistics(0L, (long) (4 * c.rRows()), c.sRows(),
        false), true);
  }

  private static double number(Object cell) {
    return cell instanceof Number n ? n.doubleValue() : Double.NaN;
  }

  public static void main(String[] args) throws IOException {
    if (args.length < 1 || args.length > 2) {
      System.err.println("usage: SpillwayIndexJoinPredictions index-join.csv [PROFILE.json]");
      System.exit(2);
    }
    Path csv = Path.of(args[0]);
    MachineProfile profile = args.length > 1 ? MachineProfile.read(Path.of(args[1])) : MachineProfiles.current();
    Tables tables = predict(BenchReport.readCsv("index join", csv), profile);
    Path dir = csv.toAbsolutePath().getParent();
    tables.predicted().writeCsv(dir.resolve("index-join-predicted.csv"));
    tables.picks().writeCsv(dir.resolve("index-join-picks.csv"));
    System.out.println("profile: " + profile.host() + (MachineProfiles.calibrated(profile) ? "" : " (assumed)")
        + (profile.indexLookups() == null ? ", index lookup rates assumed" : "") + "; windows as each case ran them"
        + " (the engine's default: 1/64 of the indexed keys' bytes, from " + SpillwayJoin.windowLabel(
        IndexJoinNode.DEFAULT_WINDOW_BYTES) + " to " + SpillwayJoin.windowLabel(IndexJoinNode.MAX_SIZED_WINDOW_BYTES)
        + ")");
    System.out.println(tables.predicted().toTable());
    System.out.println(tables.picks().toTable());
  }
}
