package org.spillway.storage;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.apache.arrow.memory.BufferAllocator;

/**
 * The tables of one data directory: each table is a sub-directory holding Arrow IPC files and a JSON
 * sidecar. Table names are lower-case identifiers; lookups are case-insensitive. Thread-safe.
 *
 * <p>A table whose sidecar cannot be read is broken: it is listed, using it fails with the reason, and every
 * other table still serves. Opening also deletes the scratch directories that killed writers and drops left
 * behind (those whose writer lock no live process holds).
 *
 * <p>Each table keeps the definitions of its indexes ({@link IndexDefinition}) in its directory, so that they go
 * with it; index names are unique in the catalog and, as table names, lower-case and case-insensitive.
 */
public final class Catalog implements AutoCloseable {
  /** The names of tables and of indexes. */
  private static final Pattern NAME = Pattern.compile("[a-z_][a-z0-9_]{0,127}");
  /** Prefix of directories that are not (yet, or no longer) tables: writers' and drops' scratch space. */
  private static final String SCRATCH_PREFIX = ".";
  /** Scratch directories: a writer's temporary table, or a dropped table being deleted. */
  private static final Pattern SCRATCH = Pattern.compile("\\.[a-z_][a-z0-9_]*\\.(tmp|drop)-[0-9a-f-]{36}");
  private static final System.Logger LOG = System.getLogger(Catalog.class.getName());

  private final Path directory;
  private final BufferAllocator allocator;
  private final Map<String, StoredTable> tables = new ConcurrentHashMap<>();
  /** Tables whose sidecar could not be read, with the error that says why. */
  private final Map<String, StorageException> broken = new ConcurrentHashMap<>();
  /** Writers not yet committed or closed, by table name; guarded by this. */
  private final Map<String, TableWriter> writers = new HashMap<>();
  /** The index definitions of each committed, readable table (an empty list for none); replaced, never changed. */
  private final Map<String, List<IndexDefinition>> indexes = new ConcurrentHashMap<>();
  /** Told of each index that goes away, so that whoever built it from its definition frees what it built. */
  private final List<Consumer<IndexDefinition>> indexGoneListeners = new CopyOnWriteArrayList<>();
  /** Tables another process dropped while this one had them loaded: freed at close, as statements may read them. */
  private final List<StoredTable> retired = new ArrayList<>();
  /** Counts changes to the set of tables, so that schemas over the catalog know when to list them again. */
  private final AtomicLong version = new AtomicLong();
  private volatile boolean closed;

  private Catalog(Path directory) {
    this.directory = directory;
    this.allocator = StorageAllocator.newChild("catalog:" + directory);
  }

  /** Opens an existing data directory, reading the metadata of every table (not their data). */
  public static Catalog open(Path dataDir) {
    Path directory = dataDir.toAbsolutePath().normalize();
    if (!Files.exists(directory)) {
      throw new StorageException("data directory " + directory + " does not exist");
    }
    if (!Files.isDirectory(directory)) {
      throw new StorageException("data directory " + directory + " is not a directory");
    }
    Catalog catalog = new Catalog(directory);
    try (Stream<Path> children = Files.list(directory)) {
      for (Path child : children.sorted().toList()) {
        String name = child.getFileName().toString();
        if (SCRATCH.matcher(name).matches()) {
          deleteAbandonedScratch(child);
        } else if (!name.startsWith(SCRATCH_PREFIX) && Files.exists(child.resolve(TableMetadata.FILE_NAME))) {
          catalog.register(name, child);
        }
      }
    } catch (IOException | RuntimeException e) {
      StorageException failure = e instanceof StorageException se ? se
          : new StorageException("cannot list data directory " + directory + ": " + e.getMessage(), e);
      Cleanup.runAll(failure, catalog::close);
      throw failure;
    }
    return catalog;
  }

