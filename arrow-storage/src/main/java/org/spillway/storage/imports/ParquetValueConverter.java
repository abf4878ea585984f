package org.spillway.storage.imports;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.parquet.column.Dictionary;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.io.api.PrimitiveConverter;
import org.spillway.storage.BatchBuilder;
import org.spillway.storage.ColumnKind;
import org.spillway.storage.ColumnType;

/**
 * Receives one Parquet column's decoded values from parquet-column's {@code ColumnReader} and writes them into the
 * column's Arrow vector at the row {@link #row} names. It supports dictionaries, so that on dictionary-encoded pages
 * the reader hands over codes instead of decoding every value: text comes from the dictionary's entries, made into
 * UTF-8 bytes once per row group instead of once per row. The common types go straight into the vector (with the
 * checks {@link BatchBuilder}'s setters make: decimal digits, well-formed UTF-8); the rare ones through the setters.
 */
final class ParquetValueConverter extends PrimitiveConverter {
  private final ParquetColumn column;
  private final ParquetColumn.Conversion conversion;
  /** Unscaled decimals must stay below this in magnitude (the column's digits); 0 where any long fits. */
  private final long decimalLimit;
  /** Whether text may go into the vector as it is: VARCHAR without a length (Parquet text always is). */
  private final boolean unboundedText;
  private Dictionary dictionary;
  /** The text dictionary's entries as the vector stores them, made when first used. */
  private byte[][] texts;
  private BatchBuilder batch;
  private int col;
  private FieldVector vector;
  private int row;

  ParquetValueConverter(ParquetColumn column) {
    this.column = column;
    this.conversion = column.conversion();
    ColumnType type = column.column().type();
    this.decimalLimit = type.kind() == ColumnKind.DECIMAL && type.precision() < ColumnType.MAX_DECIMAL_PRECISION
        ? pow10(type.precision()) : 0;
    this.unboundedText = type.kind().isText() && type.length() == ColumnType.UNBOUNDED_LENGTH;
  }

  private static long pow10(int digits) {
    long v = 1;
    for (int i = 0; i < digits; i++) {
      v *= 10;
    }
    return v;
  }

  /** The values that follow go to column {@code col} of {@code batch}. */
  void target(BatchBuilder batch, int col) {
    this.batch = batch;
    this.col = col;
    this.vector = batch.vector(col);
  }

  /** The next value goes to this row. */
  void row(int row) {
    this.row = row;
  }

  @Override
  public boolean hasDictionarySupport() {
    return true;
  }

  @Override
  public void setDictionary(Dictionary dictionary) {
    this.dictionary = dictionary;
    this.texts = null;
  }

  @Override
  public void addValueFromDictionary(int id) {
    switch (column.physicalType()) {
      case INT32 -> addInt(dictionary.decodeToInt(id));
      case INT64 -> addLong(dictionary.decodeToLong(id));
      case FLOAT -> addFloat(dictionary.decodeToFloat(id));
      case DOUBLE -> addDouble(dictionary.decodeToDouble(id));
      default -> {
        if (conversion == ParquetColumn.Conversion.STRING && unboundedText) {
          ((VarCharVector) vector).setSafe(row, text(id));
        } else {
          addBinary(dictionary.decodeToBinary(id));
        }
      }
    }
  }

  /** A text entry of the dictionary as {@link BatchBuilder#setUtf8} would store it. */
  private byte[] text(int id) {
    if (texts == null) {
      texts = new byte[dictionary.getMaxId() + 1][];
    }
    byte[] bytes = texts[id];
    if (bytes == null) {
      bytes = dictionary.decodeToBinary(id).getBytes();
      if (!isAscii(bytes)) {
        bytes = new String(bytes, StandardCharsets.UTF_8).getBytes(StandardCharsets.UTF_8);
      }
      texts[id] = bytes;
    }
    return bytes;
  }

  @Override
  public void addInt(int value) {
    switch (conversion) {
      case INT32 -> ((IntVector) vector).set(row, value);
      case DATE -> ((DateDayVector) vector).set(row, value);
      case DECIMAL_INT32 -> setDecimal(value);
      default -> column.setInt(batch, col, row, value);
    }
  }

  @Override
  public void addLong(long value) {
    switch (conversion) {
      case INT64 -> ((BigIntVector) vector).set(row, value);
      case DECIMAL_INT64 -> setDecimal(value);
      default -> column.setLong(batch, col, row, value);
    }
  }

  private void setDecimal(long unscaled) {
    if (decimalLimit != 0 && (unscaled >= decimalLimit || unscaled <= -decimalLimit)) {
      batch.setDecimal(col, row, unscaled);  // fails, saying why
    }
    ((BigIntVector) vector).set(row, unscaled);
  }

  @Override
  public void addFloat(float value) {
    ((Float8Vector) vector).set(row, value);
  }

  @Override
  public void addDouble(double value) {
    ((Float8Vector) vector).set(row, value);
  }

  @Override
  public void addBinary(Binary value) {
    if (conversion == ParquetColumn.Conversion.STRING && unboundedText) {
      ByteBuffer bytes = value.toByteBuffer();
      if (isAscii(bytes)) {
        ((VarCharVector) vector).setSafe(row, bytes, bytes.position(), bytes.remaining());
        return;
      }
    }
    column.setBinary(batch, col, row, value);
  }

  @Override
  public void addBoolean(boolean value) {
    throw new IllegalStateException("column " + column.column().name() + " has no BOOLEAN values");
  }

  private static boolean isAscii(byte[] bytes) {
    for (byte b : bytes) {
      if (b < 0) {
        return false;
      }
    }
    return true;
  }

  private static boolean isAscii(ByteBuffer bytes) {
    if (bytes.hasArray()) {
      byte[] array = bytes.array();
      int from = bytes.arrayOffset() + bytes.position();
      for (int i = from; i < from + bytes.remaining(); i++) {
        if (array[i] < 0) {
          return false;
        }
      }
      return true;
    }
    for (int i = bytes.position(); i < bytes.limit(); i++) {
      if (bytes.get(i) < 0) {
        return false;
      }
    }
    return true;
  }
}
