package org.spillway.storage;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.stream.IntStream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.dictionary.Dictionary;
import org.apache.arrow.vector.ipc.ArrowFileReader;
import org.apache.arrow.vector.ipc.message.ArrowBlock;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.util.AutoCloseables;

/**
 * A committed table: schema and statistics are known from its sidecar; its Arrow batches are loaded from
 * the IPC files on first use, once, into memory of its own child allocator. Safe for concurrent readers.
 */
public final class StoredTable {
  private static final System.Logger LOG = System.getLogger(StoredTable.class.getName());
  private final Path directory;
  private final TableMetadata metadata;
  private final BufferAllocator parentAllocator;
  private final KeyColumns keys = new KeyColumns(this);
  private volatile Loaded loaded;
  private boolean closed;

  /** The batches and per-column dictionaries (null entries for plain columns) once loaded. */
  private record Loaded(BufferAllocator allocator, List<VectorSchemaRoot> batches, List<List<String>> dictionaries) {
  }

  StoredTable(Path directory, TableMetadata metadata, BufferAllocator parentAllocator) {
    this.directory = directory;
    this.metadata = metadata;
    this.parentAllocator = parentAllocator;
  }

  public String name() {
    return metadata.name();
  }

  public TableSchema schema() {
    return metadata.schema();
  }

  public long rowCount() {
    return metadata.statistics().rowCount();
  }

  public TableStatistics statistics() {
    return metadata.statistics();
  }

  /** The directory holding the table's IPC files. */
  public Path directory() {
    return directory;
  }

  /** Whether this text column is stored as Int32 codes into a sorted dictionary. */
  public boolean isDictionaryEncoded(int column) {
    return metadata.dictionaryEncoded().get(column);
  }

  /**
   * Whether a column is a key: no NULL and no value twice, checked exactly over its values once (the table
   * loads if it has not); only integral columns qualify.
   */
  public boolean isKey(int column) {
    return keys.isKey(column);
  }

  /** Whether two columns are a key together (either one alone, or no pair of their values twice), as above. */
  public boolean isKey(int first, int second) {
    return keys.isKey(first, second);
  }

  /** The loaded Arrow batches, in file order; for read-only use (the table owns the buffers). */
  public List<VectorSchemaRoot> batches() {
    return load().batches();
  }

  /** The sorted dictionary of a dictionary-encoded text column; the same for every batch. */
  public Optional<List<String>> dictionary(int column) {
    return Optional.ofNullable(load().dictionaries().get(column));
  }

  /** A reader of one column of one loaded batch. */
  public ColumnReader reader(int batch, int column) {
    Loaded data = load();
    if (batch < 0 || batch >= data.batches().size()) {
      throw new StorageException("batch " + batch + " is outside 0.." + (data.batches().size() - 1) + " of table " + name());
    }
    if (column < 0 || column >= schema().size()) {
      throw new StorageException("column " + column + " is outside 0.." + (schema().size() - 1) + " of table " + name());
    }
    return VectorColumnReaders.of(schema().column(column), data.batches().get(batch).getVector(column),
        data.dictionaries().get(column));
  }

  /** Bytes of Arrow memory the loaded batches hold (0 before loading). */
  public long allocatedBytes() {
    Loaded data = loaded;
    return data == null ? 0 : data.allocator().getAllocatedMemory();
  }

  private Loaded load() {
    Loaded data = loaded;
    if (data != null) {
      return data;
    }
    synchronized (this) {
      if (closed) {
        throw new StorageException("table " + name() + " was dropped or its catalog closed");
      }
      if (loaded == null) {
        loaded = readFiles();
      }
      return loaded;
    }
  }

  private Loaded readFiles() {
    BufferAllocator allocator = parentAllocator.newChildAllocator("table:" + name(), 0, Long.MAX_VALUE);
    List<VectorSchemaRoot> batches = new ArrayList<>();
    List<List<String>> dictionaries = new ArrayList<>(Collections.nCopies(schema().size(), null));
    try {
      verifyFiles();
      for (String fileName : metadata.files()) {
        Path file = directory.resolve(fileName);
        try {
          readFile(file, allocator, batches, dictionaries);
        } catch (IOException | RuntimeException e) {
          if (e instanceof StorageException se) {
            throw se;
          }
          throw new StorageException("table " + name() + ": file " + file + ": " + IoErrors.reason(e), e);
        }
      }
      for (int col = 0; col < schema().size(); col++) {
        if (isDictionaryEncoded(col) && dictionaries.get(col) == null) {
          // a table with no batches has no dictionaries to read
          dictionaries.set(col, List.of());
        }
      }
      return new Loaded(allocator, Collections.unmodifiableList(batches), Collections.unmodifiableList(dictionaries));
    } catch (RuntimeException | Error e) {
      // an Error too (the heap running out while a file's dictionary is decoded): the batches read so far are freed
      try {
        closeQuietly(batches, allocator);
      } catch (RuntimeException cleanup) {
        e.addSuppressed(cleanup);  // the load's own error is the one to report, not the leak it left behind
      }
      if (e instanceof Error error) {
        throw error;
      }
      if (e instanceof StorageException se) {
        throw se;
      }
      throw new StorageException("cannot load table " + name() + " from " + directory + ": " + e.getMessage(), e);
    }
  }

