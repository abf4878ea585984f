package org.spillway.adapter.cli;

import org.spillway.gpu.calibrate.CalibrationOptions;
import org.spillway.gpu.calibrate.Calibrator;
import org.spillway.gpu.calibrate.MachineProfile;
import org.spillway.gpu.calibrate.MachineProfiles;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.Callable;

/** Measures this machine (link, GPU memory, CPU scan) and writes the profile the cost model reads, or shows it. */
@Command(name = "calibrate", mixinStandardHelpOptions = true,
    description = {"Measure link bandwidth per transfer method, sequential and random reads over the link,",
        "host writes, GPU memory and CPU scan bandwidth; write the machine profile (JSON).",
        "Without a GPU it writes a CPU-only profile and says so. Without a profile, a GPU machine measures a",
        "quick one on first use (-Dspillway.calibrate.onFirstUse=false turns that off)."})
public final class CalibrateCommand implements Callable<Integer> {
  @Option(names = "--out", paramLabel = "FILE",
      description = "Profile to write, or with --show to read (default: ~/.spillway/machine-profile.json;"
          + " --show reads -Dspillway.profile where that is set).")
  Path out;

  @Option(names = "--quick", description = "Smaller buffers and fewer repetitions (seconds, less precise).")
  boolean quick;

  @Option(names = "--show", description = "Measure nothing: say which profile planning uses and how it was made.")
  boolean show;

  @Override public Integer call() throws Exception {
    if (show) {
      if (quick) {
        throw new IllegalArgumentException("--show measures nothing: it takes no --quick");
      }
      show(out != null ? out : MachineProfiles.path(), System.out);
      return 0;
    }
    Path target = out != null ? out : CalibrationOptions.defaultProfilePath();
    MachineProfile profile = Calibrator.calibrate(
        quick ? CalibrationOptions.QUICK : CalibrationOptions.FULL, System.err);
    profile.write(target);
    System.err.println("Machine profile written to " + target + " (" + MachineProfiles.calibratedLabel(profile)
        + (profile.cpuOnly() ? "; CPU only: no usable GPU)" : ")"));
    return 0;
  }

  /** The profile at {@code path} in a few lines: how it was made, where, and the numbers planning leans on most. */
  static void show(Path path, PrintStream out) throws Exception {
    if (!Files.isRegularFile(path)) {
      out.println("No machine profile at " + path + ": planning uses assumed numbers (uncalibrated), or on a GPU"
          + " machine measures a quick profile on first use; 'spillway calibrate' measures the full one.");
      return;
    }
    MachineProfile p = MachineProfile.read(path);
    String mode = p.calibrationMode() != null ? p.calibrationMode() : "not recorded";
    out.println(path + ": " + MachineProfiles.calibratedLabel(p) + " (mode " + mode + ") on " + p.host() + " at "
        + p.createdAt());
    out.println(p.cpuOnly() ? "  CPU only: " + p.gpuUnavailableReason()
        : String.format(Locale.ROOT, "  %s: pinned copy %s GB/s, zero-copy %s GB/s, GPU memory %s GB/s", p.gpu().name(),
            rate(p.transferGbPerSecond().get("pinned copy")), rate(p.transferGbPerSecond().get("zero-copy")),
            rate(p.gpuMemoryReadGbPerSecond())));
    out.println(String.format(Locale.ROOT, "  %d CPU cores: scan %s GB/s, Q6-shaped pipeline %s GB/s", p.cpuCores(),
        rate(p.cpuScanGbPerSecond()), rate(p.cpuPipelineGbPerSecond())));
    MachineProfile.IndexLookupRates lookups = p.indexLookups();
    out.println(lookups == null ? "  index lookups: unmeasured (the index join's costs are assumed)"
        : String.format(Locale.ROOT, "  index lookups: binary search %.2f M/s, RadixSpline %.2f M/s per core;"
            + " random 128 B link reads %s within the TLB's reach, %s beyond it",
            lookups.cpuBinarySearchPerSecondPerCore() / 1e6, lookups.cpuRadixSplinePerSecondPerCore() / 1e6,
            gbPerSecond(lookups.linkRandomLineSmallGbPerSecond()),
            gbPerSecond(lookups.linkRandomLineLargeGbPerSecond())));
  }

  private static String gbPerSecond(Double rate) {
    return rate == null ? "unmeasured" : rate(rate) + " GB/s";
  }

  private static String rate(Double gbPerSecond) {
    return gbPerSecond == null ? "unmeasured" : String.format(Locale.ROOT, "%.2f", gbPerSecond);
  }
}
