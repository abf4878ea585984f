package org.spillway.adapter;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.spillway.storage.Catalog;
import org.spillway.storage.StorageException;
import org.spillway.storage.StoredTable;
import org.spillway.storage.imports.ImportFormat;
import org.spillway.storage.imports.ImportOptions;
import org.spillway.storage.imports.TableImport;

/**
 * The files that SQL reads with {@code read_parquet}, {@code read_arrow} and {@code read_csv}: each is imported once
 * per process into a table of a temporary catalog (statistics and dictionaries as for any table, so that the
 * planner and the engine treat it as one), and imported again when the file changes (size or modification time).
 * The temporary catalog is deleted when the process exits.
 */
final class SpillwayFileTables {
  private static final Map<Key, StoredTable> TABLES = new HashMap<>();
  private static Catalog catalog;
  private static int counter;

  /** What identifies a version of a file. */
  private record Key(Path file, ImportFormat format, long size, long modified) {}

  /** Mentions of the file-reading table functions, however spelled; a false match only costs a cached plan. */
  private static final Pattern CALL = Pattern.compile("read_(parquet|arrow|csv)", Pattern.CASE_INSENSITIVE);

  private SpillwayFileTables() {}

  /**
   * Whether a statement may read a file through a table function: its plan must not be cached, since the file's
   * contents are checked only when the statement is planned.
   */
  static boolean mayRead(String sql) {
    return CALL.matcher(sql).find();
  }

  /** The catalog the file tables live in. */
  static synchronized Catalog catalog() {
    if (catalog == null) {
      try {
        Path dir = Files.createTempDirectory("spillway-files-");
        catalog = Catalog.create(dir);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
          catalog.close();
          deleteQuietly(dir);
        }, "spillway-file-tables-cleanup"));
      } catch (IOException e) {
        throw new StorageException("cannot create a temporary directory for the files SQL reads: " + e.getMessage(),
            e);
      }
    }
    return catalog;
  }

  /** The table holding the file's current contents; imports it on first use or when it changed. */
  static synchronized StoredTable table(Path file, ImportFormat format) {
    Path absolute = file.toAbsolutePath().normalize();
    BasicFileAttributes attributes;
    try {
      attributes = Files.readAttributes(absolute, BasicFileAttributes.class);
    } catch (IOException e) {
      throw new StorageException(absolute + " does not exist or cannot be read: " + e.getMessage(), e);
    }
    Key key = new Key(absolute, format, attributes.size(), attributes.lastModifiedTime().toMillis());
    StoredTable table = TABLES.get(key);
    if (table == null) {
      String name = "file_" + counter++;
      table = TableImport.run(catalog(), name, List.of(absolute), ImportOptions.defaults().withFormat(format))
          .table();
      TABLES.put(key, table);
    }
    return table;
  }

  private static void deleteQuietly(Path dir) {
    try (var paths = Files.walk(dir)) {
      paths.sorted(java.util.Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
    } catch (IOException | RuntimeException e) {
      // the operating system's temporary directory is cleaned eventually
    }
  }
}
