package org.spillway.storage.imports;

import org.apache.parquet.column.Dictionary;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.io.api.PrimitiveConverter;
import org.spillway.storage.BatchBuilder;

/**
 * Receives one Parquet column's decoded values from parquet-column's {@code ColumnReader} and sets them in the row
 * of a batch that {@link #target} names. It supports dictionaries, so that on dictionary-encoded pages the reader
 * hands over codes instead of decoding every value: text comes from the dictionary's entries, made into UTF-8
 * bytes once per row group instead of once per row.
 */
final class ParquetValueConverter extends PrimitiveConverter {
  private final ParquetColumn column;
  private Dictionary dictionary;
  /** The text dictionary's entries as bytes, made when first used; null for other columns. */
  private byte[][] texts;
  private BatchBuilder batch;
  private int col;
  private int row;

  ParquetValueConverter(ParquetColumn column) {
    this.column = column;
  }

  /** The next value goes to row {@code row} of column {@code col} of {@code batch}. */
  void target(BatchBuilder batch, int col, int row) {
    this.batch = batch;
    this.col = col;
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
        if (column.isText()) {
          batch.setUtf8(col, row, text(id));
        } else {
          addBinary(dictionary.decodeToBinary(id));
        }
      }
    }
  }

  private byte[] text(int id) {
    if (texts == null) {
      texts = new byte[dictionary.getMaxId() + 1][];
    }
    byte[] bytes = texts[id];
    if (bytes == null) {
      bytes = dictionary.decodeToBinary(id).getBytes();
      texts[id] = bytes;
    }
    return bytes;
  }

  @Override
  public void addInt(int value) {
    column.setInt(batch, col, row, value);
  }

  @Override
  public void addLong(long value) {
    column.setLong(batch, col, row, value);
  }

  @Override
  public void addFloat(float value) {
    batch.setDouble(col, row, value);
  }

  @Override
  public void addDouble(double value) {
    batch.setDouble(col, row, value);
  }

  @Override
  public void addBinary(Binary value) {
    column.setBinary(batch, col, row, value);
  }

  @Override
  public void addBoolean(boolean value) {
    throw new IllegalStateException("column " + column.column().name() + " has no BOOLEAN values");
  }
}
