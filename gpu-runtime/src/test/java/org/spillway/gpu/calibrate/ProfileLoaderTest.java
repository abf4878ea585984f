package org.spillway.gpu.calibrate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Where a process's machine profile comes from, decided without a device: a machine made up for each case stands
 * in for the CUDA device and the calibration, and a temporary directory for the Spillway home.
 */
class ProfileLoaderTest {
  @TempDir Path home;

  /** A machine with or without a GPU whose calibration returns {@code measured} (or throws) and counts its runs. */
  private static final class MadeUpMachine implements ProfileLoader.Machine {
    final boolean gpu;
    final RuntimeException failure;
    final AtomicInteger calibrations = new AtomicInteger();
    final MachineProfile measured = profile(MachineProfile.MODE_FIRST_USE);
    final MachineProfile assumed = MachineProfiles.assumed(Optional.empty());
    volatile CountDownLatch release = new CountDownLatch(0);

    MadeUpMachine(boolean gpu, RuntimeException failure) {
      this.gpu = gpu;
      this.failure = failure;
    }

    @Override public boolean hasGpu() {
      return gpu;
    }

    @Override public MachineProfile calibrate(PrintStream progress) {
      calibrations.incrementAndGet();
      progress.println("progress that no one should see");
      try {
        assertTrue(release.await(10, TimeUnit.SECONDS), "the test never released the calibration");
      } catch (InterruptedException e) {
        throw new IllegalStateException(e);
      }
      if (failure != null) {
        throw failure;
      }
      return measured;
    }

    @Override public MachineProfile assumed() {
      return assumed;
    }
  }

  private final ByteArrayOutputStream messages = new ByteArrayOutputStream();
  private final Map<String, String> properties = new HashMap<>();

  private Path defaultPath() {
    return home.resolve("machine-profile.json");
  }

  private ProfileLoader loader(MadeUpMachine machine) {
    return new ProfileLoader(machine, properties::get, this::defaultPath,
        new PrintStream(messages, true, StandardCharsets.UTF_8));
  }

  private List<String> messageLines() {
    return messages.toString(StandardCharsets.UTF_8).lines().toList();
  }

  private static MachineProfile profile(String mode) {
    return new MachineProfile(MachineProfile.FORMAT_VERSION, "2026-11-26T00:00:00Z", "gpu host", 16, 60.0,
        new MachineProfile.GpuInfo("GPU (made up)", 80L << 30, 76L << 30, 132, false), null,
        Map.of("pinned copy", 50.0), Map.of(), 52.0, List.of(new MachineProfile.LinkAccess("random", 8, 4.0, 5e8)),
        50.0, 2400.0, 0.3, 18.0, Map.of(MachineProfile.CPU_JOIN_RADIX, 1.5e8), mode);
  }

  @Test
  void withoutAProfileAGpuMachineCalibratesOnceSavesItAndSaysSoOnce() throws IOException {
    MadeUpMachine machine = new MadeUpMachine(true, null);
    ProfileLoader loader = loader(machine);
    MachineProfile first = loader.current();
    assertSame(machine.measured, first);
    assertSame(first, loader.current());
    assertEquals(1, machine.calibrations.get());
    assertEquals(machine.measured, MachineProfile.read(defaultPath()));
    List<String> lines = messageLines();
    assertEquals(1, lines.size(), lines.toString());
    assertTrue(lines.get(0).startsWith("spillway: no machine profile at " + defaultPath() + "; measured a quick one in "),
        lines.get(0));
    assertTrue(lines.get(0).endsWith(" s (run 'spillway calibrate' for the full calibration)"), lines.get(0));
    // The next process finds the saved profile: nothing is measured, nothing said.
    MachineProfile next = loader(machine).current();
    assertEquals(machine.measured, next);
    assertEquals(1, machine.calibrations.get());
    assertEquals(1, messageLines().size());
  }

  @Test
  void concurrentFirstCallsCalibrateOnce() throws Exception {
    MadeUpMachine machine = new MadeUpMachine(true, null);
    machine.release = new CountDownLatch(1);
    ProfileLoader loader = loader(machine);
    int callers = 8;
    MachineProfile[] got = new MachineProfile[callers];
    List<Thread> threads = new ArrayList<>();
    for (int i = 0; i < callers; i++) {
      int caller = i;
      threads.add(new Thread(() -> got[caller] = loader.current(), "first call " + i));
    }
    threads.forEach(Thread::start);
    // Hold the calibration until one caller runs it and every other one waits for it inside current().
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (machine.calibrations.get() == 0
        || threads.stream().filter(t -> t.getState() == Thread.State.BLOCKED).count() < callers - 1) {
      assertTrue(System.nanoTime() < deadline, "the callers never met in current()");
      Thread.sleep(1);
    }
    machine.release.countDown();
    for (Thread t : threads) {
      t.join(TimeUnit.SECONDS.toMillis(10));
      assertFalse(t.isAlive(), t.getName());
    }
    for (MachineProfile p : got) {
      assertSame(machine.measured, p);
    }
    assertEquals(1, machine.calibrations.get());
    assertEquals(1, messageLines().size(), messageLines().toString());
  }

