package org.spillway.storage.imports;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.apache.parquet.column.Dictionary;
import org.spillway.storage.Ascii;
import org.spillway.storage.BatchBuilder;

/**
 * A column chunk's dictionary entries decoded once, on first use, in the form a batch column takes them: ints,
 * longs (decimals of INT32 widened), doubles (floats widened), or text as the vector stores it, so that a
 * dictionary-encoded value costs one id and one array read. One thread at a time.
 */
final class DictionaryEntries {
  private static final VarHandle LONG_LE = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
  /** The longest entries, in 8-byte words, that are also kept as words ({@link #textWords}). */
  private static final int SHORT_TEXT_WORDS = 4;

  private final Dictionary dictionary;
  private final ParquetColumn.Conversion conversion;
  private int[] ints;
  private long[] longs;
  private double[] doubles;
  private byte[][] texts;
  private int longestText;
  private long[] textWords;
  private int textWordsPerEntry;

  DictionaryEntries(Dictionary dictionary, ParquetColumn column) {
    this.dictionary = dictionary;
    this.conversion = column.conversion();
  }

  int[] ints() {
    if (ints == null) {
      ints = new int[size()];
      for (int id = 0; id < ints.length; id++) {
        ints[id] = dictionary.decodeToInt(id);
      }
    }
    return ints;
  }

  long[] longs() {
    if (longs == null) {
      boolean int32 = conversion == ParquetColumn.Conversion.DECIMAL_INT32;
      longs = new long[size()];
      for (int id = 0; id < longs.length; id++) {
        longs[id] = int32 ? dictionary.decodeToInt(id) : dictionary.decodeToLong(id);
      }
    }
    return longs;
  }

  double[] doubles() {
    if (doubles == null) {
      boolean float32 = conversion == ParquetColumn.Conversion.FLOAT;
      doubles = new double[size()];
      for (int id = 0; id < doubles.length; id++) {
        doubles[id] = float32 ? dictionary.decodeToFloat(id) : dictionary.decodeToDouble(id);
      }
    }
    return doubles;
  }

  /** The text entries as the vector stores them (see {@link #storedUtf8}). */
  byte[][] texts() {
    if (texts == null) {
      texts = new byte[size()][];
      for (int id = 0; id < texts.length; id++) {
        texts[id] = storedUtf8(dictionary.decodeToBinary(id).getBytes());
        longestText = Math.max(longestText, texts[id].length);
      }
      int words = Math.max(1, (longestText + 7) / 8);
      if (words <= SHORT_TEXT_WORDS) {
        textWordsPerEntry = words;
        textWords = new long[texts.length * words];
        for (int id = 0; id < texts.length; id++) {
          byte[] padded = Arrays.copyOf(texts[id], words * 8);
          for (int w = 0; w < words; w++) {
            textWords[id * words + w] = (long) LONG_LE.get(padded, 8 * w);
          }
        }
      }
    }
    return texts;
  }

  /** The length of the longest text entry ({@link #texts} first). */
  int longestText() {
    return longestText;
  }

  /**
   * Where every text entry is at most {@value #SHORT_TEXT_WORDS} words of 8 bytes ({@link #texts} first): the
   * entries zero-padded to {@link #textWordsPerEntry} little-endian words each, entry i's from word
   * {@code i * textWordsPerEntry}; else null.
   */
  long[] textWords() {
    return textWords;
  }

  /** The words of each entry in {@link #textWords}, or 0 where the entries are longer. */
  int textWordsPerEntry() {
    return textWordsPerEntry;
  }

  private int size() {
    return dictionary.getMaxId() + 1;
  }

  /**
   * Text as {@link BatchBuilder#setUtf8} stores it: ASCII as it is, other bytes through a String, which replaces
   * malformed sequences as decoding does.
   */
  static byte[] storedUtf8(byte[] utf8) {
    return Ascii.isAscii(utf8, 0, utf8.length) ? utf8
        : new String(utf8, StandardCharsets.UTF_8).getBytes(StandardCharsets.UTF_8);
  }
}
