package org.spillway.gpu.ops;

import org.spillway.gpu.transfer.HostColumn;

/** Sums a fixed-width host column; implemented on the GPU (per transfer method) and on the CPU. */
public interface ColumnSum {
  SumResult sum(HostColumn column);

  /** Where it runs, e.g. "cpu (16 threads)" or "gpu zero-copy". */
  String describe();
}
