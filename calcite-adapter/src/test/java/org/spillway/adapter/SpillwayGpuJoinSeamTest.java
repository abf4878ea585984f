package org.spillway.adapter;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.BooleanSupplier;
import org.apache.arrow.memory.util.MemoryUtil;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.spillway.adapter.jdbc.SpillwayDriver;
import org.spillway.gpu.device.CudaDevice;
import org.spillway.gpu.device.GpuRuntime;
import org.spillway.gpu.device.PinnedHostAllocator;
import org.spillway.gpu.pipeline.gpu.GpuColumnarPipeline;
import org.spillway.gpu.join.nopa.CpuNopaHashJoin;
import org.spillway.gpu.join.GpuEquiJoin;
import org.spillway.gpu.join.GpuJoinStats;
import org.spillway.gpu.join.HostJoinInput;
import org.spillway.gpu.join.JoinInput;
import org.spillway.gpu.join.JoinOutput;
import org.spillway.gpu.join.JoinResult;
import org.spillway.gpu.join.JoinType;
import org.spillway.gpu.plan.GpuJoinFactory;
import org.spillway.gpu.plan.GpuJoinSpec;
import org.spillway.gpu.plan.GpuJoins;
import org.spillway.gpu.transfer.ColumnType;
import org.spillway.tpch.ProgressListener;
import org.spillway.tpch.TpchGenerator;
import org.spillway.tpch.TpchQueries;

/**
 * The adapter's side of the GPU join seam, with a stand-in GPU join (it reads the pinned host inputs back and
 * joins them on the CPU): the planner picks the GPU algorithm once the factory offers it, the keys reach the
 * join in pinned memory, the rows equal the CPU join's, and no pinned buffer outlives the query. A forced NOPA
 * join whose table fits GPU memory is a probe stage of its pipeline instead (on the GPU where that pipeline runs
 * there): its rows are checked the same way. Tagged gpu:
 * pinned memory needs a CUDA device.
 */
@Tag("gpu")
class SpillwayGpuJoinSeamTest {
  @TempDir static Path dir;
  private static GpuJoinFactory previous;
  private static final List<GpuJoinSpec> OPTIONS = new ArrayList<>();

  @BeforeAll static void generate() {
    GpuTests.requireDevice();
    TpchGenerator.generate(dir, 0.01, 2, ProgressListener.NONE);
    previous = GpuJoins.install(new HostReadingJoins());
  }

  @AfterAll static void restore() {
    if (previous != null) {
      GpuJoins.install(previous);
    }
    CatalogRegistry.close(dir);
  }

  @Test void gpuAlgorithmsGetPinnedKeysAndGiveTheCpuRows() throws SQLException {
    PinnedHostAllocator pinned = GpuRuntime.requireDevice().pinnedAllocator();
    for (String algorithm : List.of("nopa", "triton")) {
      for (int q : new int[] {3, 4, 5, 10, 21}) {
        String sql = TpchQueries.sql(q);
        String plan = String.join("\n", rows(algorithm, "explain plan for " + sql));
        assertTrue(plan.contains("device=[gpu], algorithm=[" + algorithm + "]"), "Q" + q + ":\n" + plan);
        // The CPU run first: it loads the tables the query reads (into pinned Arrow memory, kept by the catalog).
        List<String> expected = rows("cpu-nopa", sql);
        // Pipelines keep idle pinned buffers pooled between runs; released, only a leak would remain.
        GpuColumnarPipeline.releaseIdleResources(GpuRuntime.requireDevice());
        int liveBefore = pinned.liveBuffers();
        long bytesBefore = pinned.allocatedBytes();
        assertEquals(expected, rows(algorithm, sql), "Q" + q + " with " + algorithm);
        GpuColumnarPipeline.releaseIdleResources(GpuRuntime.requireDevice());
        assertEquals(liveBefore, pinned.liveBuffers(), "pinned buffers left after Q" + q);
        assertEquals(bytesBefore, pinned.allocatedBytes(), "pinned bytes left after Q" + q);
      }
    }
    // NOPA's tables fit GPU memory here: it runs as the probe stage of a pipeline, never as a join node of its own.
    assertTrue(OPTIONS.stream().allMatch(o -> o.algorithm() == GpuJoinSpec.Algorithm.TRITON),
        "only Triton goes through the seam: " + OPTIONS);
    assertTrue(OPTIONS.stream().anyMatch(o -> o.radixBits1() > 0), "Triton got radix bits: " + OPTIONS);
  }

  private static List<String> rows(String algorithm, String sql) throws SQLException {
    String url = SpillwayDriver.CONNECT_STRING_PREFIX + "dataDir=" + dir + ";device=gpu;joinAlgorithm=" + algorithm;
    return SpillwayAssert.rows(url, sql);
  }

  /** Offers both GPU algorithms as one stand-in join. */
  private static final class HostReadingJoins implements GpuJoinFactory {
    @Override public Optional<String> unavailableReason(GpuJoinSpec.Algorithm algorithm) {
      return Optional.empty();
    }

    @Override public GpuEquiJoin create(CudaDevice device, GpuJoinSpec spec) {
      synchronized (OPTIONS) {
        OPTIONS.add(spec);
      }
      return new HostReadingJoin(spec.algorithm().name().toLowerCase(java.util.Locale.ROOT));
    }
  }

  /** Reads the pinned inputs back into Java arrays and joins them with CpuNopaHashJoin. */
  private static final class HostReadingJoin implements GpuEquiJoin {
    private final String name;
    private GpuJoinStats stats;

    HostReadingJoin(String name) {
      this.name = name;
    }

    @Override public JoinResult join(HostJoinInput build, HostJoinInput probe, JoinType type, JoinOutput output,
        BooleanSupplier cancelled) {
      long start = System.nanoTime();
      try (CpuNopaHashJoin cpu = new CpuNopaHashJoin(2)) {
        JoinResult result = cpu.join(read(build), read(probe), type, output);
        stats = new GpuJoinStats("stand-in/" + name, System.nanoTime() - start, 0, 0, List.of());
        return result;
      }
    }

    private static JoinInput read(HostJoinInput in) {
      int rows = (int) in.rows();
      long[] keys = new long[rows];
      boolean wide = in.keys().type() == ColumnType.INT64;
      for (int r = 0; r < rows; r++) {
        keys[r] = wide ? MemoryUtil.getLong(in.keys().addressOf(r)) : MemoryUtil.getInt(in.keys().addressOf(r));
      }
      long[] validity = null;
      if (in.hasNulls()) {
        validity = new long[(rows + 63) / 64];
        for (int b = 0; b < (rows + 7) / 8; b++) {
          validity[b >>> 3] |= (MemoryUtil.getByte(in.validityAddress() + b) & 0xFFL) << ((b & 7) * 8);
        }
      }
      return JoinInput.withValidity(keys, null, validity);
    }

    @Override public String name() {
      return name;
    }

    @Override public GpuJoinStats lastStats() {
      return stats;
    }

    @Override public void close() {
    }
  }
}
