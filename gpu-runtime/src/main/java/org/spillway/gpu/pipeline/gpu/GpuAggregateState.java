package org.spillway.gpu.pipeline.gpu;

import org.spillway.gpu.vector.ColumnVector;
import org.spillway.gpu.vector.ExprType;
import static jcuda.driver.JCudaDriver.cuMemcpyDtoH;

import java.util.List;
import jcuda.Pointer;
import org.spillway.gpu.device.CudaDevice;
import org.spillway.gpu.device.HostBuffer;
import org.spillway.gpu.device.CudaException;
import org.spillway.gpu.device.CudaStream;
import org.spillway.gpu.device.DeviceBuffer;
import org.spillway.gpu.device.DevicePointer;
import org.spillway.gpu.pipeline.PipelineStage;

/**
 * The aggregate state of one GPU pipeline run in device memory, and its reading back into result columns.
 * Layout in 64-bit words (as columnar_pipeline.cu expects): error word, group count, then per slot a packed
 * key and a row count, then per call three words per slot: low and high word (a 128-bit sum for SUM, the
 * value for MIN and MAX) and the count of non-NULL arguments (kept only for calls whose argument may be
 * NULL; the others take the row count). A wide sum's two words become its exact BigDecimal, any other sum's
 * must fit 64 bits. A global aggregate has one slot; a grouped one {@code capacity}
 * hashed slots plus one for the key that equals the empty marker. The buffer may be larger than the state
 * (it comes from {@link GpuScratch}).
 */
final class GpuAggregateState {
  /** Error codes of the kernel (high word of the error word). */
  static final int ERR_ARITH = 1;
  static final int ERR_DIVIDE_BY_ZERO = 2;
  static final int ERR_INT32 = 3;
  static final int ERR_CAST = 4;
  static final int ERR_KEY_RANGE = 5;
  static final int ERR_TABLE_FULL = 6;

  private final DeviceBuffer buffer;
  private final long capacity;
  private final long slots;
  private final int callCount;

  /** {@code capacity} 0 means a global aggregate (one slot, no hash table); {@code buffer} holds {@link #bytes}. */
  GpuAggregateState(DeviceBuffer buffer, long capacity, int callCount) {
    this.capacity = capacity;
    this.slots = capacity == 0 ? 1 : capacity + 1;
    this.callCount = callCount;
    this.buffer = buffer;
    if (buffer.bytes() < bytes(capacity, callCount)) {
      throw new IllegalArgumentException("aggregate state of " + slots + " slots needs " + bytes(capacity, callCount)
          + " bytes; the buffer has " + buffer.bytes());
    }
  }

  /** Bytes of the state of a table of {@code capacity} slots (0: global) and {@code callCount} calls. */
  static long bytes(long capacity, int callCount) {
    long slots = capacity == 0 ? 1 : capacity + 1;
    return 8 * Math.addExact(2, Math.multiplyExact(slots, 2L + 3L * callCount));
  }

  long capacity() {
    return capacity;
  }

  /** Bytes of this state (see {@link #bytes(long, int)}). */
  long bytes() {
    return bytes(capacity, callCount);
  }

  DeviceBuffer buffer() {
    return buffer;
  }

  /** Sets every slot to the identity of its calls (kernel columnar_pipeline_init) and waits for it. */
  void initialize(GpuKernels kernels, DevicePointer calls, CudaStream stream) {
    int blocks = (int) Math.max(1, Math.min(1024, (slots + 255) / 256));
    kernels.init.launch(blocks, 256, stream, buffer.pointer(), slots, calls, callCount);
    stream.synchronize();
  }

  /**
   * The groups of this grouped state gathered on the device into a state of {@code groups} slots (plus the one a
   * table keeps for the empty marker's key, left unused), in {@code target}: reading it back moves the groups, not
   * the table. {@code groups} must be at least the count in the header.
   */
  GpuAggregateState compact(GpuKernels kernels, long groups, DeviceBuffer target, CudaStream stream) {
    return compact(kernels, groups, target, stream, GpuHaving.NONE);
  }

