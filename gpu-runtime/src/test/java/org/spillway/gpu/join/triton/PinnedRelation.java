package org.spillway.gpu.join.triton;

import java.util.SplittableRandom;
import java.util.function.LongSupplier;
import org.apache.arrow.memory.util.MemoryUtil;
import org.spillway.gpu.device.CudaDevice;
import org.spillway.gpu.device.HostBuffer;
import org.spillway.gpu.join.HostJoinInput;
import org.spillway.gpu.join.JoinInput;
import org.spillway.gpu.transfer.ColumnType;
import org.spillway.gpu.transfer.HostColumn;

/**
 * Test helper: one join side in pinned mapped host memory, as GPU joins read it (key column, payload column,
 * Arrow validity bitmap), together with the same rows as a {@link JoinInput} for the CPU joins.
 */
final class PinnedRelation implements AutoCloseable {
  final long[] keys;
  final long[] payloads;
  /** Validity words in JoinInput's layout (bit i of word i / 64 set: valid), or null without NULLs. */
  final long[] validity;
  private final ColumnType keyType;
  private final ColumnType payloadType;
  private final HostBuffer keyBuffer;
  private final HostBuffer payloadBuffer;
  private final HostBuffer validityBuffer;

  PinnedRelation(CudaDevice device, long[] keys, ColumnType keyType, long[] payloads, ColumnType payloadType,
      long[] validity) {
    this.keys = keys;
    this.payloads = payloads;
    this.validity = validity;
    this.keyType = keyType;
    this.payloadType = payloadType;
    this.keyBuffer = write(device, keys, keyType);
    this.payloadBuffer = write(device, payloads, payloadType);
    this.validityBuffer = validity == null ? null : device.pinnedAllocator().allocate(8L * validity.length + 8);
    for (int w = 0; validity != null && w < validity.length; w++) {
      MemoryUtil.putLong(validityBuffer.address() + 8L * w, validity[w]);  // little-endian: Arrow's bit order
    }
  }

  /**
   * A random relation of {@code rows} keys from {@code key} (narrowed to INT32 when {@code keyType} is),
   * random payloads of {@code payloadType} and NULL keys with probability {@code nullShare}.
   */
  static PinnedRelation random(CudaDevice device, int rows, LongSupplier key, ColumnType keyType,
      ColumnType payloadType, double nullShare, SplittableRandom random) {
    long[] keys = new long[rows];
    long[] payloads = new long[rows];
    long[] validity = nullShare > 0 ? new long[(rows + 63) / 64] : null;
    for (int i = 0; i < rows; i++) {
      keys[i] = keyType == ColumnType.INT32 ? (int) key.getAsLong() : key.getAsLong();
      payloads[i] = payloadType == ColumnType.INT32 ? random.nextInt() : random.nextLong();
      if (validity != null && random.nextDouble() >= nullShare) {
        validity[i >>> 6] |= 1L << i;
      }
    }
    return new PinnedRelation(device, keys, keyType, payloads, payloadType, validity);
  }

  private static HostBuffer write(CudaDevice device, long[] values, ColumnType type) {
    HostBuffer b = device.pinnedAllocator().allocate(Math.max(128, (long) values.length * type.width()));
    for (int i = 0; i < values.length; i++) {
      if (type == ColumnType.INT32) {
        MemoryUtil.putInt(b.address() + 4L * i, (int) values[i]);
      } else {
        MemoryUtil.putLong(b.address() + 8L * i, values[i]);
      }
    }
    return b;
  }

  int rows() {
    return keys.length;
  }

  boolean isNull(int row) {
    return validity != null && (validity[row >>> 6] & (1L << row)) == 0;
  }

  boolean[] nulls() {
    boolean[] out = new boolean[keys.length];
    for (int i = 0; i < out.length; i++) {
      out[i] = isNull(i);
    }
    return out;
  }

  HostJoinInput host() {
    return new HostJoinInput(new HostColumn("key", keyType, keyBuffer.address(), keys.length),
        new HostColumn("payload", payloadType, payloadBuffer.address(), keys.length),
        validityBuffer == null ? 0 : validityBuffer.address());
  }

  JoinInput cpu() {
    return JoinInput.withValidity(keys, payloads, validity);
  }

  @Override
  public void close() {
    try (HostBuffer k = keyBuffer; HostBuffer p = payloadBuffer; HostBuffer v = validityBuffer) {
      // closes all three
    }
  }
}
