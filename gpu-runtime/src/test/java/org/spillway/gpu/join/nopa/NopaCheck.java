package org.spillway.gpu.join.nopa;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.spillway.gpu.device.ArrowAllocators;
import org.spillway.gpu.device.CudaDevice;
import org.spillway.gpu.device.GpuRuntime;
import org.spillway.gpu.join.JoinOutput;
import org.spillway.gpu.join.JoinResult;
import org.spillway.gpu.join.JoinType;
import org.spillway.gpu.join.ReferenceJoin;
import org.spillway.gpu.transfer.TransferMethod;
import org.spillway.gpu.transfer.TransferOptions;

/**
 * Runs {@link NopaHashJoin} and {@link CpuNopaHashJoin} on the same relations and fails on any difference: the
 * same pairs as a multiset (materialized), the same count and sums (aggregated).
 */
final class NopaCheck {
  /** 64 KiB chunks: test relations of a few thousand rows span several chunks and every pipeline slot. */
  static final TransferOptions SMALL_CHUNKS = TransferOptions.DEFAULT.withChunkBytes(64 << 10);
  /** A GPU budget that holds a fraction of the test tables, so that HYBRID really splits them. */
  static final long SMALL_BUDGET = 32 << 10;
  private static final CpuNopaHashJoin CPU = new CpuNopaHashJoin(4);

  private NopaCheck() {}

  static long freshSeed() {
    String fixed = System.getProperty("spillway.join.seed");
    return fixed != null ? Long.parseLong(fixed) : System.nanoTime() * 0x9E3779B97F4A7C15L;
  }

  /** Small chunks with {@code method}, the table in GPU memory, in host memory and split (small budget). */
  static List<NopaOptions> everyPlacement(TransferMethod method) {
    NopaOptions base = NopaOptions.DEFAULT.withMethod(method).withTransfer(SMALL_CHUNKS);
    return List.of(base.withPlacement(HashTablePlacement.GPU), base.withPlacement(HashTablePlacement.HOST),
        base.withPlacement(HashTablePlacement.HYBRID).withTableBudget(SMALL_BUDGET));
  }

  /** Every placement with zero-copy, and the GPU table with pinned copy. */
  static List<NopaOptions> standard() {
    List<NopaOptions> out = new ArrayList<>(everyPlacement(TransferMethod.ZERO_COPY));
    out.add(NopaOptions.DEFAULT.withMethod(TransferMethod.PINNED_COPY).withTransfer(SMALL_CHUNKS));
    return out;
  }

  /** Checks every join type and output under every option set; returns the GPU variants that ran. */
  static List<String> compare(String scenario, long seed, GpuJoinRelation r, GpuJoinRelation s,
      List<NopaOptions> optionSets) {
    List<String> variants = new ArrayList<>();
    for (NopaOptions options : optionSets) {
      variants.addAll(compare(scenario, seed, r, s, options, JoinType.values(), JoinOutput.values()));
    }
    return variants;
  }

  static List<String> compare(String scenario, long seed, GpuJoinRelation r, GpuJoinRelation s, NopaOptions options,
      JoinType[] types, JoinOutput[] outputs) {
    List<String> variants = new ArrayList<>();
    withGpuJoin(options, r, s, (gpu, build, probe) -> {
      for (JoinType type : types) {
        for (JoinOutput output : outputs) {
          JoinResult expected = CPU.join(r.cpu(), s.cpu(), type, output);
          JoinResult actual = gpu.join(build.input(), probe.input(), type, output);
          String where = scenario + ", " + type + ", " + output + ", " + options.method().label() + ", placement "
              + options.placement() + ": GPU " + actual.algorithm() + " vs CPU " + expected.algorithm() + ", |R| "
              + r.rows() + " " + r.keyType() + ", |S| " + s.rows() + " " + s.keyType() + ", seed " + seed;
          assertSame(expected, actual, where);
          variants.add(actual.algorithm());
        }
      }
    });
    return variants;
  }

  /** What a test does with a GPU join and both relations in the memory its transfer method reads. */
  interface GpuJoinBody {
    void run(NopaHashJoin gpu, GpuJoinRelation.Placed build, GpuJoinRelation.Placed probe);
  }

  /** Places {@code r} and {@code s} for {@code options}' transfer method and runs {@code body}; frees all after. */
  static void withGpuJoin(NopaOptions options, GpuJoinRelation r, GpuJoinRelation s, GpuJoinBody body) {
    CudaDevice device = GpuRuntime.requireDevice();
    try (BufferAllocator allocator = ArrowAllocators.root(options.method().nativeMemory());
         GpuJoinRelation.Placed build = r.in(allocator);
         GpuJoinRelation.Placed probe = s.in(allocator);
         NopaHashJoin gpu = new NopaHashJoin(device, options)) {
      body.run(gpu, build, probe);
    }
  }

  static void assertSame(JoinResult expected, JoinResult actual, String where) {
    assertEquals(expected.output(), actual.output(), where);
    assertEquals(expected.rowCount(), actual.rowCount(), where + ": row count");
    if (expected.output() == JoinOutput.MATERIALIZED) {
      assertArrayEquals(ReferenceJoin.pairsOf(expected), ReferenceJoin.pairsOf(actual), where + ": pairs");
    } else {
      assertEquals(expected.buildPayloadSum(), actual.buildPayloadSum(), where + ": build payload sum");
      assertEquals(expected.probePayloadSum(), actual.probePayloadSum(), where + ": probe payload sum");
    }
  }

  /** The CPU join's result, for tests that check the GPU join under special conditions. */
  static JoinResult cpu(GpuJoinRelation r, GpuJoinRelation s, JoinType type, JoinOutput output) {
    return CPU.join(r.cpu(), s.cpu(), type, output);
  }
}
