package org.spillway.storage.imports;

import java.util.Arrays;
import org.apache.parquet.column.values.bitpacking.BytePacker;
import org.apache.parquet.column.values.bitpacking.Packer;
import org.apache.parquet.io.ParquetDecodingException;

/**
 * Decodes Parquet's RLE/bit-packed hybrid encoding (dictionary ids, definition levels) into int arrays many values
 * at a time. parquet-column's {@code RunLengthBitPackingHybridDecoder} hands over one value per call, which for a
 * column of dictionary ids costs more than the rest of its decode; here a run of repeats is one fill and a
 * bit-packed run is unpacked eight values at a time by parquet-encoding's own {@link BytePacker}. Only the run headers
 * are read here, as parquet-column reads them: an unsigned varint whose low bit tells a bit-packed run (the rest: its
 * groups of eight values) from a repeated one (the rest: its length, then the value in whole bytes); a final
 * bit-packed run may be cut short by the end of the page, whose missing bytes read as zeros.
 */
final class HybridRunDecoder {
  private final int bitWidth;
  private final BytePacker packer;
  private final byte[] data;
  private int position;
  private final int end;

  /** The current run: values left, and whether they repeat {@link #repeated} or come from {@link #unpacked}. */
  private int left;
  private boolean repeating;
  private int repeated;
  private int[] unpacked = new int[0];
  private int unpackedPosition;

  /** Decodes values of {@code bitWidth} bits (0..32) from {@code data}'s bytes {@code from..end-1}. */
  HybridRunDecoder(int bitWidth, byte[] data, int from, int end) {
    if (bitWidth < 0 || bitWidth > 32) {
      throw new ParquetDecodingException("a bit width of " + bitWidth + " in RLE/bit-packed hybrid data");
    }
    this.bitWidth = bitWidth;
    this.packer = Packer.LITTLE_ENDIAN.newBytePacker(bitWidth);
    this.data = data;
    this.position = from;
    this.end = end;
  }

  /** Decodes the next {@code count} values into {@code out[from..from+count-1]}. */
  void read(int[] out, int from, int count) {
    while (count > 0) {
      if (left == 0) {
        nextRun();
      }
      int n = Math.min(left, count);
      if (repeating) {
        Arrays.fill(out, from, from + n, repeated);
      } else {
        System.arraycopy(unpacked, unpackedPosition, out, from, n);
        unpackedPosition += n;
      }
      left -= n;
      from += n;
      count -= n;
    }
  }

  private void nextRun() {
    int header = readUnsignedVarInt();
    if ((header & 1) == 0) {
      repeating = true;
      left = header >>> 1;
      repeated = readRepeatedValue();
    } else {
      repeating = false;
      int groups = header >>> 1;
      if (groups > Integer.MAX_VALUE / 8) {
        throw new ParquetDecodingException("a bit-packed run of " + groups + " groups in RLE/bit-packed hybrid data");
      }
      left = groups * 8;
      unpackRun(groups);
    }
    if (left == 0) {
      throw new ParquetDecodingException("an empty run in RLE/bit-packed hybrid data");
    }
  }

  /** Unpacks a bit-packed run of {@code groups} groups of eight values, each group {@code bitWidth} bytes. */
  private void unpackRun(int groups) {
    if (unpacked.length < groups * 8) {
      unpacked = new int[Math.max(groups * 8, 2 * unpacked.length)];
    }
    long bytes = (long) groups * bitWidth;
    byte[] source = data;
    int from = position;
    if (bytes > end - position) {
      // the page's last run may stop short of whole groups: its missing bytes are zeros
      source = Arrays.copyOf(Arrays.copyOfRange(data, position, end), Math.toIntExact(bytes));
      from = 0;
    }
    for (int group = 0; group < groups; group++) {
      packer.unpack8Values(source, from + group * bitWidth, unpacked, group * 8);
    }
    position = (int) Math.min(end, position + bytes);
    unpackedPosition = 0;
  }

  /** A repeated run's value: {@code ceil(bitWidth / 8)} bytes, little-endian. */
  private int readRepeatedValue() {
    int bytes = (bitWidth + 7) / 8;
    if (end - position < bytes) {
      throw truncated();
    }
    int value = 0;
    for (int i = 0; i < bytes; i++) {
      value |= (data[position++] & 0xff) << (8 * i);
    }
    return value;
  }

  private int readUnsignedVarInt() {
    int value = 0;
    for (int shift = 0; shift < 35; shift += 7) {
      if (position >= end) {
        throw truncated();
      }
      int b = data[position++];
      value |= (b & 0x7f) << shift;
      if ((b & 0x80) == 0) {
        return value;
      }
    }
    throw new ParquetDecodingException("a run header longer than five bytes in RLE/bit-packed hybrid data");
  }

  private static ParquetDecodingException truncated() {
    return new ParquetDecodingException("RLE/bit-packed hybrid data ends before the values its page holds");
  }
}
