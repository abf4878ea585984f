package org.spillway.storage.imports;

import java.io.IOException;
import java.io.InputStream;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowFileReader;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.ipc.ArrowStreamReader;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.spillway.storage.BatchBuilder;
import org.spillway.storage.StorageAllocator;
import org.spillway.storage.StorageException;
import org.spillway.storage.TableSchema;

/**
 * An Arrow IPC file, in the file format (each record batch is a piece, read in parallel through the footer) or the
 * stream format (one piece, read in order).
 */
final class ArrowSource extends FileSource {
  private final boolean fileFormat;
  private final List<ArrowColumn> columns;
  private final int batches;

  private ArrowSource(Path file, boolean fileFormat, List<ArrowColumn> columns, int batches) {
    super(file, new TableSchema(columns.stream().map(ArrowColumn::column).toList()));
    this.fileFormat = fileFormat;
    this.columns = columns;
    this.batches = batches;
  }

  /** Reads the schema (and the footer of the file format); fails with the file and why. */
  static ArrowSource open(Path file, TimestampMode timestamps) {
    boolean fileFormat = ImportFormat.isArrowFileFormat(file);
    try (BufferAllocator allocator = StorageAllocator.newChild("import schema of " + file);
        Reader reader = Reader.open(file, fileFormat, allocator)) {
      Schema arrowSchema = reader.arrow.getVectorSchemaRoot().getSchema();
      List<ArrowColumn> columns = new ArrayList<>();
      for (Field field : arrowSchema.getFields()) {
        columns.add(ArrowColumn.of(field, timestamps));
      }
      int batches = fileFormat ? ((ArrowFileReader) reader.arrow).getRecordBlocks().size() : 1;
      return new ArrowSource(file, fileFormat, columns, batches);
    } catch (StorageException e) {
      throw new StorageException(file + ": " + e.getMessage(), e);
    } catch (IOException | RuntimeException e) {
      throw new StorageException(file + ": not a readable Arrow IPC file: " + e.getMessage(), e);
    }
  }

  @Override
  public int pieces() {
    return batches;
  }

  @Override
  public void read(int piece, BatchSink sink) {
    String where = fileFormat ? file() + ": record batch " + piece : file().toString();
    int batchNumber = 0;
    try (BufferAllocator allocator = StorageAllocator.newChild("import of " + file());
        Reader reader = Reader.open(file(), fileFormat, allocator)) {
      VectorSchemaRoot root = reader.arrow.getVectorSchemaRoot();
      boolean loaded = fileFormat
          ? ((ArrowFileReader) reader.arrow).loadRecordBatch(((ArrowFileReader) reader.arrow).getRecordBlocks()
              .get(piece))
          : reader.arrow.loadNextBatch();
      while (loaded && !sink.cancelled()) {
        if (!fileFormat) {
          where = file() + ": record batch " + batchNumber;
        }
        copyBatch(root, reader.arrow, sink, where);
        batchNumber++;
        loaded = !fileFormat && reader.arrow.loadNextBatch();
      }
    } catch (IOException | RuntimeException e) {
      if (e instanceof StorageException && e.getMessage().startsWith(file().toString())) {
        throw (StorageException) e;
      }
      throw new StorageException(where + ": " + e.getMessage(), e);
    }
  }

  private void copyBatch(VectorSchemaRoot root, ArrowReader reader, BatchSink sink, String where) {
    int total = root.getRowCount();
    for (int from = 0; from < total && !sink.cancelled(); from += BATCH_ROWS) {
      int rows = Math.min(BATCH_ROWS, total - from);
      BatchBuilder batch = sink.newBatch(rows);
      try {
        for (int col = 0; col < columns.size(); col++) {
          try {
            columns.get(col).copy(root.getVector(col), reader, batch, col, from, rows);
          } catch (RuntimeException e) {
            throw new StorageException(where + ": column " + columns.get(col).column().name() + ": "
                + e.getMessage(), e);
          }
        }
        batch.setRowCount(rows);
      } catch (RuntimeException e) {
        batch.close();
        throw e;
      }
      sink.append(batch);
    }
  }

  /** An Arrow reader with the channel or stream it reads. */
  private record Reader(ArrowReader arrow, AutoCloseable input) implements AutoCloseable {
    static Reader open(Path file, boolean fileFormat, BufferAllocator allocator) throws IOException {
      if (fileFormat) {
        FileChannel channel = FileChannel.open(file, StandardOpenOption.READ);
        return new Reader(new ArrowFileReader(channel, allocator), channel);
      }
      InputStream in = Files.newInputStream(file);
      return new Reader(new ArrowStreamReader(in, allocator), in);
    }

    @Override
    public void close() throws IOException {
      try {
        arrow.close();
      } finally {
        try {
          input.close();
        } catch (Exception e) {
          throw new IOException(e);
        }
      }
    }
  }
}
