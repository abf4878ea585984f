package org.spillway.gpu.plan;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;
import java.util.function.IntFunction;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.BitVectorHelper;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.SmallIntVector;
import org.apache.arrow.vector.TinyIntVector;
import org.apache.arrow.vector.VarCharVector;
import org.spillway.gpu.vector.ColumnVector;
import org.spillway.gpu.vector.ExprType;

/**
 * Copies one output column of a {@link QueryResult} into an Arrow vector, a slice of a batch at a time, with no
 * Java value per row: the long and double lanes in bulk, validity from the null flags, text as UTF-8 (each
 * dictionary string encoded once). The vector's type is the one the column's JDBC type maps to, and a copier
 * exists only where the values it writes are those the JDBC getter of that type would give (else the caller
 * reads rows); a decimal whose scale differs from the vector's is rounded half up, as the row path does.
 */
public abstract class ArrowColumnCopier {
  /** The column's vector in each batch of the result. */
  final IntFunction<ColumnVector> column;

  private ArrowColumnCopier(IntFunction<ColumnVector> column) {
    this.column = column;
  }

  /**
   * Copies rows {@code [fromRow, fromRow + rows)} of batch {@code batch} into rows {@code [targetRow, ...)} of
   * the target vector, whose capacity must hold them (fixed-width vectors) or grows (text); the target's rows
   * start out NULL, as a freshly allocated vector's do.
   */
  public abstract void copy(int batch, int fromRow, int rows, int targetRow);

  /** A copier of a column of {@code type} (its vector per batch) into {@code target}; empty where none exists. */
  static Optional<ArrowColumnCopier> of(IntFunction<ColumnVector> column, ExprType type, List<String> dictionary,
      FieldVector target) {
    ArrowColumnCopier copier = switch (type.kind()) {
      case INT32, INT64, DATE -> integer(column, target);
      case DECIMAL -> target instanceof DecimalVector v ? new DecimalCopier(column, v, type.scale()) : null;
      case FLOAT64 -> target instanceof Float8Vector v ? new DoubleCopier(column, v)
          : target instanceof Float4Vector v ? new FloatCopier(column, v) : null;
      case BOOLEAN -> target instanceof BitVector v ? new BooleanCopier(column, v) : null;
      case STRING -> target instanceof VarCharVector v && dictionary != null
          ? new DictionaryCopier(column, v, dictionary) : null;
      case TEXT -> target instanceof VarCharVector v ? new TextCopier(column, v) : null;
      case BIG_DECIMAL -> target instanceof DecimalVector v ? new BigDecimalCopier(column, v) : null;
    };
    return Optional.ofNullable(copier);
  }

  /** The copier of a result without batches, which has no rows to copy. */
  static ArrowColumnCopier none() {
    return new ArrowColumnCopier(batch -> {
      throw new IndexOutOfBoundsException("the result has no batch " + batch);
    }) {
      @Override public void copy(int batch, int fromRow, int rows, int targetRow) {
        column.apply(batch);
      }
    };
  }

  /** Integers and dates of the long lane into a vector of the same or a narrower width (JDBC's cast). */
  private static ArrowColumnCopier integer(IntFunction<ColumnVector> column, FieldVector target) {
    if (target instanceof BigIntVector v) {
      return new LongCopier(column, v);
    }
    if (target instanceof IntVector || target instanceof DateDayVector) {
      return new NarrowingCopier(column, (BaseFixedWidthVector) target, 4);
    }
    if (target instanceof SmallIntVector v) {
      return new NarrowingCopier(column, v, 2);
    }
    if (target instanceof TinyIntVector v) {
      return new NarrowingCopier(column, v, 1);
    }
    return null;
  }

  /** Sets the validity bits of the copied rows that are not NULL. */
  static void markValid(ArrowBuf validity, boolean[] nulls, int fromRow, int rows, int targetRow) {
    if (nulls == null) {
      setBits(validity, targetRow, rows);
      return;
    }
    for (int i = 0; i < rows; i++) {
      if (!nulls[fromRow + i]) {
        BitVectorHelper.setBit(validity, targetRow + i);
      }
    }
  }

