package org.spillway.gpu;

import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.spillway.gpu.device.GpuRuntime;

/** JUnit condition: enabled when GpuRuntime has a usable device; otherwise skip, or fail if gpu.required. */
public final class CudaAvailable implements ExecutionCondition {
  @Override
  public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
    String problem = GpuRuntime.unavailableReason();
    if (problem == null) {
      return ConditionEvaluationResult.enabled("CUDA device: " + GpuRuntime.requireDevice());
    }
    if (Boolean.getBoolean("gpu.required")) {  // the GPU machine: a missing device is a failure, not a skip
      throw new IllegalStateException("gpu.required=true but " + problem);
    }
    return ConditionEvaluationResult.disabled(problem);
  }
}