  /**
   * As above, copying only the groups that {@code having} (a {@link GpuHaving#words}) keeps; the header's group count
   * of the result is the number copied.
   */
  GpuAggregateState compact(GpuKernels kernels, long groups, DeviceBuffer target, CudaStream stream, long[] having) {
    GpuAggregateState out = new GpuAggregateState(target, groups, callCount);
    long bytes = bytes(groups, callCount);
    CudaException.check(jcuda.driver.JCudaDriver.cuMemsetD8Async(target.pointer(), (byte) 0, bytes,
        stream.handle()), "cuMemsetD8Async(compact aggregate state)");
    int blocks = (int) Math.max(1, Math.min(4096, (slots + 255) / 256));
    kernels.compact.launch(blocks, 256, stream, buffer.pointer(), slots, callCount, target.pointer(), groups + 1,
        having);
    stream.synchronize();
    return out;
  }

  /**
   * The groups of this compacted state regrouped on the device by {@code layout} (see {@link GpuRegroup}) into a
   * grouped state of {@code capacity} slots in {@code target}; its header's group count is the number of outer groups.
   */
  GpuAggregateState regroup(GpuKernels kernels, GpuRegroup.Layout layout, long capacity, DeviceBuffer target,
      CudaStream stream) {
    GpuAggregateState out = new GpuAggregateState(target, capacity, layout.calls());
    // every call counts, so zero is each word's identity but the keys', which start empty (all ones)
    CudaException.check(jcuda.driver.JCudaDriver.cuMemsetD8Async(target.pointer(), (byte) 0,
        bytes(capacity, layout.calls()), stream.handle()), "cuMemsetD8Async(regrouped aggregate state)");
    CudaException.check(jcuda.driver.JCudaDriver.cuMemsetD32Async(new DevicePointer(target.address() + 16), -1,
        2 * out.slots, stream.handle()), "cuMemsetD32Async(regrouped aggregate state's keys)");
    int blocks = (int) Math.max(1, Math.min(4096, (slots + 255) / 256));
    kernels.regroup.launch(blocks, 256, stream, buffer.pointer(), slots, layout.mask(), layout.callNullBits(),
        layout.calls(), target.pointer(), capacity);
    stream.synchronize();
    return out;
  }

  /** The first two words: the error word (code in the high 32 bits, failing instruction in the low 32; 0
   * when none) and the number of groups inserted into the hash table. */
  long[] header() {
    long[] words = {0, 0};
    CudaException.check(cuMemcpyDtoH(Pointer.to(words), buffer.pointer(), 16), "cuMemcpyDtoH(state header)");
    return words;
  }

  /**
   * The aggregate's output columns (group keys, then one per call), as the CPU backend's HashAggregator
   * gives them: a global aggregate has one row, also over no input. Key k takes {@code keyBits[k]} bits of the packed key, offset by
   * {@code keyOffsets[k]} when fewer than 32; {@code keyNullBits[k]} is the flag bit
   * of key k's NULL (-1 when it cannot be NULL); bit c of {@code trackedCalls} says that call c counted its
   * non-NULL arguments. The state comes back through pooled pinned memory of {@code device}: a compacted state of a
   * million groups is tens of megabytes, which a copy into a Java array would move at pageable speed.
   */
  ColumnVector[] result(CudaDevice device, PipelineStage.Aggregate aggregate, List<ExprType> inputTypes,
      int[] keyBits, long[] keyOffsets, int[] keyNullBits, long trackedCalls) {
    return result(device, aggregate, inputTypes, keyBits, GpuStateColumns.shifts(keyBits), keyOffsets, keyNullBits,
        trackedCalls);
  }

  /** As above, key k at bit {@code keyShifts[k]} of the packed key (a regrouped state's keys keep their places). */
  ColumnVector[] result(CudaDevice device, PipelineStage.Aggregate aggregate, List<ExprType> inputTypes,
      int[] keyBits, int[] keyShifts, long[] keyOffsets, int[] keyNullBits, long trackedCalls) {
    long bytes = bytes(capacity, callCount);
    HostBuffer host = PinnedScratch.acquire(device, bytes);
    try {
      CudaException.check(cuMemcpyDtoH(host.pointer(), buffer.pointer(), bytes), "cuMemcpyDtoH(state)");
      return new GpuStateColumns(host.address(), capacity).columns(aggregate, inputTypes, keyBits, keyShifts,
          keyOffsets, keyNullBits, trackedCalls);
    } finally {
      PinnedScratch.release(device, host);
    }
  }
}
