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
    assertEquals(List.of("nopa", "triton", "duckdb", "cpu-nopa", "cpu-radix"), full.joins());
    assertEquals(4L << 30, full.budget());
    assertEquals(List.of(), full.sizes());
    assertEquals(0, full.deadlineSeconds());
    assertFalse(full.quick());
    assertFalse(full.cpuOnly());
    JoinBenchmarkArgs quick = JoinBenchmarkArgs.parse(new String[] {"--quick", "--runs", "2", "--joins",
        "nopa, triton:cache=0", "--budget", "1g", "--out", "/tmp/x", "--method", "pinned copy", "--sizes", "24,25",
        "--deadline", "480", "--host-memory", "100g", "--zipf-both", "0.25", "--cpu-only"});
    assertTrue(quick.quick());
    assertTrue(quick.cpuOnly());
    assertEquals(4, quick.shift());
    assertEquals(2, quick.runs());
    assertEquals(List.of("nopa", "triton:cache=0"), quick.joins());
    assertEquals(1L << 30, quick.budget());
    assertEquals(Path.of("/tmp/x"), quick.out());
    assertEquals(TransferMethod.PINNED_COPY, quick.method());
    assertEquals(List.of(1.0, 4.0, 16.0), quick.ratios());
    assertEquals(List.of(0.25), quick.zipfBoth());
    assertEquals(List.of(24, 25), quick.sizes());
    assertEquals(480, quick.deadlineSeconds());
    assertEquals(100L << 30, quick.hostMemory());
    assertEquals(512L << 20, JoinBenchmarkArgs.parse(new String[] {"--quick"}).budget());
  }

  @Test
  void badOptionsAndJoinNamesSayWhy() {
    var unknown = assertThrows(IllegalArgumentException.class,
        () -> JoinBenchmarkArgs.parse(new String[] {"--experiments", "workloads,fig99"}));
    assertTrue(unknown.getMessage().contains("fig99"), unknown.getMessage());
    assertThrows(IllegalArgumentException.class, () -> JoinBenchmarkArgs.parse(new String[] {"--runs"}));
    assertThrows(IllegalArgumentException.class, () -> JoinBenchmarkArgs.parse(new String[] {"--shift", "40"}));
    assertThrows(IllegalArgumentException.class, () -> JoinBenchmarkArgs.parse(new String[] {"--sizes", "40"}));
    assertThrows(IllegalArgumentException.class, () -> JoinBenchmarkArgs.parse(new String[] {"--budget", "8m"}));
    var settings = new JoinBenchmarkJoins.Settings(null, TransferMethod.ZERO_COPY, null, 0, "");
    var join = assertThrows(IllegalArgumentException.class, () -> JoinBenchmarkJoins.open("hash-magic", settings, 1));
    assertTrue(join.getMessage().contains("known: nopa, triton"), join.getMessage());
    assertTrue(JoinBenchmarkJoins.isCpu("cpu-radix"));
    assertFalse(JoinBenchmarkJoins.isCpu("nopa@host"));
    assertFalse(JoinBenchmarkJoins.isCpu("duckdb"));
    assertFalse(JoinBenchmarkJoins.isGpu("duckdb"));
    assertTrue(JoinBenchmarkJoins.isGpu("triton:cache=0.5"));
  }

  @Test
  void joinNamesSplitIntoBasePlacementAndOptions() {
    assertEquals("nopa", JoinBenchmarkJoins.base("nopa@gpu:full"));
    assertEquals("triton", JoinBenchmarkJoins.base("triton:cache=0+cpu-prefix"));
    assertEquals("cpu-nopa", JoinBenchmarkJoins.base("cpu-nopa"));
    assertEquals(List.of("cache=0", "cpu-prefix"),
        new JoinBenchmarkJoins.Settings(null, TransferMethod.ZERO_COPY, null, 0, "cache=0+ cpu-prefix+").options());
    // Triton streams by zero-copy only: the methods experiment leaves it out instead of failing
    var pinned = new JoinBenchmarkJoins.Settings(null, TransferMethod.PINNED_COPY, null, 0, "");
    assertThrows(UnsupportedOperationException.class, () -> JoinBenchmarkJoins.open("triton", pinned, 1));
    var zeroCopy = new JoinBenchmarkJoins.Settings(null, TransferMethod.ZERO_COPY, null, 0, "");
    var option = assertThrows(IllegalArgumentException.class, () -> JoinBenchmarkJoins.open("triton:fast", zeroCopy, 1));
    assertTrue(option.getMessage().contains("unknown triton option 'fast'"), option.getMessage());
    var placed = assertThrows(IllegalArgumentException.class, () -> JoinBenchmarkJoins.open("triton@host", zeroCopy, 1));
    assertTrue(placed.getMessage().contains("no table placement"), placed.getMessage());
    var nopaOption = assertThrows(IllegalArgumentException.class, () -> JoinBenchmarkJoins.open("nopa:x", zeroCopy, 1));
    assertTrue(nopaOption.getMessage().contains("takes no options"), nopaOption.getMessage());
  }
}
