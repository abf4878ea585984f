package org.spillway.gpu.pipeline;

import org.spillway.gpu.vector.ColumnVector;
import org.spillway.gpu.vector.ExprType;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.util.MemoryUtil;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VarCharVector;

/**
 * Reads rows of an Arrow vector into a {@link ColumnVector}: fixed-width values straight from the data
 * buffer (Int32 for INT32, DATE and STRING codes; Int64 for INT64 and scaled DECIMAL; Float64), bits for
 * BOOLEAN, UTF-8 strings for TEXT. Null rows come out as 0 (or null) whatever the buffer holds.
 */
public final class ArrowColumnLoader {
  private ArrowColumnLoader() {}

  /**
   * Rows {@code offset + selection[i]} for i below {@code count} (or {@code offset .. offset + count - 1}
   * when {@code selection} is null) of the vector, read as the given type.
   */
  public static ColumnVector load(FieldVector vector, ExprType type, int offset, int[] selection, int count) {
    boolean[] nulls = mayHaveNulls(vector, offset, selection, count) ? new boolean[count] : null;
    if (nulls != null && !readNulls(vector, offset, selection, count, nulls)) {
      nulls = null;
    }
    switch (type.kind()) {
      case INT32, DATE, STRING, INT64, DECIMAL, BOOLEAN -> {
        long[] out = new long[count];
        readLongs(vector, type, offset, selection, count, out, nulls);
        return ColumnVector.ofLongs(type, out, nulls, count);
      }
      case FLOAT64 -> {
        long address = dataAddress(vector, 8, type, offset, selection, count);
        double[] out = new double[count];
        for (int i = 0; i < count; i++) {
          long at = address + ((long) (selection == null ? i : selection[i]) << 3);
          out[i] = nulls != null && nulls[i] ? 0 : Double.longBitsToDouble(MemoryUtil.getLong(at));
        }
        return ColumnVector.ofDoubles(out, nulls, count);
      }
      case TEXT -> {
        VarCharStrings text = new VarCharStrings(cast(vector, VarCharVector.class, type));
        Object[] out = new Object[count];
        for (int i = 0; i < count; i++) {
          if (nulls == null || !nulls[i]) {
            out[i] = text.get(row(offset, selection, i));
          }
        }
        return ColumnVector.ofObjects(type, out, nulls, count);
      }
      default -> throw new IllegalArgumentException("cannot load " + type + " from " + vector.getField());
    }
  }

  /**
   * The long-lane values of the rows {@link #load} would read, widened into {@code out[0 .. count-1]} (a
   * caller's buffer, which may be longer); rows flagged in {@code nulls} (null: none) come out as 0. Only the
   * rows named are read, so a selective caller widens only what it keeps.
   */
  static void readLongs(FieldVector vector, ExprType type, int offset, int[] selection, int count, long[] out,
      boolean[] nulls) {
    switch (type.kind()) {
      case INT32, DATE, STRING -> {
        long address = dataAddress(vector, 4, type, offset, selection, count);
        if (selection == null) {
          for (int i = 0; i < count; i++) {
            out[i] = MemoryUtil.getInt(address + ((long) i << 2));
          }
        } else {
          for (int i = 0; i < count; i++) {
            out[i] = MemoryUtil.getInt(address + ((long) selection[i] << 2));
          }
        }
      }
      case INT64, DECIMAL -> {
        long address = dataAddress(vector, 8, type, offset, selection, count);
        if (selection == null) {
          for (int i = 0; i < count; i++) {
            out[i] = MemoryUtil.getLong(address + ((long) i << 3));
          }
        } else {
          for (int i = 0; i < count; i++) {
            out[i] = MemoryUtil.getLong(address + ((long) selection[i] << 3));
          }
        }
      }
      case BOOLEAN -> {
        BitVector bits = cast(vector, BitVector.class, type);
        for (int i = 0; i < count; i++) {
          out[i] = bits.getDataBuffer().getByte(row(offset, selection, i) >>> 3) >>> (row(offset, selection, i) & 7) & 1;
        }
      }
      default -> throw new IllegalArgumentException("cannot read " + type + " as longs from " + vector.getField());
    }
    if (nulls != null) {
      for (int i = 0; i < count; i++) {
        if (nulls[i]) {
          out[i] = 0;
        }
      }
    }
  }

  /**
   * The null flags of the rows {@link #load} would read into {@code out[0 .. count-1]}; returns whether any is
   * set. When none can be (the validity bitmap is all ones over the rows) {@code out} is left as it is.
   */
  static boolean readNulls(FieldVector vector, int offset, int[] selection, int count, boolean[] out) {
    if (!mayHaveNulls(vector, offset, selection, count)) {
      return false;
    }
    boolean any = false;
    for (int i = 0; i < count; i++) {
      out[i] = vector.isNull(row(offset, selection, i));
      any |= out[i];
    }
    return any;
  }

  private static int row(int offset, int[] selection, int i) {
    return selection == null ? offset + i : offset + selection[i];
  }

  /**
   * The address of row {@code offset} of a fixed-width vector, after checking once that every row the
   * loop will read lies inside the vector (the loops then read memory without per-value bounds checks).
   */
  private static long dataAddress(FieldVector vector, int width, ExprType type, int offset, int[] selection,
      int count) {
    BaseFixedWidthVector fixed = fixedWidth(vector, width, type);
    int last = count == 0 ? -1 : selection == null ? count - 1 : selection[count - 1];
    if (offset < 0 || offset + last >= fixed.getValueCount() && count > 0) {
      throw new IndexOutOfBoundsException("rows " + offset + ".." + (offset + last) + " outside the "
          + fixed.getValueCount() + " rows of " + vector.getField());
    }
    return fixed.getDataBuffer().memoryAddress() + (long) offset * width;
  }

  /** Whether any of {@code count} rows from {@code offset} is null, reading the validity bitmap a word at a time. */
  private static boolean anyNull(FieldVector vector, int offset, int count) {
    ArrowBuf validity = vector.getValidityBuffer();
    int end = offset + count;
    int row = offset;
    while (row < end && (row & 63) != 0) {
      if (vector.isNull(row++)) {
        return true;
      }
    }
    long address = validity.memoryAddress();
    for (; row + 64 <= end; row += 64) {
      if (MemoryUtil.getLong(address + (row >>> 3)) != -1L) {
        return true;
      }
    }
    for (; row < end; row++) {
      if (vector.isNull(row)) {
        return true;
      }
    }
    return false;
  }

  /** Whether a row of those {@link #load} would read may be NULL (false: none is). */
  static boolean mayHaveNulls(FieldVector vector, int offset, int[] selection, int count) {
    return count > 0 && anyNull(vector, offset, selection == null ? count : selection[count - 1] + 1);
  }

  private static BaseFixedWidthVector fixedWidth(FieldVector vector, int width, ExprType type) {
    BaseFixedWidthVector fixed = cast(vector, BaseFixedWidthVector.class, type);
    if (fixed.getTypeWidth() != width) {
      throw new IllegalArgumentException("column " + vector.getField() + " has " + fixed.getTypeWidth()
          + "-byte values; " + type + " needs " + width);
    }
    return fixed;
  }

  private static <T> T cast(FieldVector vector, Class<T> expected, ExprType type) {
    if (!expected.isInstance(vector)) {
      throw new IllegalArgumentException("column " + vector.getField() + " is a " + vector.getClass().getSimpleName()
          + "; " + type + " needs a " + expected.getSimpleName());
    }
    return expected.cast(vector);
  }
}
