package org.spillway.gpu.device;

import static jcuda.driver.JCudaDriver.cuFuncSetAttribute;
import static jcuda.driver.JCudaDriver.cuLaunchKernel;

import jcuda.NativePointerObject;
import jcuda.Pointer;
import jcuda.driver.CUfunction;
import jcuda.driver.CUfunction_attribute;

/** One kernel of a loaded module, launched with checked, typed arguments. */
public final class CudaKernel {
  private final CudaDevice device;
  private final String name;
  private final CUfunction function;
  /** Dynamic shared memory this kernel may use per block; above 48 KiB it must be opted into. */
  private volatile int dynamicSharedLimit = 48 << 10;

  CudaKernel(CudaDevice device, String name, CUfunction function) {
    this.device = device;
    this.name = name;
    this.function = function;
  }

  public String name() {
    return name;
  }

  /**
   * Launches a 1-D grid on {@code stream}. Arguments are device pointers, Long (64-bit), Integer (32-bit),
   * Double or long[] (a struct of 64-bit words passed by value), matching the kernel's C parameters in order.
   */
  public void launch(int gridBlocks, int blockThreads, CudaStream stream, Object... args) {
    launch(gridBlocks, blockThreads, 0, stream, args);
  }

  /**
   * As above with {@code sharedBytes} of dynamic shared memory per block; more than 48 KiB (up to the
   * device's opt-in maximum) is allowed through cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES).
   */
  public void launch(int gridBlocks, int blockThreads, int sharedBytes, CudaStream stream, Object... args) {
    if (sharedBytes > dynamicSharedLimit) {
      allowDynamicShared(sharedBytes);
    }
    Pointer[] params = new Pointer[args.length];
    for (int i = 0; i < args.length; i++) {
      params[i] = toParameter(args[i], i);
    }
    device.makeCurrent();
    CudaException.check(
        cuLaunchKernel(function, gridBlocks, 1, 1, blockThreads, 1, 1, sharedBytes, stream.handle(),
            Pointer.to(params), null),
        "cuLaunchKernel(" + name + ", grid " + gridBlocks + ", block " + blockThreads + ", shared " + sharedBytes
            + " bytes)");
  }

  private synchronized void allowDynamicShared(int bytes) {
    if (bytes > dynamicSharedLimit) {
      device.makeCurrent();
      CudaException.check(cuFuncSetAttribute(function,
          CUfunction_attribute.CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, bytes),
          "cuFuncSetAttribute(" + name + ", MAX_DYNAMIC_SHARED_SIZE_BYTES, " + bytes + ")");
      dynamicSharedLimit = bytes;
    }
  }

  private Pointer toParameter(Object arg, int index) {
    if (arg instanceof NativePointerObject p) {
      return Pointer.to(p);
    } else if (arg instanceof Long v) {
      return Pointer.to(new long[] {v});
    } else if (arg instanceof Integer v) {
      return Pointer.to(new int[] {v});
    } else if (arg instanceof Double v) {
      return Pointer.to(new double[] {v});
    } else if (arg instanceof long[] words) {
      return Pointer.to(words);
    }
    throw new IllegalArgumentException("kernel " + name + " argument " + index + ": unsupported type "
        + (arg == null ? "null" : arg.getClass().getName()));
  }
}
