package org.spillway.adapter;

import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.metadata.RelMetadataQuery;
import org.spillway.gpu.calibrate.MachineProfiles;
import org.spillway.gpu.plan.GpuPipelineChoice;
import org.spillway.gpu.plan.MarkJoinNode;

/**
 * The semi-join reduction of a mark join whose marking probe runs on the CPU (by the cost model, or with a condition
 * the GPU cannot compute): a GPU pass streams the probe side's scan and keeps only the rows whose keys some build row
 * has ({@link MarkJoinNode#withGpuReduction}), so the CPU marks those instead of every row. The cost model decides,
 * from the share of probe rows the build side's distinct keys keep by the statistics.
 */
final class SpillwayMarkReduction {
  private SpillwayMarkReduction() {}

  /**
   * The GPU pass for a mark join building on {@code build}'s {@code buildKeys} and probing {@code probe}'s
   * {@code probeKeys}, whose probe side {@code probeSide} implements; null where none runs.
   */
  static GpuPipelineChoice choose(SpillwayRel.Implementor probeSide, RelNode build, int[] buildKeys, RelNode probe,
      int[] probeKeys) {
    RelMetadataQuery mq = build.getCluster().getMetadataQuery();
    Double buildRows = mq.getRowCount(build);
    if (buildRows == null || mq.getRowCount(probe) == null) {
      return null;
    }
    double kept = SpillwayStatistics.matchedShare(mq, build, buildKeys, probe, probeKeys);
    double markSeconds = new SpillwayJoinCost(SpillwayGpuSite.current().map(SpillwayGpuSite::profile)
        .orElseGet(MachineProfiles::current)).cpuMarkSecondsPerRow(buildRows);
    return probeSide.markReduction(kept, markSeconds);
  }
}
