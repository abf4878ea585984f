package org.spillway.gpu.plan;

import java.util.List;
import org.spillway.gpu.join.hash.JoinProbe;
import org.spillway.gpu.pipeline.PipelineStage;
import org.spillway.gpu.pipeline.gpu.FilterVariant;
import org.spillway.gpu.pipeline.gpu.GpuColumnarPipeline;
import org.spillway.gpu.transfer.TransferMethod;

/**
 * What the planner chose for a pipeline over a scan that the GPU runs: the transfer method that streams its
 * columns, how its kernel filters, the bytes it asks the device's column cache to hold (0: it streams every
 * run; the first request sizes the process-wide cache, see {@link GpuColumnCaches}), and the groups its
 * aggregation is estimated to make (0: none or unknown), which size the GPU hash table's first try, and whether
 * the CPU backend shares the scan with the GPU ({@link GpuColumnarPipeline#withCoprocessing}).
 */
public record GpuPipelineChoice(TransferMethod method, FilterVariant variant, long cacheRequestBytes,
    long expectedGroups, boolean coprocess) {
  /** The most groups a GPU aggregation holds; more run on the CPU backend. */
  public static final long MAX_GROUPS = GpuColumnarPipeline.MAX_GROUPS;

  /** Device bytes of the GPU hash table of an aggregation of {@code calls} calls over about {@code groups} groups. */
  public static long aggregateStateBytes(long groups, int calls) {
    return GpuColumnarPipeline.aggregateStateBytes(groups, calls);
  }

  /** Whether a GPU run of {@code stages} brings back only the groups a HAVING conjunct keeps (the cost of the rest). */
  public static boolean filtersGroupsOnDevice(List<PipelineStage> stages) {
    return GpuColumnarPipeline.filtersGroupsOnDevice(stages);
  }

  /** Whether {@code stages} end in a marking probe (a mark join's probe side): they return no rows. */
  public static boolean endsInMarks(List<PipelineStage> stages) {
    return !stages.isEmpty() && stages.get(stages.size() - 1) instanceof PipelineStage.HashJoinProbe p
        && p.probe().kind() == JoinProbe.Kind.MARK_BUILD;
  }

  public GpuPipelineChoice(TransferMethod method, FilterVariant variant, long cacheRequestBytes) {
    this(method, variant, cacheRequestBytes, 0, false);
  }

  public GpuPipelineChoice {
    if (expectedGroups < 0) {
      throw new IllegalArgumentException("negative group estimate " + expectedGroups);
    }
    if (method == null || variant == null) {
      throw new IllegalArgumentException("a GPU pipeline needs a transfer method and a filter variant, got "
          + method + " and " + variant);
    }
    if (cacheRequestBytes < 0) {
      throw new IllegalArgumentException("negative cache size " + cacheRequestBytes);
    }
  }
}
