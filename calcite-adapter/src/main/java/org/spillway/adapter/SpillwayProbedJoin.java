package org.spillway.adapter;

import java.util.Optional;

/**
 * A join that a pipeline over a scan probes as one of its stages ({@link SpillwayJoin}'s hash probe, {@link
 * SpillwayMarkJoin}'s marking probe): what the probe costs on either device, what the GPU cannot do with it, and the
 * device the pipeline's backend choice gave it, which its EXPLAIN shows.
 */
interface SpillwayProbedJoin {
  /** The predicted time of the probe (its table built, every probe row looked up) in a GPU or a CPU pipeline. */
  double pipelinedSeconds(boolean gpu);

  /** The part of {@link #pipelinedSeconds}(false) that builds the table on the CPU. */
  double cpuBuildSeconds();

  /** Why a GPU pipeline cannot probe this join, or empty. */
  Optional<String> gpuProbeRefusal();

  /** Records the backend of the pipeline that probes this join, for EXPLAIN. */
  void probedOn(boolean gpu);
}