  @Test
  void aProfileFileIsReadNotMeasured() throws IOException {
    MachineProfile full = profile(MachineProfile.MODE_FULL);
    full.write(defaultPath());
    MadeUpMachine machine = new MadeUpMachine(true, null);
    assertEquals(full, loader(machine).current());
    assertEquals(0, machine.calibrations.get());
    assertEquals(List.of(), messageLines());
  }

  @Test
  void theNamedProfileWinsAndMustExist() throws IOException {
    Path named = home.resolve("elsewhere/profile.json");
    properties.put(MachineProfiles.PROFILE_PROPERTY, named.toString());
    MadeUpMachine machine = new MadeUpMachine(true, null);
    var missing = assertThrows(UncheckedIOException.class, () -> loader(machine).current());
    assertTrue(missing.getMessage().contains("no machine profile at " + named), missing.getMessage());
    MachineProfile quick = profile(MachineProfile.MODE_QUICK);
    quick.write(named);
    assertEquals(quick, loader(machine).current());
    assertEquals(named, loader(machine).path());
    assertEquals(0, machine.calibrations.get());
    assertFalse(Files.exists(defaultPath()));
  }

  @Test
  void thePropertyOffKeepsTheAssumedProfile() {
    properties.put(MachineProfiles.ON_FIRST_USE_PROPERTY, "FALSE");
    MadeUpMachine machine = new MadeUpMachine(true, null);
    assertSame(machine.assumed, loader(machine).current());
    assertEquals(0, machine.calibrations.get());
    assertFalse(Files.exists(defaultPath()));
    assertEquals(List.of(), messageLines());
    properties.put(MachineProfiles.ON_FIRST_USE_PROPERTY, "true");
    assertSame(machine.measured, loader(machine).current());
  }

  @Test
  void aPropertyThatIsNeitherTrueNorFalseIsAnError() {
    properties.put(MachineProfiles.ON_FIRST_USE_PROPERTY, "no");
    var e = assertThrows(IllegalArgumentException.class, () -> loader(new MadeUpMachine(true, null)).current());
    assertTrue(e.getMessage().contains(MachineProfiles.ON_FIRST_USE_PROPERTY) && e.getMessage().contains("'no'"),
        e.getMessage());
  }

  @Test
  void withoutAGpuNothingIsMeasured() {
    MadeUpMachine machine = new MadeUpMachine(false, null);
    assertSame(machine.assumed, loader(machine).current());
    assertEquals(0, machine.calibrations.get());
    assertFalse(Files.exists(defaultPath()));
    assertEquals(List.of(), messageLines());
  }

  @Test
  void aFailedCalibrationFallsBackToTheAssumedProfileWithOneWarning() {
    MadeUpMachine machine = new MadeUpMachine(true, new IllegalStateException("CUDA_ERROR_LAUNCH_FAILED (made up)"));
    ProfileLoader loader = loader(machine);
    assertSame(machine.assumed, loader.current());
    assertSame(machine.assumed, loader.current());
    assertEquals(1, machine.calibrations.get());
    assertFalse(Files.exists(defaultPath()));
    List<String> lines = messageLines();
    assertEquals(1, lines.size(), lines.toString());
    assertTrue(lines.get(0).contains("measuring a quick one failed (IllegalStateException: CUDA_ERROR_LAUNCH_FAILED"),
        lines.get(0));
    assertTrue(lines.get(0).contains("planning on assumed numbers"), lines.get(0));
  }

  @Test
  void aProfileThatCannotBeSavedIsStillUsedWithOneWarning() throws IOException {
    // The home is a file: no profile can be written under it.
    Files.delete(home);
    Files.writeString(home, "not a directory");
    MadeUpMachine machine = new MadeUpMachine(true, null);
    ProfileLoader loader = loader(machine);
    assertSame(machine.measured, loader.current());
    assertSame(machine.measured, loader.current());
    assertEquals(1, machine.calibrations.get());
    List<String> lines = messageLines();
    assertEquals(1, lines.size(), lines.toString());
    assertTrue(lines.get(0).contains("measured a quick one in ") && lines.get(0).contains("but could not save it ("),
        lines.get(0));
    assertTrue(lines.get(0).endsWith("so this process alone uses it (run 'spillway calibrate' for the full "
        + "calibration)"), lines.get(0));
  }

  @Test
  void aPinnedProfileReplacesTheFoundOneUntilReleased() {
    MadeUpMachine machine = new MadeUpMachine(false, null);
    ProfileLoader loader = loader(machine);
    MachineProfile pinned = profile(MachineProfile.MODE_FULL);
    assertSame(null, loader.replace(pinned));
    assertSame(pinned, loader.current());
    assertSame(pinned, loader.replace(null));
    assertSame(machine.assumed, loader.current());
  }
}
