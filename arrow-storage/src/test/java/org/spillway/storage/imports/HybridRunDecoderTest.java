package org.spillway.storage.imports;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.IOException;
import java.util.Arrays;
import java.util.Random;
import org.apache.parquet.bytes.HeapByteBufferAllocator;
import org.apache.parquet.column.values.rle.RunLengthBitPackingHybridEncoder;
import org.apache.parquet.io.ParquetDecodingException;
import org.junit.jupiter.api.Test;

/** The bulk RLE/bit-packed hybrid decoder reads what parquet-column's encoder writes, in reads of any size. */
class HybridRunDecoderTest {
  /** Every bit width, runs of repeats and of changing values, read in pieces that cross the runs. */
  @Test
  void readsWhatParquetWritesAtEveryBitWidth() throws IOException {
    Random random = new Random(16);
    for (int bitWidth = 0; bitWidth <= 32; bitWidth++) {
      int[] values = new int[5_000];
      long limit = 1L << bitWidth;
      for (int i = 0; i < values.length; ) {
        int run = 1 + random.nextInt(i % 3 == 0 ? 40 : 4);  // long repeats become RLE runs, short ones bit-packed
        int value = (int) (random.nextLong() & (limit - 1));
        for (int j = 0; j < run && i < values.length; j++) {
          values[i++] = value;
        }
      }
      byte[] encoded = encode(bitWidth, values);
      int[] decoded = new int[values.length];
      HybridRunDecoder decoder = new HybridRunDecoder(bitWidth, withMargins(encoded), 3, 3 + encoded.length);
      for (int from = 0; from < values.length; ) {
        int count = Math.min(values.length - from, 1 + random.nextInt(300));
        decoder.read(decoded, from, count);
        from += count;
      }
      assertArrayEquals(values, decoded, "bit width " + bitWidth);
    }
  }

  /** A page's last bit-packed run may stop before its last group ends: the values there are still read. */
  @Test
  void lastBitPackedRunMayEndShort() {
    // one bit-packed run of two groups (16 values) of 3 bits, of which only the first 10 values' bytes are there
    int[] values = {1, 2, 3, 4, 5, 6, 7, 0, 7, 6};
    byte[] packed = new byte[6];
    long bits = 0;
    for (int i = 0; i < values.length; i++) {
      bits |= (long) values[i] << (3 * i);
    }
    for (int i = 0; i < 4; i++) {
      packed[i] = (byte) (bits >>> (8 * i));
    }
    byte[] page = new byte[5];
    page[0] = (byte) ((2 << 1) | 1);
    System.arraycopy(packed, 0, page, 1, 4);
    int[] decoded = new int[values.length];
    new HybridRunDecoder(3, page, 0, page.length).read(decoded, 0, values.length);
    assertArrayEquals(values, decoded);
  }

  @Test
  void dataThatEndsBeforeItsValuesIsRefused() throws IOException {
    int[] values = new int[100];
    Arrays.fill(values, 5);
    byte[] encoded = encode(3, values);  // one RLE run: its header, then its value in one byte
    HybridRunDecoder decoder = new HybridRunDecoder(3, encoded, 0, encoded.length - 1);
    assertThrows(ParquetDecodingException.class, () -> decoder.read(new int[100], 0, 100));
    HybridRunDecoder pastTheEnd = new HybridRunDecoder(3, encoded, 0, encoded.length);
    pastTheEnd.read(new int[100], 0, 100);
    assertThrows(ParquetDecodingException.class, () -> pastTheEnd.read(new int[1], 0, 1));
    assertThrows(ParquetDecodingException.class, () -> new HybridRunDecoder(33, encoded, 0, encoded.length));
    // a bit-packed run header of 2^28 groups: more values than an int counts
    byte[] huge = {(byte) 0x81, (byte) 0x80, (byte) 0x80, (byte) 0x80, 0x02};
    assertThrows(ParquetDecodingException.class, () -> new HybridRunDecoder(3, huge, 0, huge.length)
        .read(new int[8], 0, 8));
  }

  private static byte[] encode(int bitWidth, int[] values) throws IOException {
    RunLengthBitPackingHybridEncoder encoder = new RunLengthBitPackingHybridEncoder(bitWidth, 64, 1 << 20,
        new HeapByteBufferAllocator());
    for (int v : values) {
      encoder.writeInt(v);
    }
    return encoder.toBytes().toByteArray();
  }

  /** The bytes with three bytes before and after them, so that the decoder must keep to its range. */
  private static byte[] withMargins(byte[] bytes) {
    byte[] out = new byte[bytes.length + 6];
    Arrays.fill(out, (byte) 0x5a);
    System.arraycopy(bytes, 0, out, 3, bytes.length);
    return out;
  }
}
