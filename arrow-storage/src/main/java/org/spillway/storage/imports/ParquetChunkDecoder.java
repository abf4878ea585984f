package org.spillway.storage.imports;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.apache.parquet.CorruptDeltaByteArrays;
import org.apache.parquet.VersionParser.ParsedVersion;
import org.apache.parquet.bytes.ByteBufferInputStream;
import org.apache.parquet.bytes.BytesUtils;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.Dictionary;
import org.apache.parquet.column.Encoding;
import org.apache.parquet.column.ValuesType;
import org.apache.parquet.column.page.DataPage;
import org.apache.parquet.column.page.DataPageV1;
import org.apache.parquet.column.page.DataPageV2;
import org.apache.parquet.column.page.DictionaryPage;
import org.apache.parquet.column.page.PageReader;
import org.apache.parquet.column.values.RequiresPreviousReader;
import org.apache.parquet.column.values.ValuesReader;
import org.apache.parquet.column.values.rle.RunLengthBitPackingHybridDecoder;
import org.apache.parquet.io.ParquetDecodingException;
import org.apache.parquet.io.api.Binary;
import org.spillway.storage.Ascii;
import org.spillway.storage.BatchBuilder;
import org.spillway.storage.ColumnType;

/**
 * Decodes one column chunk of a row group into batch columns a page at a time, with parquet-column's own page
 * decoders ({@link ValuesReader}s for values and dictionary ids, its RLE decoder for definition levels) but without
 * its record-level {@code ColumnReader}, which hands over one value at a time through a converter. The common
 * types are decoded into one array per batch column and set with one copy ({@link BatchBuilder#putValues},
 * {@link BatchBuilder#putUtf8}); dictionary entries are decoded once per chunk, so a dictionary-encoded page costs
 * one id and one array read per value. The rare conversions (unsigned, timestamps, INT96, binary decimals, text of a
 * declared length) go value by value through {@link ParquetColumn}'s setters. One thread at a time.
 */
