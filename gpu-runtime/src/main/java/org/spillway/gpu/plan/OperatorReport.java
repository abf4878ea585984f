package org.spillway.gpu.plan;

import org.spillway.gpu.pipeline.gpu.GpuColumnarPipeline;

import java.util.Locale;

/**
 * One run of one runtime node, as EXPLAIN ANALYZE shows it: what the planner called it and predicted, where it ran,
 * the rows it output, the wall time of its own work (after its inputs ran, see the node), and the bytes it streamed
 * to the GPU over the link and those that came back.
 */
public record OperatorReport(PlannedOperator planned, Execution execution, long rows, long nanos) {
  public OperatorReport {
    if (rows < 0 || nanos < 0) {
      throw new IllegalArgumentException("a report of " + planned.label() + " with " + rows + " rows in " + nanos
          + " ns");
    }
  }

  /**
   * Where a node ran: {@code device} is {@code cpu}, {@code gpu}, {@code gpu+cpu} with the batches each took (a scan
   * the CPU workers shared with the GPU), {@code gpu, fell back to cpu: why} or
   * {@code shared} (an output the run computed once for another use of the same subtree), with the bytes that
   * crossed the link to the GPU and back.
   */
  public record Execution(String device, long linkBytes, long returnedBytes) {
    /** The CPU backend: nothing crosses the link. */
    public static final Execution CPU = new Execution("cpu", 0, 0);
    /** An output computed earlier in the same run and handed to one more use. */
    public static final Execution SHARED = new Execution("shared", 0, 0);

    /** A GPU run that moved {@code linkBytes} to the device and {@code returnedBytes} back. */
    public static Execution gpu(long linkBytes, long returnedBytes) {
      return new Execution("gpu", linkBytes, returnedBytes);
    }

    /**
     * The last run of a GPU pipeline: on the GPU with its link statistics, or on the CPU backend after all, with
     * the reason (the bytes a GPU pass streamed before it gave up are not counted: a fallback may happen before any
     * pass, when the pipeline's statistics are an earlier run's).
     */
    public static Execution of(GpuColumnarPipeline pipeline) {
      if (pipeline.lastFallback() != null) {
        return new Execution("gpu, fell back to cpu: " + pipeline.lastFallback(), 0, 0);
      }
      GpuColumnarPipeline.RunStats stats = pipeline.lastRun();
      GpuColumnarPipeline.Share share = pipeline.lastShare();
      String device = share == null ? "gpu"
          : String.format(Locale.ROOT, "gpu+cpu (%d+%d batches)", share.gpu(), share.cpu());
      return stats == null ? new Execution(device, 0, 0)
          : new Execution(device, stats.bytes(), stats.returnedBytes());
    }
  }

  /** The node's wall time in milliseconds. */
  public double millis() {
    return nanos / 1e6;
  }

  /** Gigabytes (10^9 bytes) per second over the link to the GPU during the node's run; 0 for none. */
  public double linkGigabytesPerSecond() {
    return nanos == 0 ? 0 : execution.linkBytes() / (double) nanos;
  }

  /** One line for the trace. */
  @Override public String toString() {
    StringBuilder line = new StringBuilder(String.format(Locale.ROOT, "%s: %s, %d rows in %.3f ms",
        planned.label(), execution.device(), rows, millis()));
    if (planned.predicted()) {
      line.append(String.format(Locale.ROOT, " (predicted %.3f ms)", planned.predictedMillis()));
    }
    if (execution.linkBytes() > 0 || execution.returnedBytes() > 0) {
      line.append(String.format(Locale.ROOT, ", %d bytes over the link, %d back", execution.linkBytes(),
          execution.returnedBytes()));
    }
    return line.toString();
  }
}
