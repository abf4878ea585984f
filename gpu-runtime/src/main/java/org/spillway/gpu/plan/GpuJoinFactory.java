package org.spillway.gpu.plan;

import org.spillway.gpu.device.CudaDevice;
import org.spillway.gpu.join.GpuEquiJoin;

/**
 * Creates the GPU join of a {@link MaterializedJoinNode} on the device it runs on, configured as the planner chose
 * (the adapter fills it in from its cost model); the caller closes the join.
 */
@FunctionalInterface
public interface GpuJoinFactory {
  GpuEquiJoin create(CudaDevice device);
}
