package org.spillway.gpu.device;

import static jcuda.driver.JCudaDriver.cuModuleGetFunction;
import static jcuda.driver.JCudaDriver.cuModuleLoadData;

import java.io.IOException;
import java.io.InputStream;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import jcuda.driver.CUfunction;
import jcuda.driver.CUmodule;

/** A kernel module loaded from a fatbin that nvcc built into the jar, with its kernels by name. */
public final class CudaModule {
  /** Where build-kernels.sh puts the fatbins inside the jar. */
  public static final String RESOURCE_DIR = "/org/spillway/gpu/kernels/";

  private final CudaDevice device;
  private final String name;
  private final CUmodule handle = new CUmodule();
  private final Map<String, CudaKernel> kernels = new ConcurrentHashMap<>();

  CudaModule(CudaDevice device, String name) {
    this.device = device;
    this.name = name;
    byte[] image = readImage(name);
    device.makeCurrent();
    CudaException.check(cuModuleLoadData(handle, image), "cuModuleLoadData(" + name + ".fatbin)");
  }

  /** True when the fatbin of {@code name} is in the jar (false where the build ran without nvcc). */
  public static boolean isBuilt(String name) {
    return CudaModule.class.getResource(RESOURCE_DIR + name + ".fatbin") != null;
  }

  private static byte[] readImage(String name) {
    try (InputStream in = CudaModule.class.getResourceAsStream(RESOURCE_DIR + name + ".fatbin")) {
      if (in == null) {
        throw new CudaException("CUDA kernels missing: " + RESOURCE_DIR + name
            + ".fatbin is not on the classpath (gpu-runtime was built without nvcc)");
      }
      return in.readAllBytes();
    } catch (IOException e) {
      throw new CudaException("cannot read kernel module " + name + ".fatbin: " + e.getMessage());
    }
  }

  /** The kernel {@code function} (an extern "C" __global__ function) of this module. */
  public CudaKernel kernel(String function) {
    return kernels.computeIfAbsent(function, f -> {
      CUfunction fn = new CUfunction();
      CudaException.check(cuModuleGetFunction(fn, handle, f), "cuModuleGetFunction(" + name + "." + f + ")");
      return new CudaKernel(device, name + "." + f, fn);
    });
  }
}