  /** Sets bits {@code [start, start + count)}: whole bytes at once, the edges bit by bit. */
  public static void setBits(ArrowBuf bits, int start, int count) {
    int bit = start;
    int end = start + count;
    while (bit < end && (bit & 7) != 0) {
      BitVectorHelper.setBit(bits, bit++);
    }
    int wholeBytes = (end - bit) >>> 3;
    if (wholeBytes > 0) {
      bits.setOne(bit >>> 3, wholeBytes);
      bit += wholeBytes << 3;
    }
    while (bit < end) {
      BitVectorHelper.setBit(bits, bit++);
    }
  }

  /** The target's data buffer from row {@code targetRow} on, in the byte order Arrow keeps values in. */
  static ByteBuffer data(BaseFixedWidthVector target, int targetRow, int rows, int width) {
    return target.getDataBuffer().nioBuffer((long) targetRow * width, rows * width)
        .order(ByteOrder.LITTLE_ENDIAN);
  }

  private static final class LongCopier extends ArrowColumnCopier {
    private final BigIntVector target;

    LongCopier(IntFunction<ColumnVector> column, BigIntVector target) {
      super(column);
      this.target = target;
    }

    @Override public void copy(int batch, int fromRow, int rows, int targetRow) {
      ColumnVector v = column.apply(batch);
      data(target, targetRow, rows, 8).asLongBuffer().put(v.longs, fromRow, rows);
      markValid(target.getValidityBuffer(), v.nulls, fromRow, rows, targetRow);
    }
  }

  /** INT32, DATE (or an INT64 a JDBC getter narrows) into 4, 2 or 1 bytes per value. */
  private static final class NarrowingCopier extends ArrowColumnCopier {
    private final BaseFixedWidthVector target;
    private final int width;

    NarrowingCopier(IntFunction<ColumnVector> column, BaseFixedWidthVector target, int width) {
      super(column);
      this.target = target;
      this.width = width;
    }

    @Override public void copy(int batch, int fromRow, int rows, int targetRow) {
      ColumnVector v = column.apply(batch);
      ByteBuffer data = data(target, targetRow, rows, width);
      long[] values = v.longs;
      switch (width) {
        case 4 -> {
          var ints = data.asIntBuffer();
          for (int i = 0; i < rows; i++) {
            ints.put(i, (int) values[fromRow + i]);
          }
        }
        case 2 -> {
          var shorts = data.asShortBuffer();
          for (int i = 0; i < rows; i++) {
            shorts.put(i, (short) values[fromRow + i]);
          }
        }
        default -> {
          for (int i = 0; i < rows; i++) {
            data.put(i, (byte) values[fromRow + i]);
          }
        }
      }
      markValid(target.getValidityBuffer(), v.nulls, fromRow, rows, targetRow);
    }
  }

  private static final class DoubleCopier extends ArrowColumnCopier {
    private final Float8Vector target;

    DoubleCopier(IntFunction<ColumnVector> column, Float8Vector target) {
      super(column);
      this.target = target;
    }

    @Override public void copy(int batch, int fromRow, int rows, int targetRow) {
      ColumnVector v = column.apply(batch);
      data(target, targetRow, rows, 8).asDoubleBuffer().put(v.doubles, fromRow, rows);
      markValid(target.getValidityBuffer(), v.nulls, fromRow, rows, targetRow);
    }
  }

  private static final class FloatCopier extends ArrowColumnCopier {
    private final Float4Vector target;

    FloatCopier(IntFunction<ColumnVector> column, Float4Vector target) {
      super(column);
      this.target = target;
    }

    @Override public void copy(int batch, int fromRow, int rows, int targetRow) {
      ColumnVector v = column.apply(batch);
      var floats = data(target, targetRow, rows, 4).asFloatBuffer();
      for (int i = 0; i < rows; i++) {
        floats.put(i, (float) v.doubles[fromRow + i]);
      }
      markValid(target.getValidityBuffer(), v.nulls, fromRow, rows, targetRow);
    }
  }

  private static final class BooleanCopier extends ArrowColumnCopier {
    private final BitVector target;

    BooleanCopier(IntFunction<ColumnVector> column, BitVector target) {
      super(column);
      this.target = target;
    }

