package org.spillway.storage;

import java.util.Arrays;
import java.util.List;

/**
 * Cleanup in steps that all run even when one fails, and that never hide the error that made the cleanup necessary:
 * a cleanup's failure is often a consequence of that error (a full disk fails both), so reporting it instead would
 * point away from the cause.
 */
final class Cleanup {
  private Cleanup() {}

  /** {@link #runAll(RuntimeException, List)} of these steps. */
  static void runAll(RuntimeException failure, Runnable... steps) {
    runAll(failure, Arrays.asList(steps));
  }

  /**
   * Runs every step; then throws {@code failure} (the error being reported, if not null) or else the first step's
   * failure, with the other steps' failures suppressed in it.
   */
  static void runAll(RuntimeException failure, List<Runnable> steps) {
    RuntimeException first = failure;
    for (Runnable step : steps) {
      try {
        step.run();
      } catch (RuntimeException e) {
        if (first == null) {
          first = e;
        } else if (e != first) {  // a step may rethrow the very error being reported
          first.addSuppressed(e);
        }
      }
    }
    if (first != null) {
      throw first;
    }
  }
}
