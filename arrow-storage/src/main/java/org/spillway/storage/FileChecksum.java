package org.spillway.storage;

import java.io.IOException;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.stream.IntStream;
import java.util.zip.CRC32C;

/**
 * A stored file's size and the CRC32C of each {@value #CHUNK_BYTES}-byte chunk. Chunks are independent, so
 * a file is checksummed on all cores (CRC32C is a CPU intrinsic: memory bandwidth, not the checksum, is the
 * limit); the sidecar keeps them so that damaged data fails its load instead of being served.
 */
record FileChecksum(String name, long bytes, List<Long> chunkCrcs) {
  static final int CHUNK_BYTES = 8 << 20;

  FileChecksum {
    chunkCrcs = List.copyOf(chunkCrcs);
  }

  /** Measures a file as it is on disk now. */
  static FileChecksum of(Path file) {
    try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
      long size = channel.size();
      // all chunks stop before the channel closes and the writer's cleanup deletes the file
      List<Long> crcs = ParallelWork.mapAll(chunkCount(size), chunk -> crc(channel, chunk, size));
      return new FileChecksum(file.getFileName().toString(), size, crcs);
    } catch (IOException | UncheckedStorageIo e) {
      throw new StorageException("cannot checksum " + file + ": " + IoErrors.reason(e), e);
    }
  }

  /**
   * Checks that {@code file} still has this size and these chunk checksums; fails with the table, the file
   * and "checksum mismatch" (or why it cannot be read) otherwise.
   */
  void verify(Path file, String table) {
    String where = "table " + table + ": file " + file + ": ";
    if (Files.isDirectory(file)) {
      throw new StorageException(where + "is a directory, not a data file");
    }
    try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
      long size = channel.size();
      if (size != bytes) {
        throw StorageException.corrupted(where + "checksum mismatch: " + size + " bytes, " + bytes + " were written",
            null);
      }
      int bad = IntStream.range(0, chunkCount(size)).parallel()
          .filter(chunk -> crc(channel, chunk, size) != chunkCrcs.get(chunk)).findFirst().orElse(-1);
      if (bad >= 0) {
        long start = (long) bad * CHUNK_BYTES;
        throw StorageException.corrupted(where + "checksum mismatch in bytes " + start + ".."
            + (Math.min(size, start + CHUNK_BYTES) - 1) + " (the file is damaged; restore or regenerate the table)",
            null);
      }
    } catch (IOException | UncheckedStorageIo e) {
      throw new StorageException(where + IoErrors.reason(e), e);
    }
  }

  private static int chunkCount(long size) {
    long count = (size + CHUNK_BYTES - 1) / CHUNK_BYTES;
    if (count > Integer.MAX_VALUE) {
      throw new StorageException("file of " + size + " bytes is too large to checksum");
    }
    return (int) count;
  }

  private static long crc(FileChannel channel, int chunk, long size) {
    long start = (long) chunk * CHUNK_BYTES;
    try {
      MappedByteBuffer buffer = channel.map(FileChannel.MapMode.READ_ONLY, start, Math.min(CHUNK_BYTES, size - start));
      CRC32C crc = new CRC32C();
      crc.update(buffer);
      return crc.getValue();
    } catch (IOException e) {
      throw new UncheckedStorageIo(e);
    }
  }

  /** An IOException crossing a parallel stream. */
  private static final class UncheckedStorageIo extends RuntimeException {
    private static final long serialVersionUID = 1L;

    UncheckedStorageIo(IOException cause) {
      super(cause.getMessage(), cause);
    }
  }
}
