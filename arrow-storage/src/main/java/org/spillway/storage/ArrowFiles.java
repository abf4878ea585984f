package org.spillway.storage;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.dictionary.DictionaryProvider;
import org.apache.arrow.vector.ipc.ArrowFileReader;
import org.apache.arrow.vector.ipc.ArrowFileWriter;
import org.apache.arrow.vector.ipc.message.ArrowBlock;

/** Writing and reading single Arrow IPC files, with errors that name the file. */
final class ArrowFiles {
  private ArrowFiles() {
  }

  /**
   * Writes one batch to a new IPC file; dictionaries of encoded columns come from the provider. Returns the file's
   * checksum, measured as it was written.
   */
  static FileChecksum write(Path file, VectorSchemaRoot batch, DictionaryProvider dictionaries) {
    try (ChecksummingChannel channel = new ChecksummingChannel(
            FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE));
        ArrowFileWriter writer = new ArrowFileWriter(batch, dictionaries, channel)) {
      writer.start();
      writer.writeBatch();
      writer.end();
      return channel.checksum(file.getFileName().toString());
    } catch (IOException | RuntimeException e) {
      throw new StorageException("cannot write Arrow file " + file + ": " + e.getMessage(), e);
    }
  }

  static FileChecksum write(Path file, VectorSchemaRoot batch) {
    return write(file, batch, new DictionaryProvider.MapDictionaryProvider());
  }

  /** Moves the buffers of a reader's reused root into a new root owned by the caller (no copy). */
  static VectorSchemaRoot takeBatch(VectorSchemaRoot readerRoot, BufferAllocator allocator) {
    List<FieldVector> owned = new ArrayList<>(readerRoot.getFieldVectors().size());
    for (FieldVector vector : readerRoot.getFieldVectors()) {
      var transfer = vector.getTransferPair(allocator);
      transfer.transfer();
      owned.add((FieldVector) transfer.getTo());
    }
    return new VectorSchemaRoot(readerRoot.getSchema().getFields(), owned, readerRoot.getRowCount());
  }

  /** Reads every batch of a plain (dictionary-free) IPC file into roots the caller owns. */
  static List<VectorSchemaRoot> readPlain(Path file, BufferAllocator allocator) {
    List<VectorSchemaRoot> batches = new ArrayList<>();
    try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ);
        ArrowFileReader reader = new ArrowFileReader(channel, allocator)) {
      VectorSchemaRoot root = reader.getVectorSchemaRoot();
      for (ArrowBlock block : reader.getRecordBlocks()) {
        reader.loadRecordBatch(block);
        batches.add(takeBatch(root, allocator));
      }
      return batches;
    } catch (IOException | RuntimeException e) {
      batches.forEach(VectorSchemaRoot::close);
      throw new StorageException("cannot read Arrow file " + file + ": " + e.getMessage(), e);
    }
  }
}
