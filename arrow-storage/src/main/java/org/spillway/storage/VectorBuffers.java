package org.spillway.storage;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.IntBuffer;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.FieldVector;

/**
 * NIO views of a batch vector's buffers, for loops that read every row: {@link ArrowBuf}'s getters, and the
 * vectors' {@code get} and {@code isNull} built on them, check the bounds and the reference count on every call,
 * which in a per-row loop costs more than the work; a view checks its bounds only.
 */
final class VectorBuffers {
  private VectorBuffers() {}

  /** The first {@code bytes} bytes of {@code buffer}, little-endian. */
  static ByteBuffer view(ArrowBuf buffer, long bytes) {
    if (bytes == 0) {
      return ByteBuffer.allocate(0).order(ByteOrder.LITTLE_ENDIAN);
    }
    return buffer.nioBuffer(0, Math.toIntExact(bytes)).order(ByteOrder.LITTLE_ENDIAN);
  }

  /** The validity bits of the first {@code rows} rows, or null where none of them is NULL. */
  static ByteBuffer validity(FieldVector vector, int rows) {
    return vector.getNullCount() == 0 ? null : view(vector.getValidityBuffer(), (rows + 7L) >>> 3);
  }

  /** Whether {@code row} is NULL by {@link #validity}'s bits (null: none is). */
  static boolean isNull(ByteBuffer validity, int row) {
    return validity != null && (validity.get(row >>> 3) & (1 << (row & 7))) == 0;
  }

  /** The {@code rows + 1} offsets of the first {@code rows} values. */
  static IntBuffer offsets(BaseVariableWidthVector vector, int rows) {
    return view(vector.getOffsetBuffer(), (rows + 1L) * BaseVariableWidthVector.OFFSET_WIDTH).asIntBuffer();
  }

  /** The data of the first {@code rows} values of a fixed-width vector of {@code width} bytes a value. */
  static ByteBuffer data(FieldVector vector, int rows, int width) {
    return view(vector.getDataBuffer(), (long) rows * width);
  }
}
