package org.spillway.storage;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.ReferenceManager;
import org.apache.arrow.vector.VectorSchemaRoot;

/**
 * Writes a new table: many threads may build batches concurrently and append them; nothing is visible
 * in the catalog until {@link #commit()}; closing without commit, or any failure, removes everything
 * written, so no half table remains.
 *
 * <p>Appended batches are staged plain: in memory while the batches staged there take at most the bytes that
 * {@link #STAGING_MEMORY_PROPERTY} allows (so that a table that fits is written once), beyond that as IPC files.
 * Commit then picks the text columns to dictionary-encode (at most {@value #DICTIONARY_MAX_ENTRIES} distinct
 * values, each used on average at least {@value #DICTIONARY_MIN_REUSE} times: below that the dictionary saves no
 * transfer bytes; or at most {@value #DICTIONARY_ALWAYS_ENTRIES}, as the names of a small dimension table: codes are
 * what GPU pipelines carry as join payloads and group keys, where plain text keeps a pipeline on the CPU), writes
 * the staged batches with table-wide sorted dictionaries, and publishes by renaming the temporary directory.
 *
 * <p>A batch staged in memory also gets its final file written when it is appended, with the dictionaries that the
 * batches appended so far suggest ({@link DictionaryGuess}): the commit, which starts only after the last batch, then
 * only renames the files whose guess was right, and the import's threads wrote them while other threads still
 * decoded. {@link #EARLY_FILES_PROPERTY}{@code =false} writes every file at the commit.
 */
public final class TableWriter implements AutoCloseable {
  static final int DICTIONARY_MAX_ENTRIES = 65536;
  static final int DICTIONARY_MIN_REUSE = 4;
  static final int DICTIONARY_ALWAYS_ENTRIES = 256;
  private static final String STAGING = "staging";
  /** The files written early ({@link DictionaryGuess}), by position, until the commit renames them. */
  private static final String EARLY = "early";
  /** System property: whether batches staged in memory get their final files written when appended (default true). */
  public static final String EARLY_FILES_PROPERTY = "spillway.writer.earlyFiles";
  /**
   * System property: the bytes of staged batches a writer keeps in memory, beyond which it stages them in files;
   * by default a quarter of the machine's memory or half the JVM's maximum heap, whichever is less (a table the
   * engine queries is held in memory anyway).
   */
  public static final String STAGING_MEMORY_PROPERTY = "spillway.writer.stagingMemory";
  /** Lock file in the temporary directory: while it is locked, {@link Catalog#open} leaves the directory alone. */
  static final String LOCK = ".writer.lock";

  private enum State { OPEN, COMMITTED, FAILED, CLOSED }

  private final Catalog catalog;
  private final String name;
  private final TableSchema schema;
  private final Path tempDirectory;
  private final Path stagingDirectory;
  private final Path earlyDirectory;
  private final BufferAllocator allocator;
  /** The batches' memory until the commit writes them. */
  private final StagingMemory stagingMemory;
  private final OwnerLock lock;
  private final Set<BatchBuilder> openBatches = ConcurrentHashMap.newKeySet();
  /** Staged batch per position; load order is ascending position. */
  private final ConcurrentSkipListMap<Long, Staged> staged = new ConcurrentSkipListMap<>();
  /** Bytes of the batches staged in memory, and the most there may be. */
  private final AtomicLong stagedInMemory = new AtomicLong();
  private volatile long stagingMemoryLimit = defaultStagingMemory();
  private final AtomicLong nextPosition = new AtomicLong();
  private final List<ColumnStatisticsCollector> statistics = new ArrayList<>();
  /** The dictionaries the batches merged so far suggest; guarded by {@link #statistics}. */
  private final DictionaryGuess guess;
  private volatile boolean writeEarly = Boolean.parseBoolean(System.getProperty(EARLY_FILES_PROPERTY, "true"));
  /** Files written early that the commit kept, for tests. */
  private final AtomicLong earlyFilesKept = new AtomicLong();
  private long rowCount;
  private volatile State state = State.OPEN;