final class ParquetChunkDecoder {
  private static final VarHandle INT_LE = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);
  private static final VarHandle LONG_LE = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
  private static final VarHandle DOUBLE_LE =
      MethodHandles.byteArrayViewVarHandle(double[].class, ByteOrder.LITTLE_ENDIAN);

  /** Where decoded values go: a bulk array of 4-byte ints, 8-byte longs or doubles, text, or the setters. */
  private enum Target { INT, LONG, DOUBLE, TEXT, SETTER }

  private final ParquetColumn column;
  private final ColumnDescriptor descriptor;
  private final PageReader pages;
  private final ParsedVersion writerVersion;
  private final Target target;
  private final int maxDefinition;
  /** Unscaled decimals must stay below this in magnitude (the column's digits); 0 where any long fits. */
  private final long decimalLimit;
  private final Dictionary dictionary;
  /** The dictionary's entries decoded for the target, made on the first dictionary-encoded page. */
  private int[] dictionaryInts;
  private long[] dictionaryLongs;
  private double[] dictionaryDoubles;
  private byte[][] dictionaryTexts;
  /**
   * Which dictionary entries the batch column being decoded uses, and whether all its values are entries (text and
   * integer targets; null without a dictionary).
   */
  private boolean[] usedEntries;
  private boolean onlyEntries;

  /** The current page: its values, definition levels (null where the column has none), and values left. */
  private ValuesReader values;
  private boolean dictionaryIds;
  private Levels levels;
  private int pageLeft;
  private ValuesReader previousValues;

  /** Per batch column: the NULL rows, the little-endian values or text offsets, the text bytes. */
  private boolean[] nulls;
  private byte[] bytes;
  private byte[] text = new byte[1 << 16];
  /** Where {@link #textSink} writes next into {@link #text}. */
  private int textEnd;
  private final OutputStream textSink = new OutputStream() {
    @Override
    public void write(int b) {
      ensureText(textEnd + 1L);
      text[textEnd++] = (byte) b;
    }

    @Override
    public void write(byte[] bytes, int from, int count) {
      ensureText((long) textEnd + count);
      System.arraycopy(bytes, from, text, textEnd, count);
      textEnd += count;
    }
  };

  /** A page's definition levels, one per row. */
  private interface Levels {
    int next() throws IOException;
  }

  ParquetChunkDecoder(ParquetColumn column, PageReader pages, ParsedVersion writerVersion) {
    this.column = column;
    this.descriptor = column.descriptor();
    this.pages = pages;
    this.writerVersion = writerVersion;
    this.maxDefinition = descriptor.getMaxDefinitionLevel();
    ColumnType type = column.column().type();
    this.target = switch (column.conversion()) {
      case INT32, DATE -> Target.INT;
      case INT64, DECIMAL_INT32, DECIMAL_INT64 -> Target.LONG;
      case FLOAT, DOUBLE -> Target.DOUBLE;
      case STRING -> type.length() == ColumnType.UNBOUNDED_LENGTH ? Target.TEXT : Target.SETTER;
      default -> Target.SETTER;
    };
    this.decimalLimit = switch (column.conversion()) {
      case DECIMAL_INT32, DECIMAL_INT64 -> type.precision() < ColumnType.MAX_DECIMAL_PRECISION
          ? pow10(type.precision()) : 0;
      default -> 0;
    };
    try {
      DictionaryPage page = pages.readDictionaryPage();
      this.dictionary = page == null ? null : page.getEncoding().initDictionary(descriptor, page);
      if (dictionary != null && target != Target.DOUBLE && target != Target.SETTER) {
        usedEntries = new boolean[dictionary.getMaxId() + 1];
      }
    } catch (IOException e) {
      throw new ParquetDecodingException("cannot read the dictionary page: " + e.getMessage(), e);
    }
  }

  private static long pow10(int digits) {
    long v = 1;
    for (int i = 0; i < digits; i++) {
      v *= 10;
    }
    return v;
  }

  /** Decodes the chunk's next {@code rows} values into rows 0..rows-1 of column {@code col} of {@code batch}. */
  void copy(BatchBuilder batch, int col, int rows) throws IOException {
    if (nulls == null || nulls.length < rows) {
      nulls = new boolean[rows];
      bytes = new byte[(target == Target.TEXT ? rows + 1 : rows) * 8];
    }
    boolean anyNull = false;
    int textLength = 0;
    onlyEntries = true;
    if (usedEntries != null) {
      Arrays.fill(usedEntries, false);
    }
    for (int row = 0; row < rows; ) {
      if (pageLeft == 0) {
        readPage();
      }
      int end = row + Math.min(rows - row, pageLeft);
      anyNull |= readLevels(row, end);
      onlyEntries &= dictionaryIds;
      switch (target) {
        case INT -> decodeInts(row, end);
        case LONG -> decodeLongs(batch, col, row, end);
        case DOUBLE -> decodeDoubles(row, end);
        case TEXT -> textLength = decodeTexts(row, end, textLength);
        case SETTER -> decodeBySetters(batch, col, row, end);
      }
      pageLeft -= end - row;
      row = end;
    }
    switch (target) {
      case INT, LONG, DOUBLE -> batch.putValues(col, bytes, anyNull ? nulls : null, rows);
      case TEXT -> batch.putUtf8(col, bytes, text, anyNull ? nulls : null, rows);
      case SETTER -> { }
    }
    if (onlyEntries && usedEntries != null) {
      declareUsedEntries(batch, col);
    }
  }

  /** Marks the NULL rows of {@code from..end-1}; true if there is one. */
  private boolean readLevels(int from, int end) throws IOException {
    if (levels == null) {
      Arrays.fill(nulls, from, end, false);
      return false;
    }
    boolean any = false;
    for (int row = from; row < end; row++) {
      boolean isNull = levels.next() < maxDefinition;
      nulls[row] = isNull;
      any |= isNull;
    }
    return any;
  }

  private void decodeInts(int from, int end) {
    int[] entries = dictionaryIds ? dictionaryInts() : null;
    for (int row = from; row < end; row++) {
      int v = 0;
      if (!nulls[row]) {
        if (entries != null) {
          int id = values.readValueDictionaryId();
          usedEntries[id] = true;
          v = entries[id];
        } else {
          v = values.readInteger();
        }
      }
      INT_LE.set(bytes, row * 4, v);
    }
  }

  private void decodeLongs(BatchBuilder batch, int col, int from, int end) {
    long[] entries = dictionaryIds ? dictionaryLongs() : null;
    boolean int32 = column.conversion() == ParquetColumn.Conversion.DECIMAL_INT32;
    for (int row = from; row < end; row++) {
      long v = 0;
      if (!nulls[row]) {
        if (entries != null) {
          int id = values.readValueDictionaryId();
          usedEntries[id] = true;
          v = entries[id];
        } else {
          v = int32 ? values.readInteger() : values.readLong();
        }
        if (decimalLimit != 0 && (v >= decimalLimit || v <= -decimalLimit)) {
          batch.setDecimal(col, row, v);  // fails, saying why
        }
      }
      LONG_LE.set(bytes, row * 8, v);
    }
  }

  private void decodeDoubles(int from, int end) {
    double[] entries = dictionaryIds ? dictionaryDoubles() : null;
    boolean float32 = column.conversion() == ParquetColumn.Conversion.FLOAT;
    for (int row = from; row < end; row++) {
      double v = 0;
      if (!nulls[row]) {
        v = entries != null ? entries[values.readValueDictionaryId()] : float32 ? values.readFloat()
            : values.readDouble();
      }
      DOUBLE_LE.set(bytes, row * 8, v);
    }
  }

  /** Appends the text of rows {@code from..end-1} after {@code length} bytes; returns the new length. */
  private int decodeTexts(int from, int end, int length) {
    byte[][] entries = dictionaryIds ? dictionaryTexts() : null;
    if (from == 0) {
      INT_LE.set(bytes, 0, 0);
    }
    for (int row = from; row < end; row++) {
      if (!nulls[row]) {
        if (entries != null) {
          int id = values.readValueDictionaryId();
          byte[] value = entries[id];
          usedEntries[id] = true;
          length = appendText(value, 0, value.length, length);
        } else {
          int start = length;
          length = appendText(values.readBytes(), length);
          if (!Ascii.isAscii(text, start, length - start)) {
            byte[] utf8 = storedUtf8(Arrays.copyOfRange(text, start, length));
            length = appendText(utf8, 0, utf8.length, start);
          }
        }
      }
      INT_LE.set(bytes, (row + 1) * 4, length);
    }
    return length;
  }

  private int appendText(byte[] value, int from, int count, int length) {
    ensureText(length + count);
    System.arraycopy(value, from, text, length, count);
    return length + count;
  }

  /** Appends a plain page's value; {@link Binary#writeTo} hands over its bytes without a copy or buffer of its own. */
  private int appendText(Binary value, int length) {
    ensureText(length + value.length());
    textEnd = length;
    try {
      value.writeTo(textSink);
    } catch (IOException e) {
      throw new UncheckedIOException(e);  // the sink writes into an array and throws none
    }
    return textEnd;
  }

  private void ensureText(long needed) {
    if (needed > text.length) {
      if (needed > Integer.MAX_VALUE - 8) {
        throw new ParquetDecodingException("more than 2 GiB of text in one batch of column " + column.column().name());
      }
      text = Arrays.copyOf(text, (int) Math.min(Integer.MAX_VALUE - 8, Math.max(needed, 2L * text.length)));
    }
  }

  /** The value by value path, for the conversions the setters check (ranges, units, lengths). */
  private void decodeBySetters(BatchBuilder batch, int col, int from, int end) {
    for (int row = from; row < end; row++) {
      if (nulls[row]) {
        batch.setNull(col, row);
        continue;
      }
      int id = dictionaryIds ? values.readValueDictionaryId() : -1;
      switch (descriptor.getPrimitiveType().getPrimitiveTypeName()) {
        case INT32 -> column.setInt(batch, col, row, id >= 0 ? dictionary.decodeToInt(id) : values.readInteger());
        case INT64 -> column.setLong(batch, col, row, id >= 0 ? dictionary.decodeToLong(id) : values.readLong());
        default -> column.setBinary(batch, col, row, id >= 0 ? dictionary.decodeToBinary(id) : values.readBytes());
      }
    }
  }

  private void readPage() throws IOException {
    DataPage page = pages.readPage();
    if (page == null) {
      throw new ParquetDecodingException("the column chunk has fewer values than its row group has rows");
    }
    pageLeft = page.getValueCount();
    if (page instanceof DataPageV1 v1) {
      ByteBufferInputStream in = v1.getBytes().toInputStream();
      ValuesReader repetition = v1.getRlEncoding().getValuesReader(descriptor, ValuesType.REPETITION_LEVEL);
      repetition.initFromPage(pageLeft, in);
      ValuesReader definition = v1.getDlEncoding().getValuesReader(descriptor, ValuesType.DEFINITION_LEVEL);
      definition.initFromPage(pageLeft, in);
      levels = maxDefinition == 0 ? null : definition::readInteger;
      startValues(v1.getValueEncoding(), in);
    } else if (page instanceof DataPageV2 v2) {
      if (maxDefinition == 0) {
        levels = null;
      } else {
        RunLengthBitPackingHybridDecoder definition = new RunLengthBitPackingHybridDecoder(
            BytesUtils.getWidthFromMaxInt(maxDefinition), v2.getDefinitionLevels().toInputStream());
        levels = definition::readInt;
      }
      startValues(v2.getDataEncoding(), v2.getData().toInputStream());
    } else {
      throw new ParquetDecodingException("unknown page kind " + page.getClass().getSimpleName());
    }
  }

  /** As parquet-column's reader starts a page's values, the workaround for old writers' delta pages included. */
  private void startValues(Encoding encoding, ByteBufferInputStream in) throws IOException {
    if (encoding.usesDictionary()) {
      if (dictionary == null) {
        throw new ParquetDecodingException("a page is " + encoding + "-encoded but the chunk has no dictionary page");
      }
      values = encoding.getDictionaryBasedValuesReader(descriptor, ValuesType.VALUES, dictionary);
    } else {
      values = encoding.getValuesReader(descriptor, ValuesType.VALUES);
    }
    dictionaryIds = encoding.usesDictionary();
    if (CorruptDeltaByteArrays.requiresSequentialReads(writerVersion, encoding)
        && previousValues instanceof RequiresPreviousReader && values instanceof RequiresPreviousReader next) {
      next.setPreviousReader(previousValues);
    }
    values.initFromPage(pageLeft, in);
    previousValues = values;
  }

  private int[] dictionaryInts() {
    if (dictionaryInts == null) {
      dictionaryInts = new int[dictionary.getMaxId() + 1];
      for (int id = 0; id < dictionaryInts.length; id++) {
        dictionaryInts[id] = dictionary.decodeToInt(id);
      }
    }
    return dictionaryInts;
  }

  private long[] dictionaryLongs() {
    if (dictionaryLongs == null) {
      boolean int32 = column.conversion() == ParquetColumn.Conversion.DECIMAL_INT32;
      dictionaryLongs = new long[dictionary.getMaxId() + 1];
      for (int id = 0; id < dictionaryLongs.length; id++) {
        dictionaryLongs[id] = int32 ? dictionary.decodeToInt(id) : dictionary.decodeToLong(id);
      }
    }
    return dictionaryLongs;
  }

  private double[] dictionaryDoubles() {
    if (dictionaryDoubles == null) {
      boolean float32 = column.conversion() == ParquetColumn.Conversion.FLOAT;
      dictionaryDoubles = new double[dictionary.getMaxId() + 1];
      for (int id = 0; id < dictionaryDoubles.length; id++) {
        dictionaryDoubles[id] = float32 ? dictionary.decodeToFloat(id) : dictionary.decodeToDouble(id);
      }
    }
    return dictionaryDoubles;
  }

  /**
   * Declares the dictionary entries the batch column used as its distinct values, so that its statistics take each
   * once ({@link BatchBuilder#declareDistinct}).
   */
  private void declareUsedEntries(BatchBuilder batch, int col) {
    int count = 0;
    for (boolean used : usedEntries) {
      count += used ? 1 : 0;
    }
    int[] ids = new int[count];
    for (int id = 0, next = 0; id < usedEntries.length; id++) {
      if (usedEntries[id]) {
        ids[next++] = id;
      }
    }
    switch (target) {
      case TEXT -> {
        byte[][] texts = dictionaryTexts();
        batch.declareDistinct(col, Arrays.stream(ids).mapToObj(id -> texts[id]).toArray(byte[][]::new));
      }
      case INT -> {
        int[] ints = dictionaryInts();
        batch.declareDistinct(col, Arrays.stream(ids).mapToLong(id -> ints[id]).toArray());
      }
      case LONG -> {
        long[] longs = dictionaryLongs();
        batch.declareDistinct(col, Arrays.stream(ids).mapToLong(id -> longs[id]).toArray());
      }
      default -> throw new IllegalStateException("no distinct values to declare for " + target);
    }
  }

  /** The text entries as the vector stores them (see {@link #storedUtf8}). */
  private byte[][] dictionaryTexts() {
    if (dictionaryTexts == null) {
      dictionaryTexts = new byte[dictionary.getMaxId() + 1][];
      for (int id = 0; id < dictionaryTexts.length; id++) {
        Binary entry = dictionary.decodeToBinary(id);
        dictionaryTexts[id] = storedUtf8(entry.getBytes());
      }
    }
    return dictionaryTexts;
  }

  /**
   * Text as {@link BatchBuilder#setUtf8} stores it: ASCII as it is, other bytes through a String, which replaces
   * malformed sequences as decoding does.
   */
  private static byte[] storedUtf8(byte[] utf8) {
    return Ascii.isAscii(utf8, 0, utf8.length) ? utf8
        : new String(utf8, StandardCharsets.UTF_8).getBytes(StandardCharsets.UTF_8);
  }
}
