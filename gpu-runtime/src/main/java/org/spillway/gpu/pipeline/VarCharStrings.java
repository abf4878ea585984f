package org.spillway.gpu.pipeline;

import java.nio.charset.StandardCharsets;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.util.MemoryUtil;
import org.apache.arrow.vector.VarCharVector;

/**
 * Decodes rows of a VarChar vector into Strings, copying each value's bytes once into a reused buffer: the vector's
 * own {@code get} allocates a byte array per value that the String then copies again, which doubled the cost of
 * returning text columns (supplier's name, address, phone and comment in TPC-H Q2). Not thread-safe: one per loop.
 */
final class VarCharStrings {
  private final VarCharVector vector;
  private final ArrowBuf data;
  private final long offsets;
  private final int rows;
  private byte[] scratch = new byte[64];

  VarCharStrings(VarCharVector vector) {
    this.vector = vector;
    this.rows = vector.getValueCount();
    this.data = vector.getDataBuffer();
    this.offsets = rows == 0 ? 0 : vector.getOffsetBuffer().memoryAddress();
  }

  /** The value of {@code row}, which the caller knows is not NULL. */
  String get(int row) {
    if (row < 0 || row >= rows) {
      throw new IndexOutOfBoundsException("row " + row + " outside the " + rows + " rows of " + vector.getField());
    }
    long at = offsets + ((long) row << 2);
    int start = MemoryUtil.getInt(at);
    int length = MemoryUtil.getInt(at + 4) - start;
    if (length > scratch.length) {
      scratch = new byte[Math.max(length, 2 * scratch.length)];
    }
    data.getBytes(start, scratch, 0, length);
    return new String(scratch, 0, length, StandardCharsets.UTF_8);
  }
}
