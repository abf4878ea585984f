package org.spillway.storage.imports;

import com.github.luben.zstd.Zstd;
import io.airlift.compress.lz4.Lz4Compressor;
import io.airlift.compress.lz4.Lz4Decompressor;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.zip.GZIPInputStream;
import java.util.zip.GZIPOutputStream;
import org.apache.parquet.bytes.BytesInput;
import org.apache.parquet.compression.CompressionCodecFactory;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.xerial.snappy.Snappy;

/**
 * Parquet's page codecs without Hadoop: parquet-hadoop's own factory reaches its codecs through Hadoop's
 * {@code CompressionCodec} classes, which would bring the Hadoop jars in. Snappy and ZSTD come from the libraries
 * parquet-hadoop already depends on (snappy-java, zstd-jni), LZ4_RAW from aircompressor, GZIP from the JDK.
 * Pages are whole byte arrays, so every codec is one call. Stateless and thread-safe.
 */
public final class ParquetCodecs implements CompressionCodecFactory {
  public static final ParquetCodecs INSTANCE = new ParquetCodecs();

  private ParquetCodecs() {}

  @Override
  public BytesInputCompressor getCompressor(CompressionCodecName codec) {
    checkSupported(codec);
    return new BytesInputCompressor() {
      @Override
      public BytesInput compress(BytesInput bytes) throws IOException {
        return BytesInput.from(ParquetCodecs.compress(codec, bytes.toByteArray()));
      }

      @Override
      public CompressionCodecName getCodecName() {
        return codec;
      }

      @Override
      public void release() {
      }
    };
  }

  @Override
  public BytesInputDecompressor getDecompressor(CompressionCodecName codec) {
    checkSupported(codec);
    return new BytesInputDecompressor() {
      @Override
      public BytesInput decompress(BytesInput bytes, int uncompressedSize) throws IOException {
        if (codec == CompressionCodecName.SNAPPY) {
          // the page's compressed bytes where they lie (a slice of the chunk's buffer, which toByteArray copies),
          // uncompressed into an array of the row group's (RowGroupBuffers)
          ByteBuffer compressed = bytes.toInputStream().slice((int) bytes.size());
          if (compressed.hasArray()) {
            int from = compressed.arrayOffset() + compressed.position();
            byte[] out = RowGroupBuffers.take(uncompressedSize);
            uncompressSnappy(compressed.array(), from, compressed.remaining(), out, uncompressedSize);
            return BytesInput.from(out, 0, uncompressedSize);
          }
        }
        return BytesInput.from(ParquetCodecs.decompress(codec, bytes.toByteArray(), uncompressedSize));
      }

      @Override
      public void decompress(ByteBuffer input, int compressedSize, ByteBuffer output, int uncompressedSize)
          throws IOException {
        byte[] compressed = new byte[compressedSize];
        input.get(compressed);
        output.put(ParquetCodecs.decompress(codec, compressed, uncompressedSize));
      }

      @Override
      public void release() {
      }
    };
  }

  @Override
  public void release() {
  }

  /** Whether pages compressed with this codec can be read. */
  public static boolean supports(CompressionCodecName codec) {
    return switch (codec) {
      case UNCOMPRESSED, SNAPPY, GZIP, ZSTD, LZ4_RAW -> true;
      default -> false;
    };
  }

  private static void checkSupported(CompressionCodecName codec) {
    if (!supports(codec)) {
      throw new UnsupportedOperationException("Parquet compression " + codec
          + " is not supported; supported: UNCOMPRESSED, SNAPPY, GZIP, ZSTD, LZ4_RAW");
    }
  }

  static byte[] decompress(CompressionCodecName codec, byte[] compressed, int uncompressedSize) throws IOException {
    byte[] out = switch (codec) {
      case UNCOMPRESSED -> compressed;
      case SNAPPY -> {
        byte[] uncompressed = new byte[uncompressedSize];
        uncompressSnappy(compressed, 0, compressed.length, uncompressed, uncompressedSize);
        yield uncompressed;
      }
      case ZSTD -> Zstd.decompress(compressed, uncompressedSize);
      case GZIP -> {
        try (GZIPInputStream in = new GZIPInputStream(new ByteArrayInputStream(compressed))) {
          yield in.readNBytes(uncompressedSize);
        }
      }
      case LZ4_RAW -> {
        byte[] target = new byte[uncompressedSize];
        int n = new Lz4Decompressor().decompress(compressed, 0, compressed.length, target, 0, target.length);
        yield n == target.length ? target : java.util.Arrays.copyOf(target, n);
      }
      default -> throw new IOException("unsupported Parquet compression " + codec);
    };
    if (out.length != uncompressedSize) {
      throw new IOException("a " + codec + " page decompressed to " + out.length + " bytes, its header says "
          + uncompressedSize);
    }
    return out;
  }

  /**
   * The {@code length} Snappy-compressed bytes of {@code compressed} from {@code from}, uncompressed into the first
   * {@code uncompressedSize} bytes (the page header's size) of {@code out}; fails if the data says another size.
   */
  private static void uncompressSnappy(byte[] compressed, int from, int length, byte[] out, int uncompressedSize)
      throws IOException {
    int size = Snappy.uncompressedLength(compressed, from, length);
    if (size != uncompressedSize) {
      throw new IOException("a SNAPPY page decompressed to " + size + " bytes, its header says " + uncompressedSize);
    }
    Snappy.uncompress(compressed, from, length, out, 0);
  }

  static byte[] compress(CompressionCodecName codec, byte[] plain) throws IOException {
    return switch (codec) {
      case UNCOMPRESSED -> plain;
      case SNAPPY -> Snappy.compress(plain);
      case ZSTD -> Zstd.compress(plain);
      case GZIP -> {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (GZIPOutputStream out = new GZIPOutputStream(bytes)) {
          out.write(plain);
        }
        yield bytes.toByteArray();
      }
      case LZ4_RAW -> {
        Lz4Compressor compressor = new Lz4Compressor();
        byte[] target = new byte[compressor.maxCompressedLength(plain.length)];
        int n = compressor.compress(plain, 0, plain.length, target, 0, target.length);
        yield java.util.Arrays.copyOf(target, n);
      }
      default -> throw new IOException("unsupported Parquet compression " + codec);
    };
  }
}