  /** Creates the data directory (and parents) if needed, then opens it. */
  public static Catalog create(Path dataDir) {
    try {
      Files.createDirectories(dataDir);
    } catch (IOException e) {
      throw new StorageException("cannot create data directory " + dataDir.toAbsolutePath() + ": " + e.getMessage(), e);
    }
    return open(dataDir);
  }

  public Path directory() {
    return directory;
  }

  private void register(String name, Path tableDirectory) {
    try {
      TableMetadata metadata = TableMetadata.read(tableDirectory);
      if (!metadata.name().equals(name)) {
        throw new StorageException(tableDirectory.resolve(TableMetadata.FILE_NAME) + ": names table '"
            + metadata.name() + "', its directory '" + name + "'");
      }
      List<IndexDefinition> tableIndexes = TableIndexes.read(tableDirectory, name);
      tables.put(name, new StoredTable(tableDirectory, metadata, allocator));
      indexes.put(name, tableIndexes);
    } catch (StorageException e) {
      broken.put(name, new StorageException("table " + name + ": " + e.getMessage(), e));
    }
  }

  /** Deletes a scratch directory unless a live writer holds it; a failure is logged, not fatal. */
  private static void deleteAbandonedScratch(Path scratch) {
    if (OwnerLock.isHeld(scratch.resolve(TableWriter.LOCK))) {
      return;
    }
    try {
      TableWriter.deleteRecursively(scratch);
    } catch (StorageException e) {
      LOG.log(System.Logger.Level.WARNING, "cannot delete the scratch directory an interrupted write left: "
          + e.getMessage());
    }
  }

  /**
   * Registers the tables that other processes committed since this catalog looked, and forgets those they
   * dropped; a table appears only complete, as a writer publishes it by renaming its finished directory. Returns
   * whether the set of tables changed. The data of a table dropped elsewhere stays in memory until close, as
   * running statements may still read it.
   */
  public synchronized boolean refresh() {
    checkOpen();
    List<String> names = new ArrayList<>();
    try (Stream<Path> children = Files.list(directory)) {
      for (Path child : children.toList()) {
        String name = child.getFileName().toString();
        if (!name.startsWith(SCRATCH_PREFIX) && Files.exists(child.resolve(TableMetadata.FILE_NAME))) {
          names.add(name);
        }
      }
    } catch (IOException e) {
      throw new StorageException("cannot list data directory " + directory + ": " + e.getMessage(), e);
    }
    boolean changed = false;
    for (String name : names) {
      if (!tables.containsKey(name) && !broken.containsKey(name) && !writers.containsKey(name)) {
        register(name, directory.resolve(name));
        changed = true;
      }
    }
    for (String name : tableNames()) {
      if (!names.contains(name)) {
        StoredTable gone = tables.remove(name);
        broken.remove(name);
        indexesGone(indexes.getOrDefault(name, List.of()));  // freed once the statements using them are done
        indexes.remove(name);
        if (gone != null) {
          retired.add(gone);
        }
        changed = true;
      }
    }
    if (changed) {
      version.incrementAndGet();
    }
    return changed;
  }

  /** A number that changes whenever a table is created, dropped, or found by {@link #refresh}. */
  public long version() {
    return version.get();
  }

  /** Names of the committed tables, broken ones included, sorted, lower-case. */
  public List<String> tableNames() {
    return Stream.concat(tables.keySet().stream(), broken.keySet().stream()).sorted().toList();
  }

  /**
   * The committed table with this name (case-insensitive); its data loads on first use. A broken table
   * fails with the reason (table, file, why).
   */
  public Optional<StoredTable> table(String name) {
    checkOpen();
    String key = name.toLowerCase(Locale.ROOT);
    StorageException error = broken.get(key);
    if (error != null) {
      throw new StorageException(error.getMessage(), error);
    }
    return Optional.ofNullable(tables.get(key));
  }

  /** The broken tables and why each cannot be read, by name. */
  public Map<String, String> brokenTables() {
    Map<String, String> reasons = new TreeMap<>();
    broken.forEach((name, error) -> reasons.put(name, error.getMessage()));
    return reasons;
  }

