package org.spillway.gpu.device;

import jcuda.driver.CUresult;

/** A failed CUDA driver call, naming the call, its context and the CUDA error. */
public class CudaException extends RuntimeException {
  private static final long serialVersionUID = 1L;
  private final int result;

  public CudaException(String call, int result) {
    super(call + " failed: " + CUresult.stringFor(result) + " (" + result + ")");
    this.result = result;
  }

  public CudaException(String message) {
    super(message);
    this.result = CUresult.CUDA_SUCCESS;
  }

  /** The CUresult code, or CUDA_SUCCESS where the failure is not a driver error. */
  public int result() {
    return result;
  }

  /** Throws when {@code result} is not CUDA_SUCCESS; every driver call in Spillway goes through here. */
  public static void check(int result, String call) {
    if (result != CUresult.CUDA_SUCCESS) {
      throw new CudaException(call, result);
    }
  }
}
