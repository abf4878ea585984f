package org.spillway.gpu.plan;

import java.util.Optional;
import org.spillway.gpu.device.CudaDevice;
import org.spillway.gpu.join.GpuEquiJoin;

/**
 * Where a {@link MaterializedJoinNode} gets its GPU join: the planner asks which algorithms this build can run, the
 * node asks for a join configured as the planner chose. {@link GpuJoins#factory()} is the one in use; tests that
 * check the GPU path's plumbing install one of their own.
 */
public interface GpuJoinFactory {
  /** Why {@code algorithm} cannot run in this build, or empty when it can. */
  Optional<String> unavailableReason(GpuJoinSpec.Algorithm algorithm);

  /**
   * A new join on {@code device}, configured as {@code spec} says; the caller closes it. Only called for an
   * algorithm whose {@link #unavailableReason} is empty.
   */
  GpuEquiJoin create(CudaDevice device, GpuJoinSpec spec);
}