    @Override public void copy(int batch, int fromRow, int rows, int targetRow) {
      ColumnVector v = column.apply(batch);
      ArrowBuf data = target.getDataBuffer();
      for (int i = 0; i < rows; i++) {
        if (v.longs[fromRow + i] != 0 && !v.isNull(fromRow + i)) {
          BitVectorHelper.setBit(data, targetRow + i);
        }
      }
      markValid(target.getValidityBuffer(), v.nulls, fromRow, rows, targetRow);
    }
  }

  /**
   * Scaled int64 decimals into 128-bit ones: the unscaled value and its sign extension where the scales agree,
   * else the row path's rounding to the vector's scale.
   */
  private static final class DecimalCopier extends ArrowColumnCopier {
    private final DecimalVector target;
    private final int scale;

    DecimalCopier(IntFunction<ColumnVector> column, DecimalVector target, int scale) {
      super(column);
      this.target = target;
      this.scale = scale;
    }

    @Override public void copy(int batch, int fromRow, int rows, int targetRow) {
      ColumnVector v = column.apply(batch);
      if (scale != target.getScale()) {
        for (int i = 0; i < rows; i++) {
          if (!v.isNull(fromRow + i)) {
            target.set(targetRow + i, BigDecimal.valueOf(v.longs[fromRow + i], scale)
                .setScale(target.getScale(), RoundingMode.HALF_UP));
          }
        }
        return;
      }
      writeDecimals(target, v.longs, fromRow, rows, targetRow);
      markValid(target.getValidityBuffer(), v.nulls, fromRow, rows, targetRow);
    }
  }

  /** Writes unscaled 64-bit values as Arrow's little-endian 128-bit decimals (low word, then the sign). */
  public static void writeDecimals(DecimalVector target, long[] unscaled, int fromRow, int rows, int targetRow) {
    var words = data(target, targetRow, rows, DecimalVector.TYPE_WIDTH).asLongBuffer();
    for (int i = 0; i < rows; i++) {
      long value = unscaled[fromRow + i];
      words.put(2 * i, value);
      words.put(2 * i + 1, value >> 63);
    }
  }

  private static final class BigDecimalCopier extends ArrowColumnCopier {
    private final DecimalVector target;

    BigDecimalCopier(IntFunction<ColumnVector> column, DecimalVector target) {
      super(column);
      this.target = target;
    }

    @Override public void copy(int batch, int fromRow, int rows, int targetRow) {
      ColumnVector v = column.apply(batch);
      for (int i = 0; i < rows; i++) {
        Object value = v.isNull(fromRow + i) ? null : v.objects[fromRow + i];
        if (value != null) {
          target.set(targetRow + i, ((BigDecimal) value).setScale(target.getScale(), RoundingMode.HALF_UP));
        }
      }
    }
  }

  /** Dictionary codes as their strings' UTF-8 bytes, each string encoded on first use. */
  private static final class DictionaryCopier extends ArrowColumnCopier {
    private final VarCharVector target;
    private final List<String> dictionary;
    private final byte[][] encoded;

    DictionaryCopier(IntFunction<ColumnVector> column, VarCharVector target, List<String> dictionary) {
      super(column);
      this.target = target;
      this.dictionary = dictionary;
      this.encoded = new byte[dictionary.size()][];
    }

    @Override public void copy(int batch, int fromRow, int rows, int targetRow) {
      ColumnVector v = column.apply(batch);
      for (int i = 0; i < rows; i++) {
        if (!v.isNull(fromRow + i)) {
          int code = (int) v.longs[fromRow + i];
          byte[] bytes = encoded[code];
          if (bytes == null) {
            bytes = dictionary.get(code).getBytes(StandardCharsets.UTF_8);
            encoded[code] = bytes;
          }
          target.setSafe(targetRow + i, bytes);
        }
      }
    }
  }

  private static final class TextCopier extends ArrowColumnCopier {
    private final VarCharVector target;

    TextCopier(IntFunction<ColumnVector> column, VarCharVector target) {
      super(column);
      this.target = target;
    }

    @Override public void copy(int batch, int fromRow, int rows, int targetRow) {
      ColumnVector v = column.apply(batch);
      for (int i = 0; i < rows; i++) {
        Object value = v.isNull(fromRow + i) ? null : v.objects[fromRow + i];
        if (value != null) {
          target.setSafe(targetRow + i, value.toString().getBytes(StandardCharsets.UTF_8));
        }
      }
    }
  }
}
