package org.spillway.gpu.plan;

import org.spillway.gpu.pipeline.gpu.FilterVariant;
import org.spillway.gpu.transfer.TransferMethod;

/**
 * What the planner chose for a pipeline over a scan that the GPU runs: the transfer method that streams its
 * columns, how its kernel filters, and the bytes it asks the device's column cache to hold (0: it streams every
 * run; the first request sizes the process-wide cache, see {@link GpuColumnCaches}).
 */
public record GpuPipelineChoice(TransferMethod method, FilterVariant variant, long cacheRequestBytes) {
  public GpuPipelineChoice {
    if (method == null || variant == null) {
      throw new IllegalArgumentException("a GPU pipeline needs a transfer method and a filter variant, got "
          + method + " and " + variant);
    }
    if (cacheRequestBytes < 0) {
      throw new IllegalArgumentException("negative cache size " + cacheRequestBytes);
    }
  }
}
