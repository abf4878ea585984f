package org.spillway.storage;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.WritableByteChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The checksum measured while a file is written is the one {@link FileChecksum#of} measures of the file afterwards:
 * empty, one chunk exactly, writes that cross chunk boundaries, and a channel that takes only part of each write.
 */
class ChecksummingChannelTest {
  @TempDir Path dir;

  @Test
  void checksumWhileWritingIsTheChecksumOfTheFile() throws IOException {
    int chunk = FileChecksum.CHUNK_BYTES;
    long[] sizes = {0, 1, chunk, 2L * chunk + 12_345};
    for (long size : sizes) {
      for (boolean partialWrites : new boolean[] {false, true}) {
        Path file = dir.resolve(size + "-" + partialWrites + ".bin");
        Random random = new Random(size);
        FileChecksum measured;
        FileChannel fileChannel = FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
        try (ChecksummingChannel channel = new ChecksummingChannel(partialWrites ? atMost(fileChannel, 1_000)
            : fileChannel)) {
          for (long written = 0; written < size; ) {
            byte[] piece = new byte[(int) Math.min(size - written, 1 + random.nextInt(3 << 20))];
            random.nextBytes(piece);
            ByteBuffer buffer = ByteBuffer.wrap(piece);
            while (buffer.hasRemaining()) {
              channel.write(buffer);
            }
            written += piece.length;
          }
          measured = channel.checksum(file.getFileName().toString());
        }
        assertEquals(FileChecksum.of(file), measured, size + " bytes, partial writes " + partialWrites);
      }
    }
  }

  /** A channel that writes at most {@code most} bytes a call, as a channel may. */
  private static WritableByteChannel atMost(FileChannel channel, int most) {
    return new WritableByteChannel() {
      @Override
      public int write(ByteBuffer source) throws IOException {
        ByteBuffer part = source.slice(source.position(), Math.min(most, source.remaining()));
        int written = channel.write(part);
        source.position(source.position() + written);
        return written;
      }

      @Override
      public boolean isOpen() {
        return channel.isOpen();
      }

      @Override
      public void close() throws IOException {
        channel.close();
      }
    };
  }
}
