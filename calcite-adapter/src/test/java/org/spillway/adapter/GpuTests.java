package org.spillway.adapter;

import org.junit.jupiter.api.Assumptions;
import org.spillway.gpu.device.GpuRuntime;

/** What the adapter's gpu-tagged tests share: they skip without a CUDA device, fail where gpu.required says one must be. */
final class GpuTests {
  private GpuTests() {}

  /** Skips the test (or class) without a usable CUDA device, or fails when -Dgpu.required=true. */
  static void requireDevice() {
    if (GpuRuntime.device().isEmpty() && Boolean.getBoolean("gpu.required")) {
      throw new IllegalStateException("no usable CUDA device: " + GpuRuntime.unavailableReason());
    }
    Assumptions.assumeTrue(GpuRuntime.device().isPresent(), "no CUDA device");
  }
}
