package org.spillway.gpu.device;

import static jcuda.driver.JCudaDriver.cuEventCreate;
import static jcuda.driver.JCudaDriver.cuEventDestroy;
import static jcuda.driver.JCudaDriver.cuEventElapsedTime;
import static jcuda.driver.JCudaDriver.cuEventRecord;
import static jcuda.driver.JCudaDriver.cuEventSynchronize;

import jcuda.driver.CUevent;
import jcuda.driver.CUevent_flags;

/** A CUDA event: marks a point in a stream, for ordering across streams and for timing. */
public final class CudaEvent implements AutoCloseable {
  private final CudaDevice device;
  private final CUevent handle = new CUevent();
  private boolean recorded;
  private boolean closed;

  CudaEvent(CudaDevice device, boolean timing) {
    this.device = device;
    device.makeCurrent();
    int flags = timing ? CUevent_flags.CU_EVENT_DEFAULT : CUevent_flags.CU_EVENT_DISABLE_TIMING;
    CudaException.check(cuEventCreate(handle, flags), "cuEventCreate");
  }

  CUevent handle() {
    return handle;
  }

  /** Records this event at the current end of {@code stream}. */
  public void record(CudaStream stream) {
    CudaException.check(cuEventRecord(handle, stream.handle()), "cuEventRecord");
    recorded = true;
  }

  /** Blocks until the recorded work is done; returns at once if the event was never recorded. */
  public void synchronize() {
    if (recorded) {
      device.makeCurrent();
      CudaException.check(cuEventSynchronize(handle), "cuEventSynchronize");
    }
  }

  /** Milliseconds between {@code start} and this event, both recorded with timing enabled. */
  public float elapsedMillisSince(CudaEvent start) {
    synchronize();
    float[] ms = {0};
    CudaException.check(cuEventElapsedTime(ms, start.handle, handle), "cuEventElapsedTime");
    return ms[0];
  }

  @Override
  public void close() {
    if (!closed) {
      closed = true;
      device.makeCurrent();
      CudaException.check(cuEventDestroy(handle), "cuEventDestroy");
    }
  }
}
