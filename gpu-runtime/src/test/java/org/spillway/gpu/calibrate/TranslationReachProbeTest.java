package org.spillway.gpu.calibrate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The translation reach probe's command line: the issue's regions by default, sizes powers of two, slices and
 * footprints below the largest region, reads by the pages covered.
 */
class TranslationReachProbeTest {
  @Test
  void defaultsSweepTheIssuesRegionsAndSliceTheLargest() {
    TranslationReachProbe.Options options = TranslationReachProbe.Options.parse(new String[0]);
    assertEquals(List.of(1L << 30, 4L << 30, 16L << 30, 32L << 30, 64L << 30), options.regions());
    assertEquals(List.of(1L << 30, 4L << 30, 16L << 30), options.slices());
    assertEquals(List.of(256L << 20, 1L << 30), options.footprints());
    assertEquals(64L << 30, options.largest());
    assertEquals(64L << 20, options.reads(64L << 30), "4 reads per 4 KiB page");
    assertNull(options.out());
    TranslationReachProbe.Options small = TranslationReachProbe.Options.parse(new String[] {"--regions", "1m,8m",
        "--slices", "none", "--footprints", "2m", "--reads-per-page", "0.5", "--reps", "2", "--out", "x.csv"});
    assertEquals(List.of(1L << 20, 8L << 20), small.regions());
    assertEquals(List.of(), small.slices());
    assertEquals(List.of(2L << 20), small.footprints());
    assertEquals(1024, small.reads(8L << 20));
    assertEquals(1, small.reads(128), "at least one read");
    assertEquals(Path.of("x.csv"), small.out());
  }

  @Test
  void refusesSizesThatAreNotPowersOfTwoOrPartsAsLargeAsTheRegion() {
    for (String[] args : new String[][] {{"--regions", "3g"}, {"--regions", "4g", "--slices", "4g"},
        {"--regions", "4g", "--slices", "3g"}, {"--regions", "4g", "--footprints", "8g"}, {"--regions", "none"},
        {"--reps", "0"}, {"--reads-per-page", "0"}, {"--bogus"}}) {
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
          () -> TranslationReachProbe.Options.parse(args), String.join(" ", args));
      assertTrue(e.getMessage().contains("usage"), e.getMessage());
    }
  }
}
