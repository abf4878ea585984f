package org.spillway.adapter.cli;

import org.spillway.gpu.calibrate.CalibrationOptions;
import org.spillway.gpu.calibrate.Calibrator;
import org.spillway.gpu.calibrate.MachineProfile;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.nio.file.Path;
import java.util.concurrent.Callable;

/** Measures this machine (link, GPU memory, CPU scan) and writes the profile the cost model reads. */
@Command(name = "calibrate", mixinStandardHelpOptions = true,
    description = {"Measure link bandwidth per transfer method, sequential and random reads over the link,",
        "host writes, GPU memory and CPU scan bandwidth; write the machine profile (JSON).",
        "Without a GPU it writes a CPU-only profile and says so."})
public final class CalibrateCommand implements Callable<Integer> {
  @Option(names = "--out", paramLabel = "FILE",
      description = "Profile to write (default: ~/.spillway/machine-profile.json).")
  Path out;

  @Option(names = "--quick", description = "Smaller buffers and fewer repetitions (seconds, less precise).")
  boolean quick;

  @Override public Integer call() throws Exception {
    Path target = out != null ? out : CalibrationOptions.defaultProfilePath();
    MachineProfile profile = Calibrator.calibrate(
        quick ? CalibrationOptions.QUICK : CalibrationOptions.FULL, System.err);
    profile.write(target);
    System.err.println("Machine profile written to " + target
        + (profile.cpuOnly() ? " (CPU only: no usable GPU)" : ""));
    return 0;
  }
}