  TableWriter(Catalog catalog, String name, TableSchema schema, Path tempDirectory, BufferAllocator allocator) {
    this.catalog = catalog;
    this.name = name;
    this.schema = schema;
    this.tempDirectory = tempDirectory;
    this.stagingDirectory = tempDirectory.resolve(STAGING);
    this.earlyDirectory = tempDirectory.resolve(EARLY);
    this.guess = new DictionaryGuess(schema);
    this.allocator = allocator;
    this.stagingMemory = StagingMemory.forWriter(allocator);
    for (ColumnDef column : schema.columns()) {
      statistics.add(new ColumnStatisticsCollector(column, DICTIONARY_MAX_ENTRIES));
    }
    try {
      Files.createDirectories(stagingDirectory);
      Files.createDirectories(earlyDirectory);
      lock = OwnerLock.acquire(tempDirectory.resolve(LOCK));
    } catch (IOException | RuntimeException e) {
      StorageException failure = new StorageException("cannot create " + stagingDirectory + " for table " + name
          + ": " + IoErrors.reason(e), e);
      Cleanup.runAll(failure, stagingMemory::close, allocator::close, () -> deleteRecursively(tempDirectory));
      throw failure;
    }
  }

  public String tableName() {
    return name;
  }

  public TableSchema schema() {
    return schema;
  }

  /** A new empty batch of up to {@code capacity} rows; append it, or close it to discard it. */
  public BatchBuilder newBatch(int capacity) {
    checkState(State.OPEN, "newBatch");
    BatchBuilder batch = new BatchBuilder(name, schema, stagingMemory.allocator(), capacity, openBatches::remove);
    openBatches.add(batch);
    return batch;
  }

  /** Appends a batch after all batches appended so far by this method; thread-safe. */
  public void append(BatchBuilder batch) {
    appendAt(nextPosition.getAndIncrement(), batch);
  }

  /**
   * Appends a batch at an explicit position: the table lists batches in ascending position whatever the
   * order in which threads append them, which keeps parallel writers deterministic. Positions must be
   * unique and should not be mixed with {@link #append(BatchBuilder)}.
   */
  public void appendAt(long position, BatchBuilder batch) {
    checkState(State.OPEN, "append");
    if (!openBatches.contains(batch)) {
      throw new StorageException("batch was not created by this writer of table " + name + " or was already appended");
    }
    Object[] declaredDistinct = new Object[schema.size()];
    char[][] declaredRows = new char[schema.size()][];
    int[] unwrittenTextRows = new int[schema.size()];
    for (int col = 0; col < schema.size(); col++) {
      declaredDistinct[col] = batch.declaredDistinct(col);
      declaredRows[col] = batch.declaredRows(col);
      unwrittenTextRows[col] = batch.unwrittenTextRows(col);
    }
    DictionaryEncoder.Declared declared =
        new DictionaryEncoder.Declared(declaredDistinct, declaredRows, unwrittenTextRows);
    VectorSchemaRoot root = batch.detach();
    openBatches.remove(batch);
    boolean kept = false;
    try {
      if (root.getRowCount() == 0) {
        return;
      }
      Path file = stagingDirectory.resolve(position + ".arrow");
      long bytes = bufferBytes(root);
      boolean inMemory = stagedInMemory.addAndGet(bytes) <= stagingMemoryLimit;
      if (!inMemory) {
        stagedInMemory.addAndGet(-bytes);
      }
      Staged entry = inMemory ? new Staged(null, root, declared, null) : new Staged(file, null, null, null);
      if (staged.putIfAbsent(position, entry) != null) {
        if (inMemory) {
          stagedInMemory.addAndGet(-bytes);
        }
        throw new StorageException("batch position " + position + " of table " + name + " was already appended");
      }
      kept = inMemory;
      boolean[] trackDistinct = new boolean[schema.size()];
      synchronized (statistics) {
        for (int col = 0; col < schema.size(); col++) {
          // once the table has too many distinct values for a dictionary, its batches need not count theirs
          trackDistinct[col] = statistics.get(col).tracksDistinct();
        }
      }
      List<ColumnStatisticsCollector> local = new ArrayList<>(schema.size());
      for (int col = 0; col < schema.size(); col++) {
        ColumnStatisticsCollector collector = new ColumnStatisticsCollector(schema.column(col), DICTIONARY_MAX_ENTRIES,
            trackDistinct[col]);
        collector.observe(root.getVector(col), root.getRowCount(), declaredDistinct[col]);
        local.add(collector);
      }
      if (!inMemory) {
        declared.writeText(root, col -> true);  // a staged file holds every column's bytes
        ArrowFiles.write(file, root);
      }
      DictionaryChoice early;
      synchronized (statistics) {
        for (int col = 0; col < schema.size(); col++) {
          statistics.get(col).merge(local.get(col), position);
        }
        rowCount += root.getRowCount();
        early = guess.afterMerge(statistics, rowCount);
      }
      if (inMemory && early != null && writeEarly) {
        Path earlyFile = earlyDirectory.resolve(position + ".arrow");
        FileChecksum checksum = early.write(root, declared, earlyFile, stagingMemory.allocator());
        // a declared text column guessed plain now holds its text, which the staging budget must count
        stagedInMemory.addAndGet(Math.max(0, bufferBytes(root) - bytes));
        staged.replace(position, entry, new Staged(null, root, declared, new EarlyFile(earlyFile, early, checksum)));
      }
    } catch (RuntimeException e) {
      state = State.FAILED;
      throw e;
    } finally {
      if (!kept) {
        root.close();
      }
    }
  }

