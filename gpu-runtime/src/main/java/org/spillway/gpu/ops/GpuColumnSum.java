package org.spillway.gpu.ops;

import static jcuda.driver.JCudaDriver.cuMemcpyDtoH;
import static jcuda.driver.JCudaDriver.cuMemsetD8;

import java.util.List;
import jcuda.Pointer;
import org.spillway.gpu.device.CudaDevice;
import org.spillway.gpu.device.CudaException;
import org.spillway.gpu.device.CudaKernel;
import org.spillway.gpu.device.CudaStream;
import org.spillway.gpu.device.DeviceBuffer;
import org.spillway.gpu.device.DevicePointer;
import org.spillway.gpu.transfer.ChunkConsumer;
import org.spillway.gpu.transfer.ColumnType;
import org.spillway.gpu.transfer.DeviceChunk;
import org.spillway.gpu.transfer.HostColumn;
import org.spillway.gpu.transfer.TransferPipeline;

/**
 * The GPU backend of ColumnSum: streams the column through a transfer pipeline into the column_sum
 * kernel (src/main/cuda/column_sum.cu), which adds each chunk into one device accumulator.
 */
public final class GpuColumnSum implements ColumnSum {
  private static final int BLOCK_THREADS = 256;

  private final TransferPipeline pipeline;
  private final CudaDevice device;
  private final int maxBlocks;

  /** Default grid: four blocks of 256 threads per SM keep enough 16-byte loads in flight to cover PCIe latency. */
  public static final int DEFAULT_BLOCKS_PER_SM = 4;

  /** Sums through {@code pipeline}, which the caller owns and closes. */
  public GpuColumnSum(TransferPipeline pipeline) {
    this(pipeline, DEFAULT_BLOCKS_PER_SM);
  }

  /** As above, with at most {@code blocksPerSm} blocks per multiprocessor per chunk launch. */
  public GpuColumnSum(TransferPipeline pipeline, int blocksPerSm) {
    if (blocksPerSm < 1) {
      throw new IllegalArgumentException("blocksPerSm must be at least 1, got " + blocksPerSm);
    }
    this.pipeline = pipeline;
    this.device = pipeline.device();
    this.maxBlocks = device.multiprocessors() * blocksPerSm;
  }

  @Override
  public String describe() {
    return "gpu " + pipeline.method().label();
  }

  @Override
  public SumResult sum(HostColumn column) {
    try (DeviceBuffer accumulator = device.allocator().allocate(8, "column sum accumulator")) {
      device.makeCurrent();
      CudaException.check(cuMemsetD8(accumulator.pointer(), (byte) 0, 8), "cuMemsetD8(accumulator)");
      pipeline.run(List.of(column), consumer(column.type(), accumulator));
      long[] bits = {0};
      CudaException.check(cuMemcpyDtoH(Pointer.to(bits), accumulator.pointer(), 8), "cuMemcpyDtoH(accumulator)");
      return column.type() == ColumnType.FLOAT64
          ? new SumResult(column.type(), column.rowCount(), 0, Double.longBitsToDouble(bits[0]))
          : new SumResult(column.type(), column.rowCount(), bits[0], 0);
    }
  }

  /** The per-chunk kernel launch adding into the 8-byte accumulator at the start of {@code accumulator}. */
  public ChunkConsumer consumer(ColumnType type, DeviceBuffer accumulator) {
    return consumer(type, accumulator, 0);
  }

  /** The per-chunk kernel launch adding into the 8 bytes at {@code offset} of {@code accumulator}. */
  public ChunkConsumer consumer(ColumnType type, DeviceBuffer accumulator, long offset) {
    CudaKernel kernel = kernel(device, type);
    var target = accumulator.pointer(offset);
    return (DeviceChunk chunk, CudaStream stream) -> {
      long vectors = (chunk.rowCount() * type.width() + 15) / 16;
      int blocks = (int) Math.max(1, Math.min(maxBlocks, (vectors + BLOCK_THREADS - 1) / BLOCK_THREADS));
      kernel.launch(blocks, BLOCK_THREADS, stream, new DevicePointer(chunk.columnAddresses()[0]),
          chunk.rowCount(), target);
    };
  }

  static CudaKernel kernel(CudaDevice device, ColumnType type) {
    String function = switch (type) {
      case INT32 -> "column_sum_i32";
      case INT64 -> "column_sum_i64";
      case FLOAT64 -> "column_sum_f64";
      case VALIDITY -> throw new IllegalArgumentException("column_sum sums values, not validity bitmaps");
    };
    return device.module("ops/column_sum").kernel(function);
  }
}
