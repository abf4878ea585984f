package org.spillway.storage.imports;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.EOFException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Random;
import org.apache.parquet.io.SeekableInputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link ChannelInputFile}'s stream reads what the file holds wherever it is moved: whole heap and direct buffers,
 * arrays and single bytes, short reads at the end and -1 past it, a full read past the end refused; skip and
 * available count from the position. (Every Parquet import reads through it: ParquetImportTest.)
 */
class ChannelInputFileTest {
  @TempDir
  Path dir;

  @Test
  void readsTheFileWhereverItIsMoved() throws Exception {
    byte[] content = new byte[3 * 8192 + 17];
    new Random(7).nextBytes(content);
    Path file = Files.write(dir.resolve("f.bin"), content);
    ChannelInputFile input = new ChannelInputFile(file);
    assertEquals(content.length, input.getLength());
    try (SeekableInputStream in = input.newStream()) {
      assertEquals(0, in.getPos());
      assertEquals(content[0] & 0xff, in.read());
      ByteBuffer heap = ByteBuffer.allocate(10_000);
      in.readFully(heap);
      assertArrayEquals(Arrays.copyOfRange(content, 1, 10_001), heap.array());
      assertEquals(10_001, in.getPos());

      in.seek(5);
      ByteBuffer direct = ByteBuffer.allocateDirect(100);
      in.readFully(direct);
      byte[] read = new byte[100];
      direct.flip().get(read);
      assertArrayEquals(Arrays.copyOfRange(content, 5, 105), read);

      byte[] array = new byte[20];
      in.seek(content.length - 10);
      assertEquals(10, in.available());
      assertEquals(10, in.read(array, 5, 15), "a short read at the end");
      assertArrayEquals(Arrays.copyOfRange(content, content.length - 10, content.length), Arrays.copyOfRange(array,
          5, 15));
      assertEquals(-1, in.read(array, 0, 1));
      assertEquals(-1, in.read());
      assertEquals(0, in.read(array, 0, 0));

      in.seek(100);
      assertEquals(50, in.skip(50));
      in.readFully(array, 0, 3);
      assertArrayEquals(Arrays.copyOfRange(content, 150, 153), Arrays.copyOfRange(array, 0, 3));
      in.seek(content.length - 2);
      assertEquals(2, in.skip(10), "skips to the end, not past it");
      assertEquals(content.length, in.getPos());

      in.seek(content.length - 4);
      assertThrows(EOFException.class, () -> in.readFully(new byte[8]));
      in.seek(0);
      byte[] all = new byte[content.length];
      in.readFully(all);
      assertArrayEquals(content, all);
    }
  }
}
