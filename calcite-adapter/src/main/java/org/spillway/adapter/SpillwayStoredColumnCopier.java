package org.spillway.adapter;

import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVectorHelper;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.spillway.gpu.plan.ArrowColumnCopier;
import org.spillway.storage.ColumnType;
import org.spillway.storage.StoredTable;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;

/**
 * Copies a stored column's Arrow batches into the vectors of a Flight SQL stream, with no Java value per row:
 * values and validity of the same layout byte for byte, unscaled DECIMALs into 128-bit decimals, dictionary
 * codes as their strings' UTF-8 bytes (each encoded once), plain text value by value from buffer to buffer.
 * The target vector's type is the one the column's JDBC type maps to; where it is not the one expected, there
 * is no copier (and the rows are read).
 */
final class SpillwayStoredColumnCopier {
  private SpillwayStoredColumnCopier() {}

  /** A copier of stored column {@code column} of {@code table} into {@code target}; empty where none exists. */
  static Optional<SpillwayColumnarResult.ColumnCopier> of(StoredTable table, int column, FieldVector target) {
    List<VectorSchemaRoot> batches = table.batches();
    ColumnType type = table.schema().column(column).type();
    SpillwayColumnarResult.ColumnCopier copier = switch (type.kind()) {
      case INTEGER -> target instanceof IntVector v ? sameWidth(batches, column, v, 4) : null;
      case DATE -> target instanceof DateDayVector v ? sameWidth(batches, column, v, 4) : null;
      case BIGINT -> target instanceof BigIntVector v ? sameWidth(batches, column, v, 8) : null;
      case DOUBLE -> target instanceof Float8Vector v ? sameWidth(batches, column, v, 8) : null;
      case DECIMAL -> target instanceof DecimalVector v ? decimal(batches, column, v, type.scale()) : null;
      case CHAR, VARCHAR -> target instanceof VarCharVector v ? text(table, column, v) : null;
    };
    return Optional.ofNullable(copier);
  }

  private static SpillwayColumnarResult.ColumnCopier sameWidth(List<VectorSchemaRoot> batches, int column,
      BaseFixedWidthVector target, int width) {
    return (chunk, fromRow, rows, targetRow) -> {
      FieldVector source = batches.get(chunk).getVector(column);
      target.getDataBuffer().setBytes((long) targetRow * width, source.getDataBuffer(), (long) fromRow * width,
          (long) rows * width);
      copyValidity(source, fromRow, rows, target.getValidityBuffer(), targetRow);
    };
  }

  private static SpillwayColumnarResult.ColumnCopier decimal(List<VectorSchemaRoot> batches, int column,
      DecimalVector target, int scale) {
    return new SpillwayColumnarResult.ColumnCopier() {
      /** The slice's unscaled values, read in bulk; reused from slice to slice. */
      private long[] values = new long[0];

      @Override public void copy(int chunk, int fromRow, int rows, int targetRow) {
        BigIntVector source = (BigIntVector) batches.get(chunk).getVector(column);
        if (scale != target.getScale()) {
          for (int i = 0; i < rows; i++) {
            if (!source.isNull(fromRow + i)) {
              target.set(targetRow + i, BigDecimal.valueOf(source.get(fromRow + i), scale)
                  .setScale(target.getScale(), RoundingMode.HALF_UP));
            }
          }
          return;
        }
        if (values.length < rows) {
          values = new long[rows];
        }
        source.getDataBuffer().nioBuffer((long) fromRow * Long.BYTES, rows * Long.BYTES)
            .order(ByteOrder.LITTLE_ENDIAN).asLongBuffer().get(values, 0, rows);
        ArrowColumnCopier.writeDecimals(target, values, 0, rows, targetRow);
        copyValidity(source, fromRow, rows, target.getValidityBuffer(), targetRow);
      }
    };
  }

  private static SpillwayColumnarResult.ColumnCopier text(StoredTable table, int column, VarCharVector target) {
    List<VectorSchemaRoot> batches = table.batches();
    Optional<List<String>> dictionary = table.dictionary(column);
    if (dictionary.isEmpty()) {
      return (chunk, fromRow, rows, targetRow) -> {
        VarCharVector source = (VarCharVector) batches.get(chunk).getVector(column);
        for (int i = 0; i < rows; i++) {
          target.copyFromSafe(fromRow + i, targetRow + i, source);
        }
      };
    }
    List<String> strings = dictionary.get();
    byte[][] encoded = new byte[strings.size()][];
    return (chunk, fromRow, rows, targetRow) -> {
      IntVector codes = (IntVector) batches.get(chunk).getVector(column);
      for (int i = 0; i < rows; i++) {
        if (!codes.isNull(fromRow + i)) {
          int code = codes.get(fromRow + i);
          if (encoded[code] == null) {
            encoded[code] = strings.get(code).getBytes(StandardCharsets.UTF_8);
          }
          target.setSafe(targetRow + i, encoded[code]);
        }
      }
    };
  }

  /**
   * Copies the validity bits of rows {@code [fromRow, fromRow + rows)}: byte for byte where both ends start on a
   * byte (then the bits past the last row are cleared, for the next slice to set), else bit by bit.
   */
  static void copyValidity(FieldVector source, int fromRow, int rows, ArrowBuf target, int targetRow) {
    if (source.getNullCount() == 0) {
      ArrowColumnCopier.setBits(target, targetRow, rows);
      return;
    }
    ArrowBuf bits = source.getValidityBuffer();
    if ((fromRow & 7) == 0 && (targetRow & 7) == 0) {
      int bytes = (rows + 7) >>> 3;
      target.setBytes(targetRow >>> 3, bits, fromRow >>> 3, bytes);
      int tail = rows & 7;
      if (tail != 0) {
        long last = (targetRow >>> 3) + bytes - 1;
        target.setByte(last, target.getByte(last) & ((1 << tail) - 1));
      }
      return;
    }
    for (int i = 0; i < rows; i++) {
      if (BitVectorHelper.get(bits, fromRow + i) != 0) {
        BitVectorHelper.setBit(target, targetRow + i);
      }
    }
  }
}
