package org.spillway.gpu.pipeline.gpu;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** What a GPU pipeline's trace says of the time a run spent beside its stream (no GPU needed). */
class RunStatsTest {
  @Test void phasesSplitTheRunAroundTheStream() {
    GpuColumnarPipeline.RunStats aggregated = new GpuColumnarPipeline.RunStats(32_800_000, 2_160_000_000L, 0,
        "columnar_pipeline_grouped (branching)", 67_800_000, -1, 390_176, 1_200_000, 33_500_000);
    assertEquals("1.2 ms before the stream and 33.5 after it, 67.8 ms in the pipeline's run", aggregated.phases());
    GpuColumnarPipeline.RunStats rows = new GpuColumnarPipeline.RunStats(18_500_000, 720_000_000L, 0,
        "columnar_pipeline_rows (branching)", 20_400_000, -1, 1_000);
    assertEquals("20.4 ms in the pipeline's run", rows.phases(), "a rows pass times no phases");
    GpuColumnarPipeline.RunStats resident = new GpuColumnarPipeline.RunStats(3_100_000, 0, 1_440_000_000L,
        "selection_aggregate_branching", 4_000_000, 450_000, 16, 200_000, 300_000);
    assertEquals("0.2 ms before the stream and 0.3 after it, kernels 0.5 ms by CUDA events, 4.0 ms in the pipeline's"
        + " run", resident.phases(), "one launch over resident columns is timed by CUDA events");
  }
}
