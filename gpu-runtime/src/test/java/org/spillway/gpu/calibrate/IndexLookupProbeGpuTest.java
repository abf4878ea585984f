package org.spillway.gpu.calibrate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import org.junit.jupiter.api.Test;
import org.spillway.gpu.GpuTest;
import org.spillway.gpu.device.GpuRuntime;

/**
 * The index join's random line reads over the link: positive within and beyond the region the TLB covers, below the
 * link's sequential rate, and not faster over the larger region (where addresses also miss the TLB).
 */
@GpuTest
class IndexLookupProbeGpuTest {
  @Test
  void randomLineReadsWithinAndBeyondTheTlbReach() {
    var device = GpuRuntime.requireDevice();
    ByteArrayOutputStream log = new ByteArrayOutputStream();
    try (LinkProbe probe = new LinkProbe(device)) {
      var rates = IndexLookupProbe.link(device, probe, 64L << 20, 8L << 30, 2, new PrintStream(log, true));
      assertEquals(64L << 20, rates.smallBytes());
      assertEquals(8L << 30, rates.largeBytes());
      assertTrue(rates.small() > 0.1 && rates.small() < 200, log.toString());
      assertTrue(rates.large() > 0 && rates.large() < 1.25 * rates.small(), log.toString());
    }
  }
}