  /** Starts writing a new table; fails if a table of that name exists or is being written. */
  public synchronized TableWriter createTable(String name, TableSchema schema) {
    checkOpen();
    String tableName = validName("table", name);
    if (tables.containsKey(tableName) || broken.containsKey(tableName) || writers.containsKey(tableName)) {
      throw new StorageException("table " + tableName + " already exists in " + directory);
    }
    Path temp = directory.resolve(SCRATCH_PREFIX + tableName + ".tmp-" + UUID.randomUUID());
    TableWriter writer = new TableWriter(this, tableName, schema, temp,
        allocator.newChildAllocator("writer:" + tableName, 0, Long.MAX_VALUE));
    writers.put(tableName, writer);
    return writer;
  }

  /**
   * Removes a table (a broken one too), its files and its loaded data; readers must no longer use it. Serialized
   * with {@link #refresh}, which would otherwise find the directory before the drop renames it.
   */
  public synchronized void dropTable(String name) {
    checkOpen();
    String tableName = name.toLowerCase(Locale.ROOT);
    StoredTable table = tables.remove(tableName);
    // its definitions live in its directory and go with it
    indexesGone(indexes.getOrDefault(tableName, List.of()));
    indexes.remove(tableName);
    if (table == null && broken.remove(tableName) == null) {
      throw new StorageException("table " + tableName + " does not exist in " + directory);
    }
    version.incrementAndGet();
    if (table != null) {
      table.close();
    }
    // rename first so that a crash mid-delete leaves scratch (deleted on the next open), never a damaged table
    Path trash = directory.resolve(SCRATCH_PREFIX + tableName + ".drop-" + UUID.randomUUID());
    try {
      Files.move(directory.resolve(tableName), trash, StandardCopyOption.ATOMIC_MOVE);
    } catch (IOException e) {
      throw new StorageException("cannot drop table " + tableName + ": " + e.getMessage(), e);
    }
    TableWriter.deleteRecursively(trash);
  }

  /** The indexes of a table in the order they were created; none for a table that does not exist. */
  public List<IndexDefinition> indexes(String table) {
    return indexes.getOrDefault(table.toLowerCase(Locale.ROOT), List.of());
  }

  /** The index with this name (case-insensitive), on whichever table. */
  public Optional<IndexDefinition> index(String name) {
    String key = name.toLowerCase(Locale.ROOT);
    return indexes.values().stream().flatMap(List::stream).filter(i -> i.name().equals(key)).findFirst();
  }

  /**
   * Records a new index once {@code build} accepted it: {@code build} gets the definition (names lower-case, the
   * column as the table spells it) and builds the index to prove the column's values suit its kind, throwing if
   * not; only then is the definition written, so that a failed or interrupted build leaves no index behind.
   * Fails if the name is taken or invalid, or the table or column does not exist. Index changes are serialized.
   */
  public synchronized IndexDefinition createIndex(IndexDefinition requested, Consumer<IndexDefinition> build) {
    checkOpen();
    String name = validName("index", requested.name());
    if (index(name).isPresent()) {
      throw new StorageException("index " + name + " already exists in " + directory);
    }
    String tableName = requested.table().toLowerCase(Locale.ROOT);
    StoredTable table = table(tableName).orElseThrow(() ->
        new StorageException("table " + tableName + " does not exist in " + directory));
    int column = table.schema().indexOf(requested.column());
    if (column < 0) {
      throw new StorageException("table " + tableName + " has no column " + requested.column() + "; its columns: "
          + table.schema().names());
    }
    IndexDefinition index = new IndexDefinition(name, tableName, table.schema().column(column).name(),
        requested.kind());
    build.accept(index);
    List<IndexDefinition> updated = new ArrayList<>(indexes(tableName));
    updated.add(index);
    TableIndexes.write(table.directory(), updated);
    indexes.put(tableName, List.copyOf(updated));
    return index;
  }

