package org.spillway.gpu.device;

import static jcuda.driver.JCudaDriver.cuFuncSetAttribute;
import static jcuda.driver.JCudaDriver.cuLaunchKernel;
import static jcuda.driver.JCudaDriver.cuOccupancyMaxActiveBlocksPerMultiprocessor;

import jcuda.NativePointerObject;
import jcuda.Pointer;
import jcuda.driver.CUfunction;
import jcuda.driver.CUfunction_attribute;

/** One kernel of a loaded module, launched with checked, typed arguments. */
public final class CudaKernel {
  private final CudaDevice device;
  private final String name;
  private final CUfunction function;
  /**
   * Dynamic shared memory this kernel was allowed per block. Without asking, static and dynamic shared memory
   * together may not exceed 48 KiB, so any dynamic size is asked for once.
   */
  private volatile int dynamicSharedLimit;
  /** The last occupancy question (block threads, dynamic shared bytes packed) and its answer. */
  private volatile long[] resident = {-1, 0};

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
   * As above with {@code sharedBytes} of dynamic shared memory per block, allowed through
   * cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES) up to the device's opt-in maximum.
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

  /**
   * Blocks of {@code blockThreads} threads with {@code dynamicSharedBytes} of dynamic shared memory each that one
   * multiprocessor holds at once, as this kernel's registers and shared memory allow. A grid of more blocks than
   * that per multiprocessor runs in waves, and its last wave leaves the multiprocessors part idle.
   */
  public int residentBlocksPerMultiprocessor(int blockThreads, int dynamicSharedBytes) {
    long asked = ((long) blockThreads << 32) | dynamicSharedBytes;
    long[] known = resident;
    if (known[0] != asked) {
      if (dynamicSharedBytes > dynamicSharedLimit) {
        allowDynamicShared(dynamicSharedBytes);
      }
      int[] blocks = new int[1];
      device.makeCurrent();
      CudaException.check(cuOccupancyMaxActiveBlocksPerMultiprocessor(blocks, function, blockThreads,
          dynamicSharedBytes), "cuOccupancyMaxActiveBlocksPerMultiprocessor(" + name + ", block " + blockThreads
          + ", shared " + dynamicSharedBytes + ")");
      known = new long[] {asked, Math.max(1, blocks[0])};
      resident = known;
    }
    return (int) known[1];
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
