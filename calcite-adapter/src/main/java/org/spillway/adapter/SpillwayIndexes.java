package org.spillway.adapter;

import java.util.Collections;
import java.util.Map;
import java.util.Optional;
import java.util.WeakHashMap;
import java.util.concurrent.ConcurrentHashMap;
import org.spillway.gpu.plan.TableIndex;
import org.spillway.storage.Catalog;
import org.spillway.storage.IndexDefinition;
import org.spillway.storage.StorageAllocator;
import org.spillway.storage.StoredTable;

/**
 * The indexes built from the definitions of one catalog, once per process and shared by its connections (as the
 * catalog's tables are). An index is built on first use by a query, not when the catalog opens: the catalog loads a
 * table's data on first use too, and an index of a table no query joins through would cost its build and its memory
 * for nothing. CREATE INDEX hands over the index it built to prove the keys, so that the first query finds it. The
 * memory comes from the storage allocator, pinned where the process allocates pinned host memory (a GPU machine),
 * which the GPU lookup reads zero-copy. An index whose definition goes (DROP INDEX, its table dropped, the catalog
 * closed) is freed once the joins using it are done.
 */
public final class SpillwayIndexes {
  /** By catalog, weakly: a registry holds no reference to its catalog, which closes its indexes as it closes. */
  private static final Map<Catalog, SpillwayIndexes> REGISTRIES = Collections.synchronizedMap(new WeakHashMap<>());

  /** Built indexes by name; an entry's build runs under its own lock, so one slow build blocks no other index. */
  private final Map<String, Slot> slots = new ConcurrentHashMap<>();

  private SpillwayIndexes() {}

  /** The registry of {@code catalog}'s indexes, created on first use. */
  public static SpillwayIndexes of(Catalog catalog) {
    synchronized (REGISTRIES) {
      return REGISTRIES.computeIfAbsent(catalog, c -> {
        SpillwayIndexes indexes = new SpillwayIndexes();
        c.onIndexGone(indexes::gone);
        return indexes;
      });
    }
  }

  /**
   * The index named {@code name} in {@code catalog}, built if it is not yet, acquired for one join: the caller
   * {@link TableIndex#release releases} it. Fails if the index no longer exists or its keys no longer suit it.
   */
  TableIndex acquire(Catalog catalog, String name) {
    while (true) {
      IndexDefinition definition = catalog.index(name).orElseThrow(() -> new IllegalStateException("index " + name
          + " was dropped while the query was planned"));
      Slot slot = slots.computeIfAbsent(definition.name(), n -> new Slot(definition));
      TableIndex index = slot.get(catalog);
      if (index == null) {
        slots.remove(definition.name(), slot);  // closed by a drop after the look-up: look again
        continue;
      }
      if (!catalog.index(name).equals(Optional.of(definition))) {
        gone(definition);  // dropped while it was built: the listener found nothing to free yet
        continue;
      }
      try {
        return index.acquire();
      } catch (IllegalStateException dropped) {
        slots.remove(definition.name(), slot);  // dropped between the look-up and the acquire: look again
      }
    }
  }

  /** Keeps {@code index}, built for {@code definition} (CREATE INDEX's proof of the keys), for the queries. */
  void adopt(IndexDefinition definition, TableIndex index) {
    Slot slot = new Slot(definition);
    slot.index = index;
    Slot previous = slots.put(definition.name(), slot);
    if (previous != null) {
      previous.close();
    }
  }

  /** The index of that name if a query or CREATE INDEX built it, for EXPLAIN and metadata; not acquired. */
  public Optional<TableIndex> built(String name) {
    Slot slot = slots.get(name);
    return Optional.ofNullable(slot == null ? null : slot.built());
  }

  /** Frees the index of a definition that went away (once no join uses it). */
  private void gone(IndexDefinition definition) {
    Slot slot = slots.get(definition.name());
    if (slot != null && slot.definition.equals(definition) && slots.remove(definition.name(), slot)) {
      slot.close();
    }
  }

  /** One index: built on the first {@link #get}, closed at most once. */
  private static final class Slot {
    private final IndexDefinition definition;
    private TableIndex index;
    private boolean closed;

    Slot(IndexDefinition definition) {
      this.definition = definition;
    }

    /** The index, built now if it is not yet; null once closed. */
    synchronized TableIndex get(Catalog catalog) {
      if (closed) {
        return null;
      }
      if (index == null) {
        StoredTable table = catalog.table(definition.table()).orElseThrow(() -> new IllegalStateException(
            "table " + definition.table() + " of index " + definition.name() + " no longer exists"));
        int column = table.schema().indexOf(definition.column());
        index = TableIndex.build(definition.name(), table.batches(), column, definition.kind(),
            StorageAllocator.newChild("index " + definition.name()), Runtime.getRuntime().availableProcessors());
      }
      return index;
    }

    synchronized TableIndex built() {
      return index;
    }

    synchronized void close() {
      closed = true;
      if (index != null) {
        index.close();
      }
    }
  }
}
