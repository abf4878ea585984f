package org.spillway.gpu.device;

/** An allocation that the GPU budget, the device or the pinned host memory could not satisfy. */
public class GpuMemoryException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public GpuMemoryException(String message) {
    super(message);
  }

  public GpuMemoryException(String message, Throwable cause) {
    super(message, cause);
  }
}
