package org.spillway.gpu.pipeline.gpu;

import org.spillway.gpu.device.CudaDevice;
import org.spillway.gpu.device.CudaKernel;
import org.spillway.gpu.device.CudaModule;

/** The kernels of columnar_pipeline.cu, columnar_pipeline_rows.cu and selection_aggregate.cu on one device. */
final class GpuKernels {
  /** The kernel modules' names (their fatbins, listed in GpuRuntime.KERNEL_MODULES). */
  static final String MODULE = "pipeline/gpu/columnar_pipeline";
  static final String SELECTION_MODULE = "pipeline/gpu/selection_aggregate";
  static final String ROWS_MODULE = "pipeline/gpu/columnar_pipeline_rows";

  final CudaKernel init;
  final CudaKernel global;
  final CudaKernel grouped;
  final CudaKernel rows;
  final CudaKernel rowsScan;
  final CudaKernel rowsGather;
  final CudaKernel joinBuild;
  final CudaKernel widen;
  final CudaKernel packKeys;
  final CudaKernel compact;
  final CudaKernel regroup;
  final CudaKernel selectionBranching;
  final CudaKernel selectionPredication;

  GpuKernels(CudaDevice device) {
    CudaModule module = device.module(MODULE);
    this.init = module.kernel("columnar_pipeline_init");
    this.global = module.kernel("columnar_pipeline_global");
    this.grouped = module.kernel("columnar_pipeline_grouped");
    this.joinBuild = module.kernel("columnar_pipeline_join_build");
    this.widen = module.kernel("columnar_pipeline_widen");
    this.packKeys = module.kernel("columnar_pipeline_pack_keys");
    this.compact = module.kernel("columnar_pipeline_compact");
    this.regroup = module.kernel("columnar_pipeline_regroup");
    CudaModule rowsModule = device.module(ROWS_MODULE);
    this.rows = rowsModule.kernel("columnar_pipeline_rows");
    this.rowsScan = rowsModule.kernel("columnar_pipeline_rows_scan");
    this.rowsGather = rowsModule.kernel("columnar_pipeline_rows_gather");
    CudaModule selection = device.module(SELECTION_MODULE);
    this.selectionBranching = selection.kernel("selection_aggregate_branching");
    this.selectionPredication = selection.kernel("selection_aggregate_predication");
  }
}
