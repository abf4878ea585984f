package org.spillway.gpu.join.nopa;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.function.LongSupplier;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.util.MemoryUtil;
import org.spillway.gpu.join.HostJoinInput;
import org.spillway.gpu.join.JoinInput;
import org.spillway.gpu.transfer.ColumnType;
import org.spillway.gpu.transfer.HostColumn;

/**
 * A test relation held twice: as Java arrays (for the CPU join, which is the reference) and, once
 * {@link #in(BufferAllocator)} places it, as INT32 or INT64 columns plus an Arrow validity bitmap in host memory
 * of a transfer method's kind (for the GPU join).
 */
record GpuJoinRelation(long[] keys, long[] payloads, long[] validity, ColumnType keyType, ColumnType payloadType) {
  /**
   * {@code rows} rows with keys from {@code key} (which must fit {@code keyType}), random payloads that fit
   * {@code payloadType}, and a share {@code nullShare} of NULL keys.
   */
  static GpuJoinRelation of(int rows, LongSupplier key, SplittableRandom random, double nullShare, ColumnType keyType,
      ColumnType payloadType) {
    long[] keys = new long[rows];
    long[] payloads = new long[rows];
    long[] validity = nullShare > 0 ? new long[(rows + 63) / 64] : null;
    for (int i = 0; i < rows; i++) {
      keys[i] = key.getAsLong();
      if (keyType == ColumnType.INT32 && keys[i] != (int) keys[i]) {
        throw new IllegalArgumentException("key " + keys[i] + " does not fit an INT32 key column");
      }
      payloads[i] = payloadType == ColumnType.INT32 ? random.nextInt() : random.nextLong();
      if (validity != null && random.nextDouble() >= nullShare) {
        validity[i >>> 6] |= 1L << i;
      }
    }
    return new GpuJoinRelation(keys, payloads, validity, keyType, payloadType);
  }

  int rows() {
    return keys.length;
  }

  /** The relation as the CPU join reads it. */
  JoinInput cpu() {
    return JoinInput.withValidity(keys, payloads, validity);
  }

  /** Copies the relation into buffers of {@code allocator}; close the result to free them. */
  Placed in(BufferAllocator allocator) {
    List<ArrowBuf> buffers = new ArrayList<>();
    try {
      HostColumn k = column(allocator, buffers, "keys", keyType, keys);
      HostColumn p = column(allocator, buffers, "payloads", payloadType, payloads);
      long validityAddress = 0;
      if (validity != null) {
        ArrowBuf v = allocator.buffer(Math.max(8, 8L * validity.length));
        buffers.add(v);
        for (int w = 0; w < validity.length; w++) {
          MemoryUtil.putLong(v.memoryAddress() + 8L * w, validity[w]);  // little endian: Arrow's bit order
        }
        validityAddress = v.memoryAddress();
      }
      return new Placed(new HostJoinInput(k, p, validityAddress), buffers);
    } catch (RuntimeException e) {
      buffers.forEach(ArrowBuf::close);
      throw e;
    }
  }

  private static HostColumn column(BufferAllocator allocator, List<ArrowBuf> buffers, String name, ColumnType type,
      long[] values) {
    ArrowBuf buf = allocator.buffer(Math.max(8, (long) values.length * type.width()));
    buffers.add(buf);
    for (int i = 0; i < values.length; i++) {
      if (type == ColumnType.INT32) {
        MemoryUtil.putInt(buf.memoryAddress() + 4L * i, (int) values[i]);
      } else {
        MemoryUtil.putLong(buf.memoryAddress() + 8L * i, values[i]);
      }
    }
    return new HostColumn(name, type, buf.memoryAddress(), values.length);
  }

  /** The relation in host memory, as the GPU join reads it. */
  record Placed(HostJoinInput input, List<ArrowBuf> buffers) implements AutoCloseable {
    HostJoinInput keysOnly() {
      return new HostJoinInput(input.keys(), null, input.validityAddress());
    }

    @Override
    public void close() {
      buffers.forEach(ArrowBuf::close);
    }
  }
}
