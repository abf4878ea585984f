package org.spillway.storage.imports;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.apache.parquet.io.InputFile;
import org.apache.parquet.io.SeekableInputStream;

/**
 * A local Parquet file, read through a {@link FileChannel} straight into the buffers parquet-hadoop's reader hands
 * over. parquet-common's {@code LocalInputFile} reads a buffer's bytes into a new array of their size first (a row
 * group's column chunks at once: megabytes, a humongous allocation in G1 for each read), through
 * {@code RandomAccessFile}, whose native read of more than 8 KiB goes through memory allocated for the call, then
 * copies them into the buffer: three copies and two allocations where a channel's positional read makes two copies
 * (through the JDK's per-thread cached direct buffer) and none.
 */
final class ChannelInputFile implements InputFile {
  private final Path file;

  ChannelInputFile(Path file) {
    this.file = file;
  }

  @Override
  public long getLength() throws IOException {
    return Files.size(file);
  }

  @Override
  public SeekableInputStream newStream() throws IOException {
    return new Stream(FileChannel.open(file, StandardOpenOption.READ));
  }

  @Override
  public String toString() {
    return file.toString();
  }

  /** The channel read at a position of its own, which {@link #seek} moves. */
  private static final class Stream extends SeekableInputStream {
    private final FileChannel channel;
    private long position;
    private final ByteBuffer oneByte = ByteBuffer.allocate(1);

    Stream(FileChannel channel) {
      this.channel = channel;
    }

    @Override
    public long getPos() {
      return position;
    }

    @Override
    public void seek(long newPosition) throws IOException {
      if (newPosition < 0) {
        throw new IOException("cannot seek to position " + newPosition);
      }
      position = newPosition;
    }

    @Override
    public int read() throws IOException {
      oneByte.clear();
      return read(oneByte) <= 0 ? -1 : oneByte.get(0) & 0xff;
    }

    @Override
    public int read(byte[] bytes, int from, int count) throws IOException {
      return count == 0 ? 0 : read(ByteBuffer.wrap(bytes, from, count));
    }

    /** Reads up to the buffer's remaining bytes; -1 at the end of the file (where the buffer has room). */
    @Override
    public int read(ByteBuffer buffer) throws IOException {
      int read = channel.read(buffer, position);
      if (read > 0) {
        position += read;
      }
      return read;
    }

    @Override
    public void readFully(byte[] bytes) throws IOException {
      readFully(ByteBuffer.wrap(bytes));
    }

    @Override
    public void readFully(byte[] bytes, int from, int count) throws IOException {
      readFully(ByteBuffer.wrap(bytes, from, count));
    }

    @Override
    public void readFully(ByteBuffer buffer) throws IOException {
      while (buffer.hasRemaining()) {
        if (read(buffer) < 0) {
          throw new EOFException("the file ends " + buffer.remaining() + " bytes before what is read");
        }
      }
    }

    @Override
    public long skip(long count) throws IOException {
      long skipped = Math.max(0, Math.min(count, channel.size() - position));
      position += skipped;
      return skipped;
    }

    @Override
    public int available() throws IOException {
      return (int) Math.max(0, Math.min(Integer.MAX_VALUE, channel.size() - position));
    }

    @Override
    public void close() throws IOException {
      channel.close();
    }
  }
}
