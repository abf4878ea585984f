package org.spillway.gpu.plan;

/** Counts the pipeline runs of a connection by device, so that a server can say where each query ran. */
public interface DeviceRuns {
  /** Counts one pipeline run, on the GPU or on the CPU backend. */
  void record(boolean onGpu);

  /** Counts nothing (tests, plans run outside a connection). */
  DeviceRuns NONE = onGpu -> { };
}
