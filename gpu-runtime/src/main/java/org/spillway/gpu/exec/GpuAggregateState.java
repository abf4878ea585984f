package org.spillway.gpu.exec;

import static jcuda.driver.JCudaDriver.cuMemcpyDtoH;
import static jcuda.driver.JCudaDriver.cuMemcpyHtoD;

import java.util.List;
import jcuda.Pointer;
import org.spillway.gpu.cuda.CudaDevice;
import org.spillway.gpu.cuda.CudaException;
import org.spillway.gpu.cuda.CudaStream;
import org.spillway.gpu.memory.DeviceBuffer;

/**
 * The aggregate state of one GPU pipeline run in device memory, and its reading back into result columns.
 * Layout in 64-bit words (as columnar_pipeline.cu expects): error word, group count, then per slot a packed
 * key and a row count, then per call a low and a high word per slot (a 128-bit sum for SUM, the value for
 * MIN and MAX). A global aggregate has one slot; a grouped one {@code capacity} hashed slots plus one for
 * the key that equals the empty marker.
 */
final class GpuAggregateState implements AutoCloseable {
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

  /** {@code capacity} 0 means a global aggregate (one slot, no hash table). */
  GpuAggregateState(CudaDevice device, long capacity, int callCount) {
    this.capacity = capacity;
    this.slots = capacity == 0 ? 1 : capacity + 1;
    this.callCount = callCount;
    long words = Math.addExact(2, Math.multiplyExact(slots, 2L + 2L * callCount));
    this.buffer = device.allocator().allocate(words * 8, "aggregate state of a GPU pipeline (" + slots + " slots)");
  }

  long capacity() {
    return capacity;
  }

  DeviceBuffer buffer() {
    return buffer;
  }

  /** Sets every slot to the identity of its calls (kernel columnar_pipeline_init) and waits for it. */
  void initialize(GpuKernels kernels, DeviceBuffer calls, CudaStream stream) {
    int blocks = (int) Math.max(1, Math.min(1024, (slots + 255) / 256));
    kernels.init.launch(blocks, 256, stream, buffer.pointer(), slots, calls.pointer(), callCount);
    stream.synchronize();
  }

  /** The error word: code in the high 32 bits, failing instruction in the low 32; 0 when none. */
  long error() {
    long[] word = {0};
    CudaException.check(cuMemcpyDtoH(Pointer.to(word), buffer.pointer(), 8), "cuMemcpyDtoH(error word)");
    return word[0];
  }

  /** Distinct groups inserted into the hash table so far. */
  long groups() {
    long[] word = {0};
    CudaException.check(cuMemcpyDtoH(Pointer.to(word), buffer.pointer(8), 8), "cuMemcpyDtoH(group count)");
    return word[0];
  }

  /**
   * The aggregate's output columns (group keys, then one per call), as the CPU backend's HashAggregator
   * gives them: a global aggregate has one row, also over no input.
   */
  ColumnVector[] result(PipelineStage.Aggregate aggregate, List<ExprType> inputTypes, int[] keyBits) {
    long[] words = new long[(int) Math.min(Integer.MAX_VALUE - 8, buffer.bytes() / 8)];
    CudaException.check(cuMemcpyDtoH(Pointer.to(words), buffer.pointer(), words.length * 8L), "cuMemcpyDtoH(state)");
    int[] groupKeys = aggregate.groupKeys();
    int rows = 0;
    int[] slotOf = new int[(int) slots];
    for (int s = 0; s < slots; s++) {
      if (capacity == 0 || words[(int) (2 + slots + s)] > 0) {
        slotOf[rows++] = s;
      }
    }
    ColumnVector[] out = new ColumnVector[groupKeys.length + aggregate.calls().size()];
    for (int k = 0, shift = 0; k < groupKeys.length; k++) {
      long[] values = new long[rows];
      for (int g = 0; g < rows; g++) {
        int s = slotOf[g];
        long key = s == capacity ? -1L : words[2 + s];
        values[g] = keyBits[k] == 64 ? key : (int) (key >>> shift);
      }
      shift += keyBits[k] == 64 ? 0 : 32;
      out[k] = ColumnVector.ofLongs(inputTypes.get(groupKeys[k]), values, null, rows);
    }
    for (int c = 0; c < aggregate.calls().size(); c++) {
      out[groupKeys.length + c] = callResult(aggregate.calls().get(c), c, words, slotOf, rows, inputTypes);
    }
    return out;
  }

  private ColumnVector callResult(AggCall call, int c, long[] words, int[] slotOf, int rows, List<ExprType> types) {
    long[] values = new long[rows];
    boolean[] nulls = null;
    int lo = (int) (2 + (2 + 2L * c) * slots);
    for (int g = 0; g < rows; g++) {
      int s = slotOf[g];
      long count = words[(int) (2 + slots + s)];
      if (call.kind() == AggCall.Kind.COUNT) {
        values[g] = count;  // inputs hold no NULLs, so COUNT(x) counts every row
        continue;
      }
      if (count == 0) {  // only the one row of a global aggregate over no input
        if (call.kind() != AggCall.Kind.SUM0) {
          nulls = nulls == null ? new boolean[rows] : nulls;
          nulls[g] = true;
        }
        continue;
      }
      values[g] = words[lo + s];
      boolean sum = call.kind() == AggCall.Kind.SUM || call.kind() == AggCall.Kind.SUM0;
      if (sum && words[(int) (lo + slots + s)] != values[g] >> 63) {
        throw HashAggregator.sumOverflow(call, types.get(call.argument()));
      }
    }
    HashAggregator.checkResultRange(call, values);
    return ColumnVector.ofLongs(call.resultType(), values, nulls, rows);
  }

  /** Uploads {@code values} into a new device buffer (at least 8 bytes, so that empty arrays are valid too). */
  static DeviceBuffer upload(CudaDevice device, int[] values, String purpose) {
    DeviceBuffer b = device.allocator().allocate(Math.max(8, values.length * 4L), purpose);
    if (values.length > 0) {
      copy(b, Pointer.to(values), values.length * 4L, purpose);
    }
    return b;
  }

  static DeviceBuffer upload(CudaDevice device, long[] values, String purpose) {
    DeviceBuffer b = device.allocator().allocate(Math.max(8, values.length * 8L), purpose);
    if (values.length > 0) {
      copy(b, Pointer.to(values), values.length * 8L, purpose);
    }
    return b;
  }

  private static void copy(DeviceBuffer b, Pointer from, long bytes, String purpose) {
    try {
      CudaException.check(cuMemcpyHtoD(b.pointer(), from, bytes), "cuMemcpyHtoD(" + purpose + ")");
    } catch (RuntimeException e) {
      b.close();
      throw e;
    }
  }

  @Override
  public void close() {
    buffer.close();
  }
}