  /**
   * A staged batch: in a file, or in memory with what its source declared of its values (which the commit's
   * dictionary codes use; a batch staged in a file is encoded from its bytes alone) and its final file if written
   * early (or null).
   */
  private record Staged(Path file, VectorSchemaRoot batch, DictionaryEncoder.Declared declared, EarlyFile early) {}

  /** A batch's final file written with the dictionaries {@code choice} before the commit, and its checksum. */
  private record EarlyFile(Path file, DictionaryChoice choice, FileChecksum checksum) {}

  /**
   * The memory a batch holds: its allocations as made (rounded up, grown), not only the bytes its rows use; a
   * vector's buffers may be slices of one allocation, which counts once.
   */
  private static long bufferBytes(VectorSchemaRoot root) {
    Set<ReferenceManager> allocations = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
    long bytes = 0;
    for (var vector : root.getFieldVectors()) {
      for (var buffer : vector.getBuffers(false)) {
        if (allocations.add(buffer.getReferenceManager())) {
          bytes += buffer.getReferenceManager().getAccountedSize();
        }
      }
    }
    return bytes;
  }

  static long defaultStagingMemory() {
    String configured = System.getProperty(STAGING_MEMORY_PROPERTY);
    if (configured != null) {
      try {
        return Long.parseLong(configured.trim());
      } catch (NumberFormatException e) {
        throw new StorageException(STAGING_MEMORY_PROPERTY + " must be a number of bytes, not '" + configured + "'");
      }
    }
    // Arrow's default memory counts against the JVM's direct memory limit, which is the heap's size unless set
    long directHalf = Runtime.getRuntime().maxMemory() / 2;
    var os = java.lang.management.ManagementFactory.getOperatingSystemMXBean();
    return os instanceof com.sun.management.OperatingSystemMXBean memory
        ? Math.min(memory.getTotalMemorySize() / 4, directHalf) : 0;
  }

  /** Whether batches appended from now on get their final files written early (see {@link DictionaryGuess}). */
  void writeFilesEarly(boolean early) {
    writeEarly = early;
  }

  /** The bytes of the batches staged in memory so far, as counted against the staging limit. */
  long stagedInMemoryBytes() {
    return stagedInMemory.get();
  }

  /** How many files written early the commit kept (0 before it). */
  long earlyFilesKept() {
    return earlyFilesKept.get();
  }

  /** Keeps at most {@code bytes} of staged batches in memory from now on (0: stage every batch in a file). */
  void stageInMemoryUpTo(long bytes) {
    stagingMemoryLimit = bytes;
  }

  /** Rows appended so far. */
  public long rowCount() {
    synchronized (statistics) {
      return rowCount;
    }
  }

  /**
   * Encodes, saves statistics and atomically publishes the table in the catalog. Every batch from
   * {@link #newBatch} must have been appended or closed.
   */
  public StoredTable commit() {
    checkState(State.OPEN, "commit");
    if (!openBatches.isEmpty()) {
      throw new StorageException("commit of table " + name + ": " + openBatches.size()
          + " batch(es) from newBatch() were neither appended nor closed");
    }
    try {
      DictionaryChoice choice = DictionaryChoice.of(schema, statistics, rowCount);
      List<FileChecksum> files = writeFinalFiles(choice);
      deleteRecursively(stagingDirectory);
      deleteRecursively(earlyDirectory);
      List<ColumnStatistics> columns = new ArrayList<>();
      List<Boolean> encoded = new ArrayList<>();
      for (int col = 0; col < schema.size(); col++) {
        columns.add(statistics.get(col).toStatistics());
        encoded.add(choice.encoded(col));
      }
      TableMetadata metadata = new TableMetadata(name, schema, new TableStatistics(rowCount, columns), encoded, files);
      metadata.write(tempDirectory);
      StoredTable table = catalog.publish(tempDirectory, metadata);
      state = State.COMMITTED;
      Cleanup.runAll(null, stagingMemory::close, allocator::close);
      lock.release(table.directory().resolve(LOCK));  // moved with the directory; a leftover would be harmless
      return table;
    } catch (RuntimeException e) {
      state = State.FAILED;
      Cleanup.runAll(e, this::close);
      throw e;
    }
  }

