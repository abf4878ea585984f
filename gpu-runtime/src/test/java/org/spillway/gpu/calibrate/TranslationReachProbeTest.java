package org.spillway.gpu.calibrate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The translation reach probe's command line: the issue's regions by default, powers of two, slices below. */
class TranslationReachProbeTest {
  @Test
  void defaultsSweepTheIssuesRegionsAndSliceTheLargest() {
    TranslationReachProbe.Options options = TranslationReachProbe.Options.parse(new String[0]);
    assertEquals(List.of(1L << 30, 4L << 30, 16L << 30, 32L << 30, 64L << 30), options.regions());
    assertEquals(List.of(4L << 30, 16L << 30), options.slices());
    assertEquals(64L << 30, options.largest());
    assertNull(options.out());
    TranslationReachProbe.Options small = TranslationReachProbe.Options.parse(new String[] {"--regions", "1m,8m",
        "--slices", "none", "--reads", "1000", "--reps", "2", "--out", "x.csv"});
    assertEquals(List.of(1L << 20, 8L << 20), small.regions());
    assertEquals(List.of(), small.slices());
    assertEquals(1000, small.reads());
    assertEquals(Path.of("x.csv"), small.out());
  }

  @Test
  void refusesRegionsAndSlicesThatAreNotPowersOfTwoOrSlicesAsLargeAsTheRegion() {
    for (String[] args : new String[][] {{"--regions", "3g"}, {"--regions", "4g", "--slices", "4g"},
        {"--regions", "4g", "--slices", "3g"}, {"--regions", "none"}, {"--reps", "0"}, {"--bogus"}}) {
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
          () -> TranslationReachProbe.Options.parse(args), String.join(" ", args));
      assertTrue(e.getMessage().contains("usage"), e.getMessage());
    }
  }
}
