package org.spillway.storage.imports;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Random;
import org.apache.parquet.bytes.BytesInput;
import org.apache.parquet.compression.CompressionCodecFactory.BytesInputDecompressor;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.junit.jupiter.api.Test;
import org.xerial.snappy.Snappy;

/**
 * A Snappy page is uncompressed from where it lies in the column chunk's buffer (not copied out first): at an offset
 * in a heap buffer, across two buffers, in a direct buffer; a page whose header says another size fails.
 */
class ParquetCodecsTest {
  private final BytesInputDecompressor snappy = ParquetCodecs.INSTANCE.getDecompressor(CompressionCodecName.SNAPPY);

  private static byte[] page() {
    Random random = new Random(5);
    byte[] plain = new byte[100_000];
    for (int i = 0; i < plain.length; i++) {
      plain[i] = (byte) "abc de".charAt(random.nextInt(6));  // compressible, as text pages are
    }
    return plain;
  }

  @Test
  void snappyPagesUncompressWhereverTheyLie() throws IOException {
    byte[] plain = page();
    byte[] compressed = Snappy.compress(plain);
    byte[] chunk = new byte[compressed.length + 40];
    System.arraycopy(compressed, 0, chunk, 17, compressed.length);
    BytesInput atOffset = BytesInput.from(ByteBuffer.wrap(chunk), 17, compressed.length);
    assertArrayEquals(plain, snappy.decompress(atOffset, plain.length).toByteArray());

    int half = compressed.length / 2;
    BytesInput split = BytesInput.from(List.of(ByteBuffer.wrap(compressed, 0, half).slice(),
        ByteBuffer.wrap(compressed, half, compressed.length - half).slice()));
    assertArrayEquals(plain, snappy.decompress(split, plain.length).toByteArray());

    ByteBuffer direct = ByteBuffer.allocateDirect(compressed.length).put(compressed).flip();
    assertArrayEquals(plain, snappy.decompress(BytesInput.from(direct), plain.length).toByteArray());
  }

  @Test
  void aSnappyPageOfAnotherSizeThanItsHeaderSaysFails() throws IOException {
    byte[] plain = page();
    byte[] compressed = Snappy.compress(plain);
    BytesInput input = BytesInput.from(ByteBuffer.wrap(compressed), 0, compressed.length);
    IOException e = assertThrows(IOException.class, () -> snappy.decompress(input, plain.length + 1));
    assertTrue(e.getMessage().contains("its header says " + (plain.length + 1)), e.getMessage());
  }
}
