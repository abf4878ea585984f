package org.spillway.gpu.device;

import static jcuda.driver.JCudaDriver.cuDeviceGet;
import static jcuda.driver.JCudaDriver.cuDeviceGetCount;
import static jcuda.driver.JCudaDriver.cuInit;

import java.util.Optional;
import jcuda.driver.CUdevice;
import jcuda.driver.CUresult;
import jcuda.driver.JCudaDriver;

/**
 * Entry point of the GPU backend: finds the CUDA device once, or says in one line why there is none
 * (no driver, no device, kernels not built), in which case the CPU backend serves.
 */
public final class GpuRuntime {
  /** System property choosing the device ordinal (default 0). */
  public static final String DEVICE_PROPERTY = "spillway.gpu.device";
  /**
   * The kernel modules the GPU backend needs, named by their path under src/main/cuda (a folder per Java
   * package of the operator); all are built by nvcc.
   */
  public static final String[] KERNEL_MODULES = {"ops/column_sum", "calibrate/link_probe",
      "pipeline/gpu/columnar_pipeline", "pipeline/gpu/columnar_pipeline_rows", "pipeline/gpu/selection_aggregate",
      "join/nopa/nopa_hash_join", "join/triton/hierarchical_partitioner", "join/triton/shared_partitioner",
      "join/triton/triton_join", "index/binary_search_index", "index/b_plus_tree", "index/harmonia",
      "index/radix_spline", "join/inlj/windowed_index_join"};

  private static final Probe PROBE = probe();

  private record Probe(CudaDevice device, String problem) {}

  private GpuRuntime() {}

  /** The CUDA device, or empty when none is usable; never throws. */
  public static Optional<CudaDevice> device() {
    return Optional.ofNullable(PROBE.device);
  }

  /** One line saying why no device is usable, or null when {@link #device()} is present. */
  public static String unavailableReason() {
    return PROBE.problem;
  }

  /** The device, or an IllegalStateException carrying {@link #unavailableReason()}. */
  public static CudaDevice requireDevice() {
    if (PROBE.device == null) {
      throw new IllegalStateException("no usable CUDA device: " + PROBE.problem);
    }
    return PROBE.device;
  }

  private static Probe probe() {
    try {
      JCudaDriver.setExceptionsEnabled(false);
      int rc = cuInit(0);
      if (rc != CUresult.CUDA_SUCCESS) {
        return new Probe(null, "cuInit failed: " + CUresult.stringFor(rc));
      }
      int[] count = {0};
      rc = cuDeviceGetCount(count);
      if (rc != CUresult.CUDA_SUCCESS) {
        return new Probe(null, "cuDeviceGetCount failed: " + CUresult.stringFor(rc));
      }
      int ordinal = Integer.getInteger(DEVICE_PROPERTY, 0);
      if (count[0] == 0) {
        return new Probe(null, "no CUDA device");
      }
      if (ordinal < 0 || ordinal >= count[0]) {
        return new Probe(null, DEVICE_PROPERTY + "=" + ordinal + " but there are " + count[0] + " CUDA devices");
      }
      for (String module : KERNEL_MODULES) {
        if (!CudaModule.isBuilt(module)) {
          return new Probe(null, "CUDA kernels missing (" + module + ".fatbin): gpu-runtime was built without nvcc");
        }
      }
      CUdevice handle = new CUdevice();
      rc = cuDeviceGet(handle, ordinal);
      if (rc != CUresult.CUDA_SUCCESS) {
        return new Probe(null, "cuDeviceGet(" + ordinal + ") failed: " + CUresult.stringFor(rc));
      }
      return new Probe(new CudaDevice(ordinal, handle), null);
    } catch (Throwable t) {  // UnsatisfiedLinkError when libcuda.so.1 or the JNI library is absent
      return new Probe(null, "JCuda unavailable: " + oneLine(t));
    }
  }

  /** JCuda's load errors span many lines; the one naming the missing shared object says it all. */
  private static String oneLine(Throwable t) {
    String message = String.valueOf(t.getMessage());
    String first = null;
    for (String line : message.split("\\R")) {
      if (line.contains("cannot open shared object file")) {
        return line.trim();
      }
      if (first == null && !line.isBlank()) {
        first = line.trim();
      }
    }
    return t.getClass().getSimpleName() + ": " + first;
  }
}
