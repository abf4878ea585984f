package org.spillway.storage.imports;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
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
import org.apache.parquet.io.ParquetDecodingException;
import org.apache.parquet.io.api.Binary;
import org.spillway.storage.Ascii;
import org.spillway.storage.BatchBuilder;
import org.spillway.storage.ColumnType;

/**
 * Decodes one column chunk of a row group into batch columns a page at a time, without parquet-column's
 * record-level {@code ColumnReader}, which hands over one value at a time through a converter. The common types are
 * decoded in bulk: numbers into the batch column's vector ({@link BatchBuilder#dataOf}; a plain page without NULLs
 * with one copy from the page, other pages through an array), text into one array per batch column set with one copy
 * ({@link BatchBuilder#putUtf8}); dictionary ids and RLE definition levels a page run at a time
 * ({@link HybridRunDecoder}), each id then one array read of the chunk's {@link DictionaryEntries}; PLAIN values
 * straight from the page bytes. Other encodings (delta, byte-stream-split) go through parquet-column's
 * {@link ValuesReader}s, and the rare conversions (unsigned, timestamps, INT96, binary decimals, text of a declared
 * length) value by value through {@link ParquetColumn}'s setters. One thread at a time.
 */
final class ParquetChunkDecoder {
  private static final VarHandle INT_LE = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);
  private static final VarHandle LONG_LE = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
  private static final VarHandle DOUBLE_LE =
      MethodHandles.byteArrayViewVarHandle(double[].class, ByteOrder.LITTLE_ENDIAN);

  /** Plain text values of up to this many bytes are copied as this many ({@link #copyPlainText}). */
  private static final int SHORT_TEXT = 64;

  /** The most text room made at once for a run of dictionary-encoded rows; beyond it, room is made row by row. */
  private static final long TEXT_ROOM_AT_ONCE = 64L << 20;

  /** Where decoded values go: the vector's 4-byte ints, 8-byte longs or doubles, an array of text, or the setters. */
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
  /** The dictionary's entries decoded for the target (null without a dictionary). */
  private final DictionaryEntries dictionaryEntries;
  /**
   * Which dictionary entries the batch column being decoded uses, and whether all its values are entries (text and
   * integer targets; null without a dictionary).
   */
  private boolean[] usedEntries;
  private boolean onlyEntries;
  /** The dictionary id of each row of the text batch column being decoded (0 for NULL rows) while its pages are ids. */
  private int[] rowIds;
  /**
   * Whether the text batch column being decoded has only its rows' ids so far, no text: while every page is
   * dictionary ids, the rows go to the batch as their entries and ids ({@link BatchBuilder#putDeclaredUtf8}), whose
   * text is written only if the column is not encoded at commit; a page of other values writes the text so far.
   */
  private boolean textDeferred;

  /** Where the current page's values come from: ids into the dictionary, plain bytes, or a parquet reader. */
  private enum Source { IDS, PLAIN, READER }

  /** The current page: where its values come from, and how many are left. */
  private Source source;
  private int pageLeft;
  /** Its dictionary ids' runs (source IDS), and the ids of the rows being decoded. */
  private HybridRunDecoder idRuns;
  private int[] ids;
  /** Its plain values (source PLAIN): {@code plainData}'s bytes from {@code plainPosition} to {@code plainEnd}. */
  private byte[] plainData;
  private int plainPosition;
  private int plainEnd;
  /** Its values' reader (source READER, and every page of the setter target). */
  private ValuesReader values;
  private boolean valuesAreIds;
  private ValuesReader previousValues;
  /** Its definition levels (none where the column has none): their runs, or a reader of another encoding. */
  private HybridRunDecoder levelRuns;
  private ValuesReader levelReader;
  private int[] levelValues;

  /**
   * Per batch column, while {@link #copy} runs (the thread's {@link DecodeScratch}): the NULL rows, the little-endian
   * values or text offsets, the text bytes.
   */
  private boolean[] nulls;
  private byte[] bytes;
  /** The batch column's values in its vector, for the INT, LONG and DOUBLE targets ({@link BatchBuilder#dataOf}). */
  private ByteBuffer vectorValues;
  /**
   * Whether the rows just decoded went straight into {@link #vectorValues} (a plain page's values without NULLs, one
   * copy from the page), not into {@link #bytes}, whose rows are then copied there.
   */
  private boolean decodedInPlace;
  private byte[] text;
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
      this.dictionaryEntries = dictionary == null ? null : new DictionaryEntries(dictionary, column);
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
    DecodeScratch scratch = DecodeScratch.forRows(rows);
    nulls = scratch.nulls;
    bytes = scratch.bytes;
    rowIds = scratch.rowIds;
    text = scratch.text;
    ids = scratch.ids;
    levelValues = scratch.levels;
    try {
      decode(batch, col, rows);
    } finally {
      // the arrays that grew while decoding, for the thread's next batch column
      scratch.text = text;
      scratch.ids = ids;
      scratch.levels = levelValues;
    }
  }

  private void decode(BatchBuilder batch, int col, int rows) throws IOException {
    boolean anyNull = false;
    int textLength = 0;
    onlyEntries = true;
    if (usedEntries != null) {
      Arrays.fill(usedEntries, false);
    }
    textDeferred = target == Target.TEXT && usedEntries != null;
    vectorValues = switch (target) {
      case INT, LONG, DOUBLE -> batch.dataOf(col, rows);
      case TEXT, SETTER -> null;
    };
    for (int row = 0; row < rows; ) {
      if (pageLeft == 0) {
        readPage();
      }
      int end = row + Math.min(rows - row, pageLeft);
      int present = readLevels(row, end);
      anyNull |= present < end - row;
      onlyEntries &= source == Source.IDS;
      if (source == Source.IDS) {
        readIds(present);
      }
      decodedInPlace = false;
      switch (target) {
        case INT -> decodeInts(row, end, present);
        case LONG -> decodeLongs(batch, col, row, end, present);
        case DOUBLE -> decodeDoubles(row, end, present);
        case TEXT -> textLength = decodeTexts(row, end, present, textLength);
        case SETTER -> decodeBySetters(batch, col, row, end);
      }
      if (vectorValues != null && !decodedInPlace) {
        int width = target == Target.INT ? 4 : 8;
        vectorValues.put(row * width, bytes, row * width, (end - row) * width);
      }
      pageLeft -= end - row;
      row = end;
    }
    if (textDeferred && !putDeclaredText(batch, col, rows, anyNull)) {
      textDeferred = false;
      textOfRowIds(0, rows, 0);
    }
    if (textDeferred) {
      return;
    }
    switch (target) {
      case INT, LONG, DOUBLE -> batch.putNulls(col, anyNull ? nulls : null, rows);
      case TEXT -> batch.putUtf8(col, bytes, text, anyNull ? nulls : null, rows);
      case SETTER -> { }
    }
    if (onlyEntries && usedEntries != null) {
      declareUsedEntries(batch, col, rows);
    }
  }

  /** Marks the NULL rows of {@code from..end-1}; returns how many are not NULL. */
  private int readLevels(int from, int end) throws IOException {
    if (maxDefinition == 0) {
      Arrays.fill(nulls, from, end, false);
      return end - from;
    }
    int count = end - from;
    if (levelValues.length < count) {
      levelValues = new int[Math.max(count, 2 * levelValues.length)];
    }
    if (levelRuns != null) {
      levelRuns.read(levelValues, 0, count);
    } else {
      for (int i = 0; i < count; i++) {
        levelValues[i] = levelReader.readInteger();
      }
    }
    int present = 0;
    for (int i = 0; i < count; i++) {
      boolean isNull = levelValues[i] < maxDefinition;
      nulls[from + i] = isNull;
      present += isNull ? 0 : 1;
    }
    return present;
  }

  /**
   * Decodes the dictionary ids of the next {@code count} values into {@link #ids}, checks them against the
   * dictionary, and marks the entries used.
   */
  private void readIds(int count) {
    if (ids.length < count) {
      ids = new int[Math.max(count, 2 * ids.length)];
    }
    idRuns.read(ids, 0, count);
    int size = dictionary.getMaxId() + 1;
    for (int i = 0; i < count; i++) {
      int id = ids[i];
      if (id < 0 || id >= size) {
        throw new ParquetDecodingException("dictionary id " + id + " outside the " + size + " entries of column "
            + column.column().name());
      }
      if (usedEntries != null) {
        usedEntries[id] = true;
      }
    }
  }

  private void decodeInts(int from, int end, int present) {
    switch (source) {
      case IDS -> {
        int[] entries = dictionaryEntries.ints();
        if (present == end - from) {
          for (int i = 0; i < present; i++) {
            INT_LE.set(bytes, (from + i) * 4, entries[ids[i]]);  // no NULL to skip: one lookup a row
          }
          return;
        }
        for (int row = from, next = 0; row < end; row++) {
          INT_LE.set(bytes, row * 4, nulls[row] ? 0 : entries[ids[next++]]);
        }
      }
      case PLAIN -> {
        if (present == end - from) {
          vectorValues.put(from * 4, plainData, takePlain(present * 4), present * 4);
          decodedInPlace = true;
          return;
        }
        int at = takePlain(present * 4);
        for (int row = from; row < end; row++) {
          int v = 0;
          if (!nulls[row]) {
            v = (int) INT_LE.get(plainData, at);
            at += 4;
          }
          INT_LE.set(bytes, row * 4, v);
        }
      }
      case READER -> {
        for (int row = from; row < end; row++) {
          INT_LE.set(bytes, row * 4, nulls[row] ? 0 : values.readInteger());
        }
      }
    }
  }

  private void decodeLongs(BatchBuilder batch, int col, int from, int end, int present) {
    boolean int32 = column.conversion() == ParquetColumn.Conversion.DECIMAL_INT32;
    if (present == end - from && (source == Source.IDS || source == Source.PLAIN && !int32)) {
      decodeLongsWithoutNulls(batch, col, from, present);
      return;
    }
    long[] entries = source == Source.IDS ? dictionaryEntries.longs() : null;
    int next = 0;
    int at = source == Source.PLAIN ? takePlain(present * (int32 ? 4 : 8)) : 0;
    for (int row = from; row < end; row++) {
      long v = 0;
      if (!nulls[row]) {
        switch (source) {
          case IDS -> v = entries[ids[next++]];
          case PLAIN -> {
            if (int32) {
              v = (int) INT_LE.get(plainData, at);
              at += 4;
            } else {
              v = (long) LONG_LE.get(plainData, at);
              at += 8;
            }
          }
          case READER -> v = int32 ? values.readInteger() : values.readLong();
        }
        if (decimalLimit != 0 && (v >= decimalLimit || v <= -decimalLimit)) {
          batch.setDecimal(col, row, v);  // fails, saying why
        }
      }
      LONG_LE.set(bytes, row * 8, v);
    }
  }

  /**
   * {@link #decodeLongs} of {@code count} rows from {@code from} without a NULL, from dictionary ids or a PLAIN INT64
   * page: the values set in one loop (or one copy) without a NULL test a row, then checked against the decimal
   * digits in a loop of their own (a value too large fails at its row, as the setter says).
   */
  private void decodeLongsWithoutNulls(BatchBuilder batch, int col, int from, int count) {
    byte[] decoded;
    int at;
    if (source == Source.IDS) {
      long[] entries = dictionaryEntries.longs();
      for (int i = 0; i < count; i++) {
        LONG_LE.set(bytes, (from + i) * 8, entries[ids[i]]);
      }
      decoded = bytes;
      at = from * 8;
    } else {
      at = takePlain(count * 8);
      vectorValues.put(from * 8, plainData, at, count * 8);
      decodedInPlace = true;
      decoded = plainData;
    }
    if (decimalLimit != 0) {
      for (int i = 0; i < count; i++) {
        long v = (long) LONG_LE.get(decoded, at + i * 8);
        if (v >= decimalLimit || v <= -decimalLimit) {
          batch.setDecimal(col, from + i, v);  // fails, saying why
        }
      }
    }
  }

  private void decodeDoubles(int from, int end, int present) {
    boolean float32 = column.conversion() == ParquetColumn.Conversion.FLOAT;
    if (source == Source.PLAIN && !float32 && present == end - from) {
      vectorValues.put(from * 8, plainData, takePlain(present * 8), present * 8);
      decodedInPlace = true;
      return;
    }
    double[] entries = source == Source.IDS ? dictionaryEntries.doubles() : null;
    int next = 0;
    int at = source == Source.PLAIN ? takePlain(present * (float32 ? 4 : 8)) : 0;
    for (int row = from; row < end; row++) {
      double v = 0;
      if (!nulls[row]) {
        switch (source) {
          case IDS -> v = entries[ids[next++]];
          case PLAIN -> {
            if (float32) {
              v = Float.intBitsToFloat((int) INT_LE.get(plainData, at));
              at += 4;
            } else {
              v = (double) DOUBLE_LE.get(plainData, at);
              at += 8;
            }
          }
          case READER -> v = float32 ? values.readFloat() : values.readDouble();
        }
      }
      DOUBLE_LE.set(bytes, row * 8, v);
    }
  }

  /** Appends the text of rows {@code from..end-1} after {@code length} bytes; returns the new length. */
  private int decodeTexts(int from, int end, int present, int length) {
    if (from == 0) {
      INT_LE.set(bytes, 0, 0);
    }
    if (source != Source.IDS && textDeferred) {
      textDeferred = false;  // a page of plain values: the rows so far get their text, and the rest are plain
      length = textOfRowIds(0, from, length);
    }
    switch (source) {
      case IDS -> {
        if (present == end - from) {
          System.arraycopy(ids, 0, rowIds, from, present);
        } else {
          for (int row = from, next = 0; row < end; row++) {
            rowIds[row] = nulls[row] ? 0 : ids[next++];
          }
        }
        return textDeferred ? length : textOfRowIds(from, end, length);
      }
      case PLAIN -> {
        return decodePlainTexts(from, end, length);
      }
      default -> {
        for (int row = from; row < end; row++) {
          if (!nulls[row]) {
            int start = length;
            length = appendText(values.readBytes(), length);
            length = storeAsUtf8(start, length);
          }
          INT_LE.set(bytes, (row + 1) * 4, length);
        }
        return length;
      }
    }
  }

  /**
   * Dictionary-encoded text: each row's entry by its id in {@link #rowIds}, appended after {@code length} bytes; the
   * new length. Where every entry is short ({@link DictionaryEntries#textWords}), a row copies the same number of
   * 8-byte words whatever its entry's length (the entries zero-padded, the bytes past the entry overwritten by the
   * next row): a byte loop whose length changes from row to row costs a mispredicted branch a row. Longer entries
   * are copied as they are, with room made row by row where room for the longest in every row would be too much at
   * once.
   */
  private int textOfRowIds(int from, int end, int length) {
    if (from == 0) {
      INT_LE.set(bytes, 0, 0);
    }
    byte[][] entries = dictionaryEntries.texts();
    int words = dictionaryEntries.textWordsPerEntry();
    if (words > 0) {
      long[] textWords = dictionaryEntries.textWords();
      ensureText(length + (long) (end - from) * words * 8);
      for (int row = from; row < end; row++) {
        if (!nulls[row]) {
          int id = rowIds[row];
          for (int w = 0, base = id * words; w < words; w++) {
            LONG_LE.set(text, length + 8 * w, textWords[base + w]);
          }
          length += entries[id].length;
        }
        INT_LE.set(bytes, (row + 1) * 4, length);
      }
      return length;
    }
    long room = (long) (end - from) * dictionaryEntries.longestText();
    boolean roomMade = room <= TEXT_ROOM_AT_ONCE;
    if (roomMade) {
      ensureText(length + room);
    }
    for (int row = from; row < end; row++) {
      if (!nulls[row]) {
        byte[] value = entries[rowIds[row]];
        if (!roomMade) {
          ensureText((long) length + value.length);
        }
        System.arraycopy(value, 0, text, length, value.length);
        length += value.length;
      }
      INT_LE.set(bytes, (row + 1) * 4, length);
    }
    return length;
  }

  /**
   * A plain page's text: each value is its length (4 bytes, little-endian) and its bytes, copied straight from the
   * page. One ASCII check covers the whole run of rows; only if it fails are the values checked one by one.
   */
  private int decodePlainTexts(int from, int end, int length) {
    int firstPosition = plainPosition;
    int firstLength = length;
    // the run's text is at most the page's bytes left: room for it (and a short value's copy more, see
    // copyPlainText) made once where it fits
    long room = (long) length + (plainEnd - plainPosition) + SHORT_TEXT;
    boolean roomMade = room <= Integer.MAX_VALUE - 8;
    if (roomMade) {
      ensureText(room);
    }
    for (int row = from; row < end; row++) {
      if (!nulls[row]) {
        int count = plainLength();
        int at = takePlain(count);
        length = roomMade ? copyPlainText(at, count, length) : appendText(plainData, at, count, length);
      }
      INT_LE.set(bytes, (row + 1) * 4, length);
    }
    if (Ascii.isAscii(text, firstLength, length - firstLength)) {
      return length;
    }
    plainPosition = firstPosition;
    length = firstLength;
    for (int row = from; row < end; row++) {
      if (!nulls[row]) {
        int count = plainLength();
        int start = length;
        length = storeAsUtf8(start, appendText(plainData, takePlain(count), count, length));
      }
      INT_LE.set(bytes, (row + 1) * 4, length);
    }
    return length;
  }

  /**
   * Copies a plain value of {@code count} bytes from {@code at} in the page to {@code length} in {@link #text} (which
   * has room for it and {@link #SHORT_TEXT} bytes more); the new length. A short value is copied as
   * {@link #SHORT_TEXT} bytes, eight at a time, whatever its length, running past the value (into bytes the next value
   * overwrites): a copy call per value costs more, and so does a word loop whose count changes from value to value
   * (its exit mispredicted about once a value: 4.5 against 11.5 ns a value of 10 to 43 bytes in a micro-benchmark
   * on the 2-core machine). A longer value, or one near the page array's end, whose copy would read past it, is
   * copied as it is.
   */
  private int copyPlainText(int at, int count, int length) {
    if (count <= SHORT_TEXT && at + SHORT_TEXT <= plainData.length) {
      for (int w = 0; w < SHORT_TEXT; w += Long.BYTES) {
        LONG_LE.set(text, length + w, (long) LONG_LE.get(plainData, at + w));
      }
    } else {
      System.arraycopy(plainData, at, text, length, count);
    }
    return length + count;
  }

  /** Rewrites the text appended from {@code start} to {@code length} as the vector stores it; the new length. */
  private int storeAsUtf8(int start, int length) {
    if (Ascii.isAscii(text, start, length - start)) {
      return length;
    }
    byte[] utf8 = DictionaryEntries.storedUtf8(Arrays.copyOfRange(text, start, length));
    return appendText(utf8, 0, utf8.length, start);
  }

  /** Reads a plain text value's length. */
  private int plainLength() {
    int count = (int) INT_LE.get(plainData, takePlain(4));
    if (count < 0) {
      throw new ParquetDecodingException("a text value of negative length " + count + " in column "
          + column.column().name());
    }
    return count;
  }

  /** Takes the next {@code count} bytes of the plain page; returns where they start in {@link #plainData}. */
  private int takePlain(int count) {
    if (count > plainEnd - plainPosition) {
      throw new ParquetDecodingException("a plain page of column " + column.column().name()
          + " ends before the values it holds");
    }
    int at = plainPosition;
    plainPosition += count;
    return at;
  }

  private int appendText(byte[] value, int from, int count, int length) {
    ensureText((long) length + count);
    System.arraycopy(value, from, text, length, count);
    return length + count;
  }

  /** Appends a plain page's value; {@link Binary#writeTo} hands over its bytes without a copy or buffer of its own. */
  private int appendText(Binary value, int length) {
    ensureText((long) length + value.length());
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
      int id = valuesAreIds ? values.readValueDictionaryId() : -1;
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
      levelRuns = null;
      levelReader = null;
      if (maxDefinition > 0 && v1.getDlEncoding() == Encoding.RLE) {
        // as parquet-column's RLE level reader: the runs' length in 4 bytes, then the runs
        ByteBuffer runs = in.slice(BytesUtils.readIntLittleEndian(in));
        levelRuns = runDecoder(BytesUtils.getWidthFromMaxInt(maxDefinition), runs);
      } else {
        ValuesReader definition = v1.getDlEncoding().getValuesReader(descriptor, ValuesType.DEFINITION_LEVEL);
        definition.initFromPage(pageLeft, in);
        levelReader = definition;
      }
      startValues(v1.getValueEncoding(), in);
    } else if (page instanceof DataPageV2 v2) {
      levelReader = null;
      levelRuns = maxDefinition == 0 ? null : runDecoder(BytesUtils.getWidthFromMaxInt(maxDefinition),
          v2.getDefinitionLevels().toByteBuffer());
      startValues(v2.getDataEncoding(), v2.getData().toInputStream());
    } else {
      throw new ParquetDecodingException("unknown page kind " + page.getClass().getSimpleName());
    }
  }

  /**
   * Starts a page's values: dictionary ids and plain values of the bulk targets straight from the page's bytes,
   * anything else with parquet-column's reader for the encoding, as its record reader starts them (the workaround
   * for old writers' delta pages included).
   */
  private void startValues(Encoding encoding, ByteBufferInputStream in) throws IOException {
    valuesAreIds = encoding.usesDictionary();
    if (valuesAreIds && dictionary == null) {
      throw new ParquetDecodingException("a page is " + encoding + "-encoded but the chunk has no dictionary page");
    }
    if (target != Target.SETTER && (valuesAreIds || encoding == Encoding.PLAIN)) {
      ByteBuffer rest = in.slice(in.available());
      if (valuesAreIds) {
        source = Source.IDS;
        // as parquet-column's dictionary reader: the ids' bit width in one byte, then their runs (none in a page
        // of NULLs only)
        int bitWidth = rest.hasRemaining() ? rest.get() & 0xff : 0;
        idRuns = runDecoder(bitWidth, rest);
      } else {
        source = Source.PLAIN;
        plainData = arrayOf(rest);
        plainPosition = rest.hasArray() ? rest.arrayOffset() + rest.position() : 0;
        plainEnd = plainPosition + rest.remaining();
      }
      previousValues = null;
      return;
    }
    source = Source.READER;
    values = valuesAreIds ? encoding.getDictionaryBasedValuesReader(descriptor, ValuesType.VALUES, dictionary)
        : encoding.getValuesReader(descriptor, ValuesType.VALUES);
    if (CorruptDeltaByteArrays.requiresSequentialReads(writerVersion, encoding)
        && previousValues instanceof RequiresPreviousReader && values instanceof RequiresPreviousReader next) {
      next.setPreviousReader(previousValues);
    }
    values.initFromPage(pageLeft, in);
    previousValues = values;
  }

  private static HybridRunDecoder runDecoder(int bitWidth, ByteBuffer runs) {
    int from = runs.hasArray() ? runs.arrayOffset() + runs.position() : 0;
    return new HybridRunDecoder(bitWidth, arrayOf(runs), from, from + runs.remaining());
  }

  /** The array behind a heap buffer (its bytes from its array offset plus position), else a copy of its bytes. */
  private static byte[] arrayOf(ByteBuffer buffer) {
    if (buffer.hasArray()) {
      return buffer.array();
    }
    byte[] copy = new byte[buffer.remaining()];
    buffer.duplicate().get(copy);
    return copy;
  }

  /**
   * Declares the dictionary entries the batch column used as its distinct values, so that its statistics take each
   * once ({@link BatchBuilder#declareDistinct}); for text also each row's entry, so that the commit looks up each
   * entry's dictionary code once rather than every row's bytes.
   */
  private void declareUsedEntries(BatchBuilder batch, int col, int rows) {
    int[] usedIds = usedIds();
    switch (target) {
      case TEXT -> {
        byte[][] used = usedTexts(usedIds);
        if (usedIds.length > Character.MAX_VALUE + 1) {
          batch.declareDistinct(col, used);  // too many values for a dictionary: the rows' entries are of no use
          return;
        }
        batch.declareDistinct(col, used, valueOfRow(usedIds, rows));
      }
      case INT -> {
        int[] ints = dictionaryEntries.ints();
        batch.declareDistinct(col, Arrays.stream(usedIds).mapToLong(id -> ints[id]).toArray());
      }
      case LONG -> {
        long[] longs = dictionaryEntries.longs();
        batch.declareDistinct(col, Arrays.stream(usedIds).mapToLong(id -> longs[id]).toArray());
      }
      default -> throw new IllegalStateException("no distinct values to declare for " + target);
    }
  }

  /**
   * Puts a text batch column of dictionary ids only as its used entries and each row's one, without its text
   * ({@link BatchBuilder#putDeclaredUtf8}); false, putting nothing, where it used more entries than a row's index
   * holds (then the text is written and put as plain).
   */
  private boolean putDeclaredText(BatchBuilder batch, int col, int rows, boolean anyNull) {
    int[] usedIds = usedIds();
    if (usedIds.length > Character.MAX_VALUE + 1) {
      return false;
    }
    batch.putDeclaredUtf8(col, usedTexts(usedIds), valueOfRow(usedIds, rows), anyNull ? nulls : null, rows);
    return true;
  }

  /** The ids of the entries the batch column used, ascending. */
  private int[] usedIds() {
    int count = 0;
    for (boolean used : usedEntries) {
      count += used ? 1 : 0;
    }
    int[] usedIds = new int[count];
    for (int id = 0, next = 0; id < usedEntries.length; id++) {
      if (usedEntries[id]) {
        usedIds[next++] = id;
      }
    }
    return usedIds;
  }

  private byte[][] usedTexts(int[] usedIds) {
    byte[][] texts = dictionaryEntries.texts();
    return Arrays.stream(usedIds).mapToObj(id -> texts[id]).toArray(byte[][]::new);
  }

  /**
   * Each row's index into the used entries (by {@link #rowIds}; NULL rows get the first's): where the batch used
   * every entry (a small dictionary's usual case), its id, narrowed in one plain loop.
   */
  private char[] valueOfRow(int[] usedIds, int rows) {
    char[] valueOfRow = new char[rows];
    if (usedIds.length == usedEntries.length) {
      for (int row = 0; row < rows; row++) {
        valueOfRow[row] = (char) rowIds[row];
      }
      return valueOfRow;
    }
    int[] indexOfId = new int[usedEntries.length];
    for (int i = 0; i < usedIds.length; i++) {
      indexOfId[usedIds[i]] = i;
    }
    for (int row = 0; row < rows; row++) {
      valueOfRow[row] = (char) indexOfId[rowIds[row]];
    }
    return valueOfRow;
  }
}
