package org.spillway.storage.imports;

import java.lang.management.ManagementFactory;

/**
 * Where an import's time went, as elapsed and process CPU nanoseconds of four phases: {@code open} (files opened,
 * footers read, the writer made, until the first piece starts), {@code parallel} (until a thread first finds no
 * piece left to start: all threads busy, as far as there are pieces), {@code tail} (until the last piece is done:
 * fewer threads busy than the import has), {@code commit} (dictionaries chosen, files written, the table published).
 * Elapsed times against CPU times say how many cores a phase kept busy: a serial phase, or a tail as long as a piece,
 * is what the other cores wait for. CPU times are the whole process's (other work in it included), -1 where the JVM
 * does not tell them.
 */
public record ImportPhases(long openNanos, long parallelNanos, long tailNanos, long commitNanos, long openCpuNanos,
    long parallelCpuNanos, long tailCpuNanos, long commitCpuNanos) {

  /** Phases of an import that ended without its timeline (none measured). */
  public static final ImportPhases UNKNOWN = new ImportPhases(0, 0, 0, 0, -1, -1, -1, -1);

  /** Elapsed nanoseconds of all phases together. */
  public long totalNanos() {
    return openNanos + parallelNanos + tailNanos + commitNanos;
  }

  /** One line: each phase's seconds and, where known, CPU seconds. */
  public String describe() {
    return String.format(java.util.Locale.ROOT, "open %s, parallel %s, tail %s, commit %s",
        phase(openNanos, openCpuNanos), phase(parallelNanos, parallelCpuNanos), phase(tailNanos, tailCpuNanos),
        phase(commitNanos, commitCpuNanos));
  }

  private static String phase(long nanos, long cpuNanos) {
    return cpuNanos < 0 ? String.format(java.util.Locale.ROOT, "%.3f s", nanos / 1e9)
        : String.format(java.util.Locale.ROOT, "%.3f s (%.2f CPU-s)", nanos / 1e9, cpuNanos / 1e9);
  }

  /**
   * Takes the moments between the phases as they happen; thread-safe. A moment not reached counts as the one after
   * it: an import without pieces is all open and commit.
   */
  static final class Clock {
    private static final com.sun.management.OperatingSystemMXBean OS =
        ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os ? os : null;

    /** Elapsed and CPU nanoseconds of start, first piece started, first thread idle, last piece done, end. */
    private final long[] elapsed = new long[5];
    private final long[] cpu = new long[5];
    private final boolean[] taken = new boolean[5];

    Clock() {
      take(0);
    }

    /** A piece starts: the first one ends the open phase. */
    void pieceStarted() {
      takeOnce(1);
    }

    /** A thread finished a piece and found none left to start: the first one ends the parallel phase. */
    void threadIdle() {
      takeOnce(2);
    }

    /** The last piece is done (called once all are). */
    void piecesDone() {
      takeOnce(3);
    }

    ImportPhases end() {
      take(4);
      for (int i = 3; i > 0; i--) {  // a phase that never began lasts no time
        if (!taken[i]) {
          elapsed[i] = elapsed[i + 1];
          cpu[i] = cpu[i + 1];
        }
      }
      boolean knowsCpu = cpu[0] >= 0 && cpu[4] >= 0;
      return new ImportPhases(elapsed[1] - elapsed[0], elapsed[2] - elapsed[1], elapsed[3] - elapsed[2],
          elapsed[4] - elapsed[3], knowsCpu ? cpu[1] - cpu[0] : -1, knowsCpu ? cpu[2] - cpu[1] : -1,
          knowsCpu ? cpu[3] - cpu[2] : -1, knowsCpu ? cpu[4] - cpu[3] : -1);
    }

    private synchronized void takeOnce(int moment) {
      if (!taken[moment]) {
        take(moment);
      }
    }

    private synchronized void take(int moment) {
      taken[moment] = true;
      elapsed[moment] = System.nanoTime();
      cpu[moment] = OS == null ? -1 : OS.getProcessCpuTime();
    }
  }
}
