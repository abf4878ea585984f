package org.spillway.gpu.device;

import static jcuda.driver.JCudaDriver.cuStreamCreate;
import static jcuda.driver.JCudaDriver.cuStreamDestroy;
import static jcuda.driver.JCudaDriver.cuStreamSynchronize;
import static jcuda.driver.JCudaDriver.cuStreamWaitEvent;

import jcuda.driver.CUstream;
import jcuda.driver.CUstream_flags;

/** A non-blocking CUDA stream of one device. */
public final class CudaStream implements AutoCloseable {
  private final CudaDevice device;
  private final CUstream handle = new CUstream();
  private boolean closed;

  CudaStream(CudaDevice device) {
    this.device = device;
    device.makeCurrent();
    CudaException.check(cuStreamCreate(handle, CUstream_flags.CU_STREAM_NON_BLOCKING), "cuStreamCreate");
  }

  public CUstream handle() {
    return handle;
  }

  public CudaDevice device() {
    return device;
  }

  /** Blocks the calling thread until all work queued on this stream is done. */
  public void synchronize() {
    device.makeCurrent();
    CudaException.check(cuStreamSynchronize(handle), "cuStreamSynchronize");
  }

  /** Makes later work on this stream wait for {@code event}, without blocking the host. */
  public void waitFor(CudaEvent event) {
    CudaException.check(cuStreamWaitEvent(handle, event.handle(), 0), "cuStreamWaitEvent");
  }

  @Override
  public void close() {
    if (!closed) {
      closed = true;
      device.makeCurrent();
      CudaException.check(cuStreamDestroy(handle), "cuStreamDestroy");
    }
  }
}
