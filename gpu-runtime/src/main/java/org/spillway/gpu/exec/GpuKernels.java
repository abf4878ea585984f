package org.spillway.gpu.exec;

import org.spillway.gpu.cuda.CudaDevice;
import org.spillway.gpu.cuda.CudaKernel;
import org.spillway.gpu.cuda.CudaModule;

/** The kernels of columnar_pipeline.cu on one device. */
final class GpuKernels {
  /** The kernel module's name (its fatbin, listed in GpuRuntime.KERNEL_MODULES). */
  static final String MODULE = "columnar_pipeline";

  final CudaKernel init;
  final CudaKernel global;
  final CudaKernel grouped;

  GpuKernels(CudaDevice device) {
    CudaModule module = device.module(MODULE);
    this.init = module.kernel("columnar_pipeline_init");
    this.global = module.kernel("columnar_pipeline_global");
    this.grouped = module.kernel("columnar_pipeline_grouped");
  }
}
