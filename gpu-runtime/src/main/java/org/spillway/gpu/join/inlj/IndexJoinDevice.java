package org.spillway.gpu.join.inlj;

import org.spillway.gpu.device.CudaDevice;

/**
 * Where a windowed index join runs, as its caller chooses: on {@link Cpu#threads} of the engine's pool, or on a
 * CUDA device that reads the index zero-copy from pinned host memory.
 */
public sealed interface IndexJoinDevice {
  /** The CPU join ({@link WindowedIndexJoin}) on {@code threads} threads. */
  record Cpu(int threads) implements IndexJoinDevice {
    public Cpu {
      if (threads < 1) {
        throw new IllegalArgumentException("a join runs on at least one thread, got " + threads);
      }
    }
  }

  /** The GPU join ({@link GpuWindowedIndexJoin}) on {@code device}. */
  record Gpu(CudaDevice device) implements IndexJoinDevice {
    public Gpu {
      if (device == null) {
        throw new IllegalArgumentException("a GPU join needs a device, got null");
      }
    }
  }

  static IndexJoinDevice cpu(int threads) {
    return new Cpu(threads);
  }

  static IndexJoinDevice gpu(CudaDevice device) {
    return new Gpu(device);
  }
}
