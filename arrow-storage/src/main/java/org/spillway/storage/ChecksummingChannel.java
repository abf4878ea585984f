package org.spillway.storage;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.WritableByteChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.CRC32C;

/**
 * A channel that writes a new file from its start and measures, on the way, what {@link FileChecksum#of} would
 * measure of it afterwards: the size and the CRC32C of each {@value FileChecksum#CHUNK_BYTES}-byte chunk. The bytes
 * are checksummed while in cache, instead of the file being mapped and read back once written.
 */
final class ChecksummingChannel implements WritableByteChannel {
  private final WritableByteChannel channel;
  private final List<Long> chunkCrcs = new ArrayList<>();
  private final CRC32C crc = new CRC32C();
  private long bytes;
  /** Bytes of the current chunk so far. */
  private int inChunk;

  /** Wraps a channel positioned at the start of an empty file, which only this channel writes. */
  ChecksummingChannel(WritableByteChannel channel) {
    this.channel = channel;
  }

  @Override
  public int write(ByteBuffer source) throws IOException {
    int from = source.position();
    int written = channel.write(source);
    ByteBuffer done = source.duplicate().position(from).limit(from + written);
    while (done.hasRemaining()) {
      int take = Math.min(done.remaining(), FileChecksum.CHUNK_BYTES - inChunk);
      crc.update(done.slice(done.position(), take));
      done.position(done.position() + take);
      inChunk += take;
      bytes += take;
      if (inChunk == FileChecksum.CHUNK_BYTES) {
        chunkCrcs.add(crc.getValue());
        crc.reset();
        inChunk = 0;
      }
    }
    return written;
  }

  /** The checksum of the file named {@code name} as written so far. */
  FileChecksum checksum(String name) {
    List<Long> crcs = new ArrayList<>(chunkCrcs);
    if (inChunk > 0) {
      crcs.add(crc.getValue());
    }
    return new FileChecksum(name, bytes, crcs);
  }

  @Override
  public boolean isOpen() {
    return channel.isOpen();
  }

  @Override
  public void close() throws IOException {
    channel.close();
  }
}