  /** Writes (or renames) the table's files and their checksums, in load order; releases the batches in memory. */
  private List<FileChecksum> writeFinalFiles(DictionaryChoice choice) {
    List<Map.Entry<Long, Staged>> inputs = new ArrayList<>(staged.entrySet());
    List<String> names = new ArrayList<>(inputs.size());
    for (int i = 0; i < inputs.size(); i++) {
      names.add(String.format("part-%06d.arrow", i));
    }
    // each guess compared once, not once per file: a large dictionary's values are many strings to compare
    Map<DictionaryChoice, Boolean> guessedRight = new IdentityHashMap<>();
    for (Map.Entry<Long, Staged> input : inputs) {
      EarlyFile early = input.getValue().early();
      if (early != null) {
        guessedRight.computeIfAbsent(early.choice(), choice::equals);
      }
    }
    // files are independent, so the rewrite runs on all cores; a failure returns once no rewrite still writes files
    // into the directory that the cleanup deletes
    return ParallelWork.mapAll(inputs.size(), i -> {
      Staged source = inputs.get(i).getValue();
      Path target = tempDirectory.resolve(names.get(i));
      // a file written here is checksummed as it is written; a staged file moved into place is read back
      if (source.batch() == null) {
        return choice.rewrite(source.file(), target, allocator);
      }
      try (VectorSchemaRoot batch = source.batch()) {
        staged.remove(inputs.get(i).getKey());
        EarlyFile early = source.early();
        if (early != null && guessedRight.get(early.choice())) {
          return keepEarly(early, target);
        }
        if (early != null) {
          deleteIfExists(early.file());  // now, by the thread that made it, rather than by the cleanup after all files
        }
        return choice.write(batch, source.declared(), target, stagingMemory.allocator());
      }
    });
  }

  /** Renames a file written early to its name in the table; a file already there fails it, as a write would. */
  private FileChecksum keepEarly(EarlyFile early, Path target) {
    try {
      Files.move(early.file(), target);  // without ATOMIC_MOVE: fails on an existing target instead of replacing it
    } catch (IOException e) {
      throw new StorageException("cannot write Arrow file " + target + ": " + IoErrors.reason(e), e);
    }
    earlyFilesKept.incrementAndGet();
    FileChecksum written = early.checksum();
    return new FileChecksum(target.getFileName().toString(), written.bytes(), written.chunkCrcs());
  }

  /** Discards everything unless committed: open batches, staged and written files, the temporary directory. */
  @Override
  public void close() {
    if (state == State.COMMITTED || state == State.CLOSED) {
      return;
    }
    state = State.CLOSED;
    // each step runs whatever the others did, so that one failure leaves no more behind than it must
    Cleanup.runAll(null, () -> List.copyOf(openBatches).forEach(BatchBuilder::close), this::releaseStagedBatches,
        lock::close, () -> deleteRecursively(tempDirectory), stagingMemory::close, allocator::close,
        () -> catalog.abandon(name));
  }

  private void releaseStagedBatches() {
    for (Long position : List.copyOf(staged.keySet())) {
      Staged batch = staged.remove(position);
      if (batch != null && batch.batch() != null) {
        batch.batch().close();
      }
    }
  }

  private void checkState(State expected, String operation) {
    if (state != expected) {
      throw new StorageException(operation + " on writer of table " + name + " that is " + state.name().toLowerCase()
          + (state == State.FAILED ? " after an earlier error" : ""));
    }
  }

  /** Moves a staged file into its place in the table. */
  static void moveNew(Path source, Path target) {
    try {
      Files.move(source, target, StandardCopyOption.ATOMIC_MOVE);
    } catch (IOException e) {
      throw new StorageException("cannot move " + source + " to " + target + ": " + e.getMessage(), e);
    }
  }

  private static void deleteIfExists(Path file) {
    try {
      Files.deleteIfExists(file);
    } catch (IOException e) {
      throw new StorageException("cannot delete " + file + ": " + IoErrors.reason(e), e);
    }
  }

  static void deleteRecursively(Path directory) {
    if (!Files.exists(directory)) {
      return;
    }
    try (var paths = Files.walk(directory)) {
      for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(path);  // another process cleaning the same scratch may be faster
      }
    } catch (NoSuchFileException e) {
      // deleted meanwhile by another process
    } catch (IOException | UncheckedIOException e) {
      throw new StorageException("cannot delete " + directory + ": " + IoErrors.reason(e), e);
    }
  }
}
