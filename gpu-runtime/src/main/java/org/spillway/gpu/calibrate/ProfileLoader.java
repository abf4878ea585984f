package org.spillway.gpu.calibrate;

import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.function.Function;
import java.util.function.Supplier;
import org.spillway.gpu.device.GpuRuntime;

/**
 * Finds the machine profile of a process, once: the file {@code -Dspillway.profile} names, else the default file
 * ({@code spillway calibrate}'s); without either, on a machine with a usable CUDA device, a quick calibration
 * ({@link CalibrationOptions#FIRST_USE}) saved to the default file for the next process, so that planning does
 * not rest on assumed numbers; else (no GPU, {@code -Dspillway.calibrate.onFirstUse=false}, or the calibration
 * failed) the assumed profile. A measurement on first use and a failure each say so in one line.
 */
final class ProfileLoader {
  /** What loading needs of the machine; tests substitute one, so that no device is needed to decide. */
  interface Machine {
    /** Whether a usable CUDA device is present. */
    boolean hasGpu();

    /** Measures the machine quickly, writing progress to {@code progress}; fails with a runtime exception. */
    MachineProfile calibrate(PrintStream progress);

    /** The uncalibrated profile of this machine. */
    MachineProfile assumed();
  }

  /** The machine this process runs on. */
  static final Machine THIS_MACHINE = new Machine() {
    @Override public boolean hasGpu() {
      return GpuRuntime.device().isPresent();
    }

    @Override public MachineProfile calibrate(PrintStream progress) {
      return Calibrator.calibrate(CalibrationOptions.FIRST_USE, progress);
    }

    @Override public MachineProfile assumed() {
      return MachineProfiles.assumed(GpuRuntime.device());
    }
  };

  private final Machine machine;
  private final Function<String, String> properties;
  private final Supplier<Path> defaultPath;
  private final PrintStream messages;
  private volatile MachineProfile loaded;

  /**
   * Loads from {@code machine}, reading system properties through {@code properties}, the default profile file
   * from {@code defaultPath} (asked when loading: the Spillway home may move until then), and writing the one-line
   * messages to {@code messages}.
   */
  ProfileLoader(Machine machine, Function<String, String> properties, Supplier<Path> defaultPath,
      PrintStream messages) {
    this.machine = machine;
    this.properties = properties;
    this.defaultPath = defaultPath;
    this.messages = messages;
  }

  /** The loader of this process: its machine, system properties, Spillway home and stderr. */
  static ProfileLoader forThisProcess() {
    return new ProfileLoader(THIS_MACHINE, System::getProperty, CalibrationOptions::defaultProfilePath, System.err);
  }

  /** The profile, found (or measured) by the first call; concurrent first calls wait for that one. */
  MachineProfile current() {
    MachineProfile p = loaded;
    if (p == null) {
      synchronized (this) {
        if (loaded == null) {
          loaded = load();
        }
        p = loaded;
      }
    }
    return p;
  }

  /** Uses {@code profile} from now on (null: find it again on the next call); returns the one used so far. */
  synchronized MachineProfile replace(MachineProfile profile) {
    MachineProfile previous = loaded;
    loaded = profile;
    return previous;
  }

  /** The file the profile is read from: the one the property names, else the default. */
  Path path() {
    String named = named();
    return named != null ? Path.of(named) : defaultPath.get();
  }

  /** The file the property names, or null. */
  private String named() {
    String named = properties.apply(MachineProfiles.PROFILE_PROPERTY);
    return named == null || named.isBlank() ? null : named;
  }

  /** A named file must exist (it is an error to name a missing one); the default one may not, yet. */
  private MachineProfile load() {
    Path path = path();
    if (named() != null || Files.isRegularFile(path)) {
      try {
        return MachineProfile.read(path);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    if (!onFirstUse() || !machine.hasGpu()) {
      return machine.assumed();
    }
    return calibrate(path);
  }

  /** Whether a GPU machine without a profile calibrates: the property, true unless it says false. */
  boolean onFirstUse() {
    String value = properties.apply(MachineProfiles.ON_FIRST_USE_PROPERTY);
    if (value == null || value.isBlank() || value.equalsIgnoreCase("true")) {
      return true;
    }
    if (value.equalsIgnoreCase("false")) {
      return false;
    }
    throw new IllegalArgumentException("-D" + MachineProfiles.ON_FIRST_USE_PROPERTY + " must be true or false, not '"
        + value + "'");
  }

  /** Measures quickly and saves the profile to {@code path}; the assumed one where the measurement fails. */
  private MachineProfile calibrate(Path path) {
    long start = System.nanoTime();
    MachineProfile profile;
    try {
      profile = machine.calibrate(new PrintStream(OutputStream.nullOutputStream()));
    } catch (RuntimeException | LinkageError | OutOfMemoryError e) {
      messages.println("spillway: no machine profile at " + path + ", and measuring a quick one failed ("
          + describe(e) + "): planning on assumed numbers (run 'spillway calibrate')");
      return machine.assumed();
    }
    String measured = String.format(Locale.ROOT, "spillway: no machine profile at %s; measured a quick one in %.1f s",
        path, (System.nanoTime() - start) / 1e9);
    String advice = "(run 'spillway calibrate' for the full calibration)";
    try {
      profile.write(path);
      messages.println(measured + " " + advice);
    } catch (IOException | RuntimeException e) {
      messages.println(measured + " but could not save it (" + describe(e) + "), so this process alone uses it "
          + advice);
    }
    return profile;
  }

  private static String describe(Throwable e) {
    return e.getMessage() == null ? e.getClass().getSimpleName() : e.getClass().getSimpleName() + ": " + e.getMessage();
  }
}
