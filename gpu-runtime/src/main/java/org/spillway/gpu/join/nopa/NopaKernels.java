package org.spillway.gpu.join.nopa;

import org.spillway.gpu.device.CudaDevice;
import org.spillway.gpu.device.CudaKernel;
import org.spillway.gpu.device.CudaModule;
import org.spillway.gpu.join.JoinOutput;
import org.spillway.gpu.transfer.ColumnType;
import org.spillway.gpu.transfer.HostColumn;

/** The kernels of nopa_hash_join.cu for one key column type, and the grid NopaHashJoin launches them on. */
final class NopaKernels {
  static final String MODULE = "join/nopa/nopa_hash_join";
  static final int BLOCK_THREADS = 256;

  /** What a row carries into the table or the output; the kernel's ValueMode holds the same numbers. */
  static final int VALUE_ROW = 0;
  static final int VALUE_I32 = 1;
  static final int VALUE_I64 = 2;
  static final int VALUE_ZERO = 3;

  private final CudaModule module;
  private final String suffix;
  private final int maxBlocks;

  NopaKernels(CudaDevice device, ColumnType keyType, int blocksPerSm) {
    this.module = device.module(MODULE);
    this.suffix = keyType == ColumnType.INT32 ? "i32" : "i64";
    this.maxBlocks = device.multiprocessors() * blocksPerSm;
  }

  /** Blocks for a launch over {@code rows} rows: one row per thread up to the grid limit, then grid-stride. */
  int blocks(long rows) {
    return (int) Math.max(1, Math.min(maxBlocks, (rows + BLOCK_THREADS - 1) / BLOCK_THREADS));
  }

  CudaKernel fill() {
    return module.kernel("nopa_fill_empty");
  }

  CudaKernel keyStats() {
    return module.kernel("nopa_key_stats_" + suffix);
  }

  CudaKernel build(NopaTableLayout.Kind kind) {
    return module.kernel("nopa_build_" + table(kind) + "_" + suffix);
  }

  /** The linear-probing build that gathers R's key statistics in the same pass. */
  CudaKernel buildWithStats() {
    return module.kernel("nopa_build_lp_stats_" + suffix);
  }

  CudaKernel linearProbingToPerfect() {
    return module.kernel("nopa_linear_probing_to_perfect");
  }

  CudaKernel probe(NopaTableLayout.Kind kind, JoinOutput output) {
    String sink = output == JoinOutput.AGGREGATED ? "agg" : "pairs";
    return module.kernel("nopa_probe_" + table(kind) + "_" + sink + "_" + suffix);
  }

  private static String table(NopaTableLayout.Kind kind) {
    return kind == NopaTableLayout.Kind.PERFECT ? "perfect" : "lp";
  }

  /** The value mode of a payload column. */
  static int payloadMode(HostColumn payloads) {
    return payloads.type() == ColumnType.INT32 ? VALUE_I32 : VALUE_I64;
  }
}
