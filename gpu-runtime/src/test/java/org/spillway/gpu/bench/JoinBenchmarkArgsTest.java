package org.spillway.gpu.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.spillway.gpu.transfer.TransferMethod;

/** JoinBenchmark's option parsing and join names (no GPU needed). */
class JoinBenchmarkArgsTest {
  @Test
  void defaultsAreTheFullRunAndQuickIsTheSubset() {
    JoinBenchmarkArgs full = JoinBenchmarkArgs.parse(new String[0]);
    assertEquals(3, full.shift());
    assertEquals(5, full.runs());
    assertEquals(JoinBenchmark.EXPERIMENTS, full.experiments());
    assertEquals(List.of("nopa", "cpu-nopa", "cpu-radix"), full.joins());
    assertEquals(1L << 30, full.budget());
    assertFalse(full.quick());
    JoinBenchmarkArgs quick = JoinBenchmarkArgs.parse(new String[] {"--quick", "--runs", "2", "--joins",
        "nopa, cpu-nopa", "--budget", "512m", "--out", "/tmp/x", "--method", "pinned copy"});
    assertTrue(quick.quick());
    assertEquals(4, quick.shift());
    assertEquals(2, quick.runs());
    assertEquals(List.of("nopa", "cpu-nopa"), quick.joins());
    assertEquals(512L << 20, quick.budget());
    assertEquals(Path.of("/tmp/x"), quick.out());
    assertEquals(TransferMethod.PINNED_COPY, quick.method());
    assertEquals(List.of(1.0, 4.0, 16.0), quick.ratios());
  }

  @Test
  void badOptionsAndJoinNamesSayWhy() {
    var unknown = assertThrows(IllegalArgumentException.class,
        () -> JoinBenchmarkArgs.parse(new String[] {"--experiments", "workloads,fig99"}));
    assertTrue(unknown.getMessage().contains("fig99"), unknown.getMessage());
    assertThrows(IllegalArgumentException.class, () -> JoinBenchmarkArgs.parse(new String[] {"--runs"}));
    assertThrows(IllegalArgumentException.class, () -> JoinBenchmarkArgs.parse(new String[] {"--shift", "40"}));
    var join = assertThrows(IllegalArgumentException.class, () -> JoinBenchmarkJoins.open("hash-magic",
        new JoinBenchmarkJoins.Settings(null, TransferMethod.ZERO_COPY, null, 0), 1));
    assertTrue(join.getMessage().contains("known: nopa"), join.getMessage());
    assertTrue(JoinBenchmarkJoins.isCpu("cpu-radix"));
    assertFalse(JoinBenchmarkJoins.isCpu("nopa@host"));
  }
}
