package org.spillway.adapter;

import org.spillway.storage.Catalog;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Process-wide registry of open catalogs, one per data directory, so that every connection to the same
 * directory shares one copy of the tables in memory (the data is the expensive part, not the connection).
 */
public final class CatalogRegistry {
  private static final Map<Path, Catalog> CATALOGS = new ConcurrentHashMap<>();

  private CatalogRegistry() {}

  /** The shared catalog of a data directory, opened on first use; fails if the directory is missing. */
  public static Catalog open(Path dataDir) {
    Path key = canonical(dataDir);
    return CATALOGS.computeIfAbsent(key, Catalog::open);
  }

  /** Closes and forgets the catalog of a directory (its memory is released), if one is open. */
  public static void close(Path dataDir) {
    Catalog catalog = CATALOGS.remove(canonical(dataDir));
    if (catalog != null) {
      catalog.close();
    }
  }

  /** Closes every open catalog. */
  public static void closeAll() {
    for (Path dir : CATALOGS.keySet()) {
      close(dir);
    }
  }

  private static Path canonical(Path dir) {
    Path absolute = dir.toAbsolutePath().normalize();
    try {
      return absolute.toRealPath();
    } catch (IOException e) {
      return absolute;  // missing: Catalog.open reports it with the path the user gave
    }
  }
}
