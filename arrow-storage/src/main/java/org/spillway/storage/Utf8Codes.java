package org.spillway.storage;

import java.nio.ByteBuffer;
import java.nio.IntBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VarCharVector;

/**
 * The codes of a dictionary's strings, looked up by the UTF-8 bytes of a text vector's values: an open-addressing
 * table of the encoded strings, so that encoding a column makes no String (nor byte array) per row. Read-only once
 * built, so threads may share it.
 */
final class Utf8Codes {
  /** Dictionaries this small are searched entry by entry, lengths first: cheaper than hashing every value. */
  static final int SCANNED_ENTRIES = 16;

  /** The entries by code where the dictionary is scanned, else null. */
  private final byte[][] entries;
  private final byte[][] keys;
  private final int[] codes;
  private final int mask;

  Utf8Codes(List<String> dictionary) {
    entries = dictionary.size() <= SCANNED_ENTRIES
        ? dictionary.stream().map(v -> v.getBytes(StandardCharsets.UTF_8)).toArray(byte[][]::new) : null;
    int slots = Integer.highestOneBit(Math.max(2, dictionary.size()) * 2 - 1) << 1;
    keys = new byte[slots][];
    codes = new int[slots];
    mask = slots - 1;
    for (int code = 0; code < dictionary.size(); code++) {
      byte[] key = dictionary.get(code).getBytes(StandardCharsets.UTF_8);
      int slot = hash(key, 0, key.length) & mask;
      while (keys[slot] != null) {
        slot = (slot + 1) & mask;
      }
      keys[slot] = key;
      codes[slot] = code;
    }
  }

  /**
   * The code of row {@code row} (not NULL) of {@code vector}, whose value is in the dictionary; {@code scratch}
   * holds the bytes on the way and grows (the caller keeps the returned array for its next call).
   */
  int code(VarCharVector vector, int row, byte[][] scratch) {
    ArrowBuf offsets = vector.getOffsetBuffer();
    int start = offsets.getInt((long) row * BaseVariableWidthVector.OFFSET_WIDTH);
    int length = offsets.getInt((long) (row + 1) * BaseVariableWidthVector.OFFSET_WIDTH) - start;
    if (scratch[0].length < length) {
      scratch[0] = new byte[Math.max(length, 2 * scratch[0].length)];
    }
    vector.getDataBuffer().getBytes(start, scratch[0], 0, length);
    return code(scratch[0], 0, length, vector.getName());
  }

  /**
   * Sets row i of {@code target} to the code of row i of {@code vector} (NULL where it is NULL), for the first
   * {@code rows} rows; the vector's bytes are copied into {@code scratch} (grown as needed, kept by the caller) at
   * once rather than value by value.
   */
  void codes(VarCharVector vector, int rows, IntVector target, byte[][] scratch) {
    IntBuffer offsets = VectorBuffers.offsets(vector, rows);
    ByteBuffer validity = VectorBuffers.validity(vector, rows);
    int first = offsets.get(0);
    int end = offsets.get(rows);
    if (scratch[0].length < end - first) {
      scratch[0] = new byte[Math.max(end - first, 2 * scratch[0].length)];
    }
    byte[] bytes = scratch[0];
    vector.getDataBuffer().getBytes(first, bytes, 0, end - first);
    IntBuffer codes = VectorBuffers.data(target, rows, Integer.BYTES).asIntBuffer();
    int start = first;
    for (int row = 0; row < rows; row++) {
      int next = offsets.get(row + 1);
      codes.put(row, VectorBuffers.isNull(validity, row) ? 0 : code(bytes, start - first, next - start, vector.getName()));
      start = next;
    }
    copyValidity(vector, target, rows);
  }

  /**
   * As {@link #codes(VarCharVector, int, IntVector, byte[][])} for a vector whose non-NULL row i holds
   * {@code values[valueOfRow[i]]} ({@link BatchBuilder#declareDistinct(int, byte[][], char[])}): each value's code is
   * found once, and a row's code is an array read.
   */
  void codes(byte[][] values, char[] valueOfRow, VarCharVector vector, int rows, IntVector target) {
    int[] codeOf = new int[values.length];
    for (int i = 0; i < values.length; i++) {
      codeOf[i] = code(values[i], 0, values[i].length, vector.getName());
    }
    ByteBuffer validity = VectorBuffers.validity(vector, rows);
    int[] codes = new int[rows];
    for (int row = 0; row < rows; row++) {
      codes[row] = VectorBuffers.isNull(validity, row) ? 0 : codeOf[valueOfRow[row]];
    }
    VectorBuffers.data(target, rows, Integer.BYTES).asIntBuffer().put(0, codes, 0, rows);
    copyValidity(vector, target, rows);
  }

  /** The codes are NULL where the values are. */
  private static void copyValidity(VarCharVector vector, IntVector target, int rows) {
    target.getValidityBuffer().setBytes(0, vector.getValidityBuffer(), 0, (rows + 7L) >>> 3);
  }

  /** The code of the {@code length} bytes of {@code bytes} from {@code from}, a value of {@code column}. */
  private int code(byte[] bytes, int from, int length, String column) {
    int code = find(bytes, from, length);
    if (code >= 0) {
      return code;
    }
    // The dictionary holds decoded strings: bytes that are not well-formed UTF-8 are found as they decode.
    String value = new String(bytes, from, length, StandardCharsets.UTF_8);
    byte[] decoded = value.getBytes(StandardCharsets.UTF_8);
    code = find(decoded, 0, decoded.length);
    if (code < 0) {
      throw new StorageException("value '" + value + "' of column " + column + " is not in its dictionary");
    }
    return code;
  }

  /** The code of the {@code length} bytes of {@code bytes} from {@code from}, or -1. */
  private int find(byte[] bytes, int from, int length) {
    if (entries != null) {
      for (int code = 0; code < entries.length; code++) {
        byte[] entry = entries[code];
        if (entry.length == length && equal(entry, bytes, from)) {
          return code;
        }
      }
      return -1;
    }
    int slot = hash(bytes, from, length) & mask;
    while (keys[slot] != null) {
      if (Arrays.equals(keys[slot], 0, keys[slot].length, bytes, from, from + length)) {
        return codes[slot];
      }
      slot = (slot + 1) & mask;
    }
    return -1;
  }

  /**
   * Whether {@code entry} is the bytes of {@code bytes} from {@code from} on: a plain loop, as most entries differ in
   * their first bytes, where a call into the arrays intrinsic costs more than the compare.
   */
  private static boolean equal(byte[] entry, byte[] bytes, int from) {
    for (int i = 0; i < entry.length; i++) {
      if (entry[i] != bytes[from + i]) {
        return false;
      }
    }
    return true;
  }

  private static int hash(byte[] bytes, int from, int length) {
    int h = 0x811c9dc5;
    for (int i = from; i < from + length; i++) {
      h = (h ^ (bytes[i] & 0xff)) * 0x01000193;
    }
    return h ^ (h >>> 16);
  }
}