  /** Checks every file against its checksum, all files and chunks at once on all cores. */
  private void verifyFiles() {
    if (!metadata.verifiable()) {
      LOG.log(System.Logger.Level.WARNING, "table " + name() + " in " + directory + " was written before checksums"
          + " (table.json format 1): its files load unverified; regenerate or re-import it to add them");
      return;
    }
    IntStream.range(0, metadata.files().size()).parallel()
        .forEach(i -> metadata.checksums().get(i).verify(directory.resolve(metadata.files().get(i)), name()));
  }

  private void readFile(Path file, BufferAllocator allocator, List<VectorSchemaRoot> batches,
      List<List<String>> dictionaries) throws IOException {
    try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ);
        ArrowFileReader reader = new ArrowFileReader(channel, allocator)) {
      VectorSchemaRoot root = reader.getVectorSchemaRoot();
      checkSchema(file, root.getSchema().getFields());
      for (ArrowBlock block : reader.getRecordBlocks()) {
        reader.loadRecordBatch(block);
        checkNotNull(file, root);
        batches.add(ArrowFiles.takeBatch(root, allocator));
      }
      for (int col = 0; col < schema().size(); col++) {
        Field field = root.getSchema().getFields().get(col);
        if (field.getDictionary() != null && dictionaries.get(col) == null) {
          Dictionary dictionary = reader.getDictionaryVectors().get(field.getDictionary().getId());
          dictionaries.set(col, readStrings((VarCharVector) dictionary.getVector()));
        }
      }
    }
  }

  private void checkSchema(Path file, List<Field> fields) {
    if (fields.size() != schema().size()) {
      throw new StorageException("table " + name() + ": file " + file + ": has " + fields.size() + " columns, the table "
          + schema().size());
    }
    for (int col = 0; col < fields.size(); col++) {
      ColumnDef stored = ArrowFieldMapping.columnOf(fields.get(col), file.toString());
      boolean encoded = fields.get(col).getDictionary() != null;
      if (!stored.equals(schema().column(col)) || encoded != isDictionaryEncoded(col)) {
        throw new StorageException("table " + name() + ": file " + file + ": column " + col + " is " + stored
            + (encoded ? " (dictionary)" : "") + " but the table declares " + schema().column(col));
      }
    }
  }

  /** A NOT NULL column holding a NULL is damage the checksums did not catch (or a table written without them). */
  private void checkNotNull(Path file, VectorSchemaRoot root) {
    for (int col = 0; col < schema().size(); col++) {
      int nulls = root.getVector(col).getNullCount();
      if (nulls > 0 && !schema().column(col).type().nullable()) {
        throw StorageException.corrupted("table " + name() + ": file " + file + ": column "
            + schema().column(col).name() + " is NOT NULL but holds " + nulls
            + " NULL(s): the file is damaged; restore or regenerate the table", null);
      }
    }
  }

  private static List<String> readStrings(VarCharVector vector) {
    List<String> values = new ArrayList<>(vector.getValueCount());
    for (int i = 0; i < vector.getValueCount(); i++) {
      values.add(new String(vector.get(i), StandardCharsets.UTF_8));
    }
    return Collections.unmodifiableList(values);
  }

  /** Frees the loaded batches; later access fails. */
  synchronized void close() {
    closed = true;
    Loaded data = loaded;
    loaded = null;
    if (data != null) {
      closeQuietly(data.batches(), data.allocator());
    }
  }

  private static void closeQuietly(List<VectorSchemaRoot> batches, BufferAllocator allocator) {
    try {
      AutoCloseables.close(batches);
    } catch (Exception e) {
      throw new StorageException("cannot release table batches: " + e.getMessage(), e);
    } finally {
      allocator.close();
    }
  }
}