  /** Removes an index's definition; false if there is none of that name and {@code ifExists}, else fails. */
  public synchronized boolean dropIndex(String name, boolean ifExists) {
    checkOpen();
    Optional<IndexDefinition> index = index(name);
    if (index.isEmpty()) {
      if (ifExists) {
        return false;
      }
      throw new StorageException("index " + name.toLowerCase(Locale.ROOT) + " does not exist in " + directory);
    }
    String tableName = index.get().table();
    StoredTable table = table(tableName).orElseThrow(() ->
        new StorageException("table " + tableName + " of index " + index.get().name() + " no longer exists"));
    List<IndexDefinition> updated = new ArrayList<>(indexes(tableName));
    updated.remove(index.get());
    TableIndexes.write(table.directory(), updated);
    indexes.put(tableName, List.copyOf(updated));
    indexesGone(List.of(index.get()));
    return true;
  }

  /**
   * Registers {@code listener} to be told of every index that goes away from now on: dropped, its table dropped, or
   * the catalog closed (then every index). What is built from a definition (the catalog keeps definitions only)
   * is freed there; a listener must not fail.
   */
  public void onIndexGone(Consumer<IndexDefinition> listener) {
    indexGoneListeners.add(listener);
  }

  private void indexesGone(List<IndexDefinition> gone) {
    for (IndexDefinition index : gone) {
      for (Consumer<IndexDefinition> listener : indexGoneListeners) {
        try {
          listener.accept(index);
        } catch (RuntimeException e) {
          LOG.log(System.Logger.Level.WARNING, "freeing index " + index.name() + " failed: " + e.getMessage(), e);
        }
      }
    }
  }

  /** Imports a CSV file as a new table; on any error no table is left behind. */
  public StoredTable importCsv(String tableName, Path csv, CsvOptions options) {
    return new CsvImporter(this, options).importFile(tableName, csv);
  }

  /** Discards writers that were not committed and frees every buffer of every loaded table. */
  @Override
  public void close() {
    List<TableWriter> unfinished;
    synchronized (this) {
      if (closed) {
        return;
      }
      closed = true;
      unfinished = List.copyOf(writers.values());
    }
    indexes.values().forEach(this::indexesGone);
    List<Runnable> steps = new ArrayList<>();
    unfinished.forEach(writer -> steps.add(writer::close));
    Stream.concat(tables.values().stream(), retired.stream()).forEach(table -> steps.add(table::close));
    steps.add(tables::clear);
    steps.add(allocator::close);
    Cleanup.runAll(null, steps);
  }

  /** Bytes of Arrow memory held by loaded tables and open writers of this catalog. */
  public long allocatedBytes() {
    return allocator.getAllocatedMemory();
  }

  /** Renames a writer's finished directory to the table's and registers the table. */
  synchronized StoredTable publish(Path tempDirectory, TableMetadata metadata) {
    String name = metadata.name();
    Path target = directory.resolve(name);
    try {
      Files.move(tempDirectory, target, StandardCopyOption.ATOMIC_MOVE);
    } catch (IOException e) {
      throw new StorageException("cannot publish table " + name + " as " + target + ": " + e.getMessage(), e);
    }
    StoredTable table = new StoredTable(target, metadata, allocator);
    indexes.put(name, List.of());
    tables.put(name, table);
    writers.remove(name);
    version.incrementAndGet();
    return table;
  }

  /** Forgets a writer that ended without publishing. */
  synchronized void abandon(String name) {
    writers.remove(name);
  }

  private void checkOpen() {
    if (closed) {
      throw new StorageException("catalog " + directory + " is closed");
    }
  }

  /** {@code name} in lower case, if valid as the name of a table or an index ({@code what}). */
  private static String validName(String what, String name) {
    String lower = name == null ? "" : name.toLowerCase(Locale.ROOT);
    if (!NAME.matcher(lower).matches()) {
      throw new StorageException("invalid " + what + " name '" + name
          + "': use letters, digits and _ (not first a digit)");
    }
    return lower;
  }
}
