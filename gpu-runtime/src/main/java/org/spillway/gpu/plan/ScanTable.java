package org.spillway.gpu.plan;

import org.apache.arrow.vector.VectorSchemaRoot;
import java.util.List;

/**
 * A table as the runtime plan scans it: its Arrow batches in CPU memory (loaded when first asked for), and where its
 * pipelines' runs are counted. The adapter's table implements it; the engine never sees the catalog.
 */
public interface ScanTable {
  /** The table's batches, loading them if needed. */
  List<VectorSchemaRoot> batches();

  /** Rows over all batches. */
  long rowCount();

  /** The table's name, for traces and errors. */
  String name();

  /** Where this table's pipeline runs are counted (the connection's device usage). */
  DeviceRuns deviceRuns();
}
