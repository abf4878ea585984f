package org.spillway.gpu.calibrate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The CPU join probe on tiny inputs: four checked, positive rates, the NOPA ones measured on the pipelined hash join
 * (the join a query runs), and a wrong join result stops calibration.
 */
class CpuJoinProbeTest {
  @Test
  void tinyInputsGiveFourPositiveRates() {
    ByteArrayOutputStream log = new ByteArrayOutputStream();
    Map<String, Double> rates = CpuJoinProbe.tuplesPerSecond(1 << 12, 1 << 15, 2, new PrintStream(log, true));
    assertEquals(List.of(MachineProfile.CPU_JOIN_NOPA_PERFECT_HASH, MachineProfile.CPU_JOIN_NOPA_LINEAR_PROBING,
        MachineProfile.CPU_JOIN_RADIX, MachineProfile.CPU_JOIN_NOPA_LINEAR_PROBING_CACHED),
        List.copyOf(rates.keySet()));
    rates.forEach((workload, rate) -> assertTrue(rate > 0 && Double.isFinite(rate), workload + ": " + rate));
    // The dense keys must have taken the pipelined join's direct array and the sparse ones its unchained table.
    assertTrue(log.toString().contains("pipelined/direct"), log.toString());
    assertTrue(log.toString().contains("pipelined/unchained"), log.toString());
    assertTrue(log.toString().contains("radix/bits="), log.toString());
  }

  @Test
  void aJoinThatLosesRowsCannotCalibrate() {
    // Probe key 9 has no match: 2 of 3 rows come out.
    PipelinedHashJoin.Result result = PipelinedHashJoin.run(new long[] {1, 2}, new long[] {10, 20},
        new long[] {1, 2, 9}, new long[] {3, 4, 5}, 1);
    CpuJoinProbe.check("test", result, 2, 7);
    var e = assertThrows(IllegalStateException.class, () -> CpuJoinProbe.check("test", result, 3, 12));
    assertTrue(e.getMessage().contains("2 rows") && e.getMessage().contains("expected 3"), e.getMessage());
  }
}
