package org.spillway.storage;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.apache.arrow.vector.VarCharVector;

/**
 * Writes the text of a column declared by its distinct values and each row's index into them
 * ({@link BatchBuilder#putDeclaredUtf8}), whose vector holds only the NULL bits until something needs its bytes: a
 * batch staged in a file, or a column the commit stores plain. A column that becomes a dictionary is encoded from the
 * declaration and never has its text written.
 */
final class DeclaredText {
  private DeclaredText() {}

  /**
   * Fills rows 0..rows-1 of {@code vector}: non-NULL row i (by the vector's validity) holds
   * {@code values[valueOfRow[i]]}, NULL rows are empty.
   */
  static void write(VarCharVector vector, byte[][] values, char[] valueOfRow, int rows) {
    // the bits themselves: the vector's NULL count needs its value count, which a batch being filled has not set yet
    ByteBuffer validity = vector.getValidityBuffer().nioBuffer(0, (rows + 7) >>> 3);
    long total = 0;
    for (int row = 0; row < rows; row++) {
      if (!VectorBuffers.isNull(validity, row)) {
        total += values[valueOfRow[row]].length;
      }
    }
    if (total > Integer.MAX_VALUE - 8) {
      throw new StorageException("more than 2 GiB of text in one batch of column " + vector.getName());
    }
    byte[] data = new byte[(int) total];
    ByteBuffer offsets = ByteBuffer.allocate((rows + 1) * Integer.BYTES).order(ByteOrder.LITTLE_ENDIAN);
    int length = 0;
    offsets.putInt(0, 0);
    for (int row = 0; row < rows; row++) {
      if (!VectorBuffers.isNull(validity, row)) {
        byte[] value = values[valueOfRow[row]];
        System.arraycopy(value, 0, data, length, value.length);
        length += value.length;
      }
      offsets.putInt((row + 1) * Integer.BYTES, length);
    }
    while (vector.getDataBuffer().capacity() < length) {
      vector.reallocDataBuffer();
    }
    vector.getOffsetBuffer().setBytes(0, offsets.array(), 0, offsets.capacity());
    vector.getDataBuffer().setBytes(0, data, 0, length);
    vector.setLastSet(rows - 1);
  }
}
