package org.spillway.tpch;

import io.trino.tpch.TpchEntity;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.spillway.storage.BatchBuilder;
import org.spillway.storage.Catalog;
import org.spillway.storage.ColumnDef;
import org.spillway.storage.OwnerLock;
import org.spillway.storage.StorageAllocator;
import org.spillway.storage.StorageException;
import org.spillway.storage.TableSchema;
import org.spillway.storage.TableWriter;

/**
 * Generates the eight TPC-H tables at any scale factor with io.trino.tpch straight into a catalog. Each
 * table is split into parts generated on a thread pool; a part's batches are appended at positions
 * ordered by part, so the stored row order is the same whatever the thread count. A selection can limit
 * the run to some tables and columns (benchmarks at SF 100 need only lineitem's Q1/Q6 columns).
 */
public final class TpchGenerator {
  /** Rows per batch: large enough for link-speed transfers, small enough for many threads' builders. */
  static final int BATCH_ROWS = 1 << 17;
  /** Target rows per part; each part becomes a few batches. */
  static final long ROWS_PER_PART = 1 << 19;
  /**
   * Marker file of a generation in progress, locked while it runs: left behind unlocked, it says that a
   * generation was killed and its tables are incomplete (see {@link #interrupted(Path)}).
   */
  static final String IN_PROGRESS = ".tpch-generation.lock";

  private final Catalog catalog;
  private final double scaleFactor;
  private final ProgressListener progress;
  private final Map<String, List<String>> selection;
  private final AtomicBoolean failed = new AtomicBoolean();

  private TpchGenerator(Catalog catalog, double scaleFactor, ProgressListener progress,
      Map<String, List<String>> selection) {
    this.catalog = catalog;
    this.scaleFactor = scaleFactor;
    this.progress = progress;
    this.selection = selection;
  }

  /**
   * Creates {@code dataDir} if needed and generates all tables into it with {@code threads} threads (0 or
   * less: one per available processor). Fails if the directory already holds a TPC-H table; on failure
   * it leaves no table of this run behind.
   */
  public static void generate(Path dataDir, double scaleFactor, int threads, ProgressListener progress) {
    generate(dataDir, scaleFactor, threads, progress, null);
  }

  /**
   * Like {@link #generate(Path, double, int, ProgressListener)}, but only the tables that are keys of
   * {@code selection}, each with the listed columns in schema order (an empty list: all of them); null
   * selects everything. Unknown tables or columns fail before anything is written.
   */
  public static void generate(Path dataDir, double scaleFactor, int threads, ProgressListener progress,
      Map<String, List<String>> selection) {
    try (Catalog catalog = Catalog.create(dataDir)) {
      generate(catalog, scaleFactor, threads, progress, selection);
    }
  }

  /** Like {@link #generate(Path, double, int, ProgressListener)}, into an open catalog. */
  public static void generate(Catalog catalog, double scaleFactor, int threads, ProgressListener progress) {
    generate(catalog, scaleFactor, threads, progress, null);
  }

  /** Like {@link #generate(Path, double, int, ProgressListener, Map)}, into an open catalog. */
  public static void generate(Catalog catalog, double scaleFactor, int threads, ProgressListener progress,
      Map<String, List<String>> selection) {
    generate(catalog, scaleFactor, threads, progress, selection, false);
  }

  /**
   * Generates all tables into {@code dataDir} after dropping the TPC-H tables it holds (those of an
   * interrupted or earlier generation, broken ones included); other tables stay.
   */
  public static void regenerate(Path dataDir, double scaleFactor, int threads, ProgressListener progress) {
    try (Catalog catalog = Catalog.create(dataDir)) {
      generate(catalog, scaleFactor, threads, progress, null, true);
    }
  }

  /**
   * Whether a generation into {@code dataDir} was killed: its marker is there but no live process holds
   * it. Its committed tables are an incomplete set: {@link #regenerate} redoes the run.
   */
  public static boolean interrupted(Path dataDir) {
    Path marker = dataDir.resolve(IN_PROGRESS);
    return Files.exists(marker) && !OwnerLock.isHeld(marker);
  }

  private static void generate(Catalog catalog, double scaleFactor, int threads, ProgressListener progress,
      Map<String, List<String>> selection, boolean replace) {
    if (!(scaleFactor > 0) || Double.isInfinite(scaleFactor)) {
      throw new StorageException("TPC-H scale factor must be positive, not " + scaleFactor);
    }
    Path marker = catalog.directory().resolve(IN_PROGRESS);
    if (OwnerLock.isHeld(marker)) {
      throw new StorageException("another process is generating TPC-H into " + catalog.directory());
    }
    boolean wasInterrupted = Files.exists(marker);
    List<String> existing = catalog.tableNames().stream().filter(TpchSchema.TABLE_NAMES::contains).toList();
    if (!existing.isEmpty() && !replace) {
      throw new StorageException("data directory " + catalog.directory() + " already holds TPC-H tables "
          + String.join(", ", existing) + (wasInterrupted ? " of an interrupted generation" : "")
          + "; run 'spillway generate --force' to replace them, drop them, or choose another directory");
    }
    try (OwnerLock running = OwnerLock.acquire(marker)) {
      existing.forEach(catalog::dropTable);
      int poolSize = threads > 0 ? threads : Runtime.getRuntime().availableProcessors();
      new TpchGenerator(catalog, scaleFactor, progress == null ? ProgressListener.NONE : progress,
          selection).run(poolSize);
    }
  }

  /** The columns of one table that a run writes: their schema and writers, in schema order. */
  private record Projection<E extends TpchEntity>(TpchTableSource<E> source, TableSchema schema,
      List<TpchTableSource.ColumnWriter<E>> writers) {
    static <E extends TpchEntity> Projection<E> of(TpchTableSource<E> source, TableSchema full, List<String> names) {
      if (names == null || names.isEmpty()) {
        return new Projection<>(source, full, source.columns());
      }
      List<ColumnDef> columns = new ArrayList<>();
      List<TpchTableSource.ColumnWriter<E>> writers = new ArrayList<>();
      for (int i = 0; i < full.size(); i++) {
        if (names.stream().anyMatch(full.column(i).name()::equalsIgnoreCase)) {
          columns.add(full.column(i));
          writers.add(source.columns().get(i));
        }
      }
      for (String name : names) {
        full.column(name);  // fails with the table's column names if there is no such column
      }
      return new Projection<>(source, new TableSchema(columns), writers);
    }
  }

  /** One table being generated: its columns, writer, part futures and row counter. */
  private record TableJob(Projection<?> projection, TableWriter writer, List<Future<?>> parts, AtomicLong rows,
      long expectedRows) {
    String name() {
      return projection.source().name();
    }
  }

  /** The tables and columns to write, checked against the TPC-H schema before anything is written. */
  private List<Projection<?>> projections() {
    Map<String, TableSchema> schemas = TpchSchema.tables(scaleFactor);
    if (selection != null) {
      for (String table : selection.keySet()) {
        if (!schemas.containsKey(table.toLowerCase(Locale.ROOT))) {
          throw new StorageException("no TPC-H table '" + table + "'; tables: " + TpchSchema.TABLE_NAMES);
        }
      }
    }
    List<Projection<?>> out = new ArrayList<>();
    for (TpchTableSource<?> source : TpchTableSource.all()) {
      List<String> names = selection == null ? List.of() : selected(source.name());
      if (names != null) {
        out.add(Projection.of(source, schemas.get(source.name()), names));
      }
    }
    return out;
  }

  /** The columns selected of a table (empty: all), or null when the table is not selected. */
  private List<String> selected(String table) {
    for (Map.Entry<String, List<String>> e : selection.entrySet()) {
      if (e.getKey().equalsIgnoreCase(table)) {
        return e.getValue() == null ? List.of() : e.getValue();
      }
    }
    return null;
  }

  private void run(int threads) {
    List<Projection<?>> projections = projections();
    ExecutorService pool = Executors.newFixedThreadPool(threads, runnable -> {
      Thread thread = new Thread(runnable, "tpch-generator");
      thread.setDaemon(true);
      return thread;
    });
    List<TableJob> jobs = new ArrayList<>();
    List<String> committed = new ArrayList<>();
    try {
      for (Projection<?> projection : projections) {
        long expected = projection.source().expectedRows(scaleFactor);
        String name = projection.source().name();
        TableJob job = new TableJob(projection, catalog.createTable(name, projection.schema()),
            new ArrayList<>(), new AtomicLong(), expected);
        jobs.add(job);
        progress.onProgress(name, 0, expected);
      }
      // largest tables first so that small ones fill the gaps at the end
      for (TableJob job : jobs) {
        int partCount = (int) Math.max(1, Math.min(Integer.MAX_VALUE, (job.expectedRows() + ROWS_PER_PART - 1) / ROWS_PER_PART));
        for (int part = 1; part <= partCount; part++) {
          int p = part;
          job.parts().add(pool.submit(() -> generatePart(job, job.projection(), p, partCount)));
        }
      }
      for (TableJob job : jobs) {
        for (Future<?> part : job.parts()) {
          part.get();
        }
        job.writer().commit();
        committed.add(job.name());
        long rows = job.rows().get();
        progress.onProgress(job.name(), rows, rows);
      }
      progress.onComplete();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw abort(jobs, committed, pool, e);
    } catch (ExecutionException e) {
      throw abort(jobs, committed, pool, e.getCause());
    } catch (RuntimeException | Error e) {
      throw abort(jobs, committed, pool, e);
    } finally {
      pool.shutdownNow();
    }
  }

  private <E extends TpchEntity> Void generatePart(TableJob job, Projection<E> projection, int part, int partCount) {
    TableWriter writer = job.writer();
    List<TpchTableSource.ColumnWriter<E>> columns = projection.writers();
    int width = columns.size();
    int capacity = (int) Math.min(BATCH_ROWS, Math.max(1024, job.expectedRows() / partCount + 64));
    long position = (long) part << 32;
    BatchBuilder batch = writer.newBatch(capacity);
    try {
      int row = 0;
      for (E entity : projection.source().generate(scaleFactor, part, partCount)) {
        if (row == capacity) {
          flush(job, batch, row, position++);
          if (failed.get()) {
            return null; // another part failed: stop early, the run is being aborted
          }
          batch = writer.newBatch(capacity);
          row = 0;
        }
        for (int c = 0; c < width; c++) {
          columns.get(c).write(entity, batch, c, row);
        }
        row++;
      }
      flush(job, batch, row, position);
      return null;
    } catch (RuntimeException | Error e) {
      failed.set(true);
      batch.close();
      throw e;
    }
  }

  private void flush(TableJob job, BatchBuilder batch, int rows, long position) {
    batch.setRowCount(rows);
    job.writer().appendAt(position, batch);
    progress.onProgress(job.name(), job.rows().addAndGet(rows), job.expectedRows());
  }

  /** Stops the pool, discards unfinished tables and drops those this run committed. */
  private StorageException abort(List<TableJob> jobs, List<String> committed, ExecutorService pool, Throwable cause) {
    failed.set(true);
    pool.shutdownNow();
    try {
      pool.awaitTermination(1, TimeUnit.MINUTES);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    for (TableJob job : jobs) {
      job.writer().close();
    }
    for (String table : committed) {
      catalog.dropTable(table);
    }
    return cause instanceof StorageException se
        ? new StorageException("TPC-H generation at SF " + scaleFactor + " failed: " + se.getMessage(), se)
        : new StorageException("TPC-H generation at SF " + scaleFactor + " failed: " + cause, cause);
  }

  /**
   * Parses a selection such as {@code lineitem:l_quantity,l_shipdate orders}: tables separated by spaces or
   * semicolons, each optionally followed by a colon and its columns.
   */
  public static Map<String, List<String>> parseSelection(String text) {
    Map<String, List<String>> selection = new LinkedHashMap<>();
    for (String item : text.trim().split("[\\s;]+")) {
      if (item.isEmpty()) {
        continue;
      }
      int colon = item.indexOf(':');
      String table = colon < 0 ? item : item.substring(0, colon);
      List<String> columns = colon < 0 ? List.of()
          : Arrays.stream(item.substring(colon + 1).split(",")).map(String::trim).filter(c -> !c.isEmpty()).toList();
      selection.put(table.toLowerCase(Locale.ROOT), columns);
    }
    if (selection.isEmpty()) {
      throw new IllegalArgumentException("empty table selection '" + text + "'");
    }
    return selection;
  }

  /**
   * Command line: {@code TpchGenerator <dataDir> <scaleFactor> [threads] [selection]} (see
   * {@link #parseSelection}); prints the time, peak heap and peak Arrow memory afterwards.
   */
  public static void main(String[] args) {
    if (args.length < 2) {
      System.err.println("usage: TpchGenerator <dataDir> <scaleFactor> [threads] [table[:col,...] ...]");
      System.exit(2);
    }
    long start = System.nanoTime();
    Map<String, List<String>> selection = args.length > 3
        ? parseSelection(String.join(" ", Arrays.asList(args).subList(3, args.length))) : null;
    generate(Path.of(args[0]), Double.parseDouble(args[1]), args.length > 2 ? Integer.parseInt(args[2]) : 0,
        new ConsoleProgressBar(System.out), selection);
    double seconds = (System.nanoTime() - start) / 1e9;
    long peakHeap = 0;
    for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
      if (pool.getType() == MemoryType.HEAP) {
        peakHeap += pool.getPeakUsage().getUsed();
      }
    }
    System.out.printf("generated SF %s in %.1f s; peak heap %d MiB (sum of pool peaks); peak Arrow memory %d MiB%n",
        args[1], seconds, peakHeap >> 20, StorageAllocator.root().getPeakMemoryAllocation() >> 20);
  }
}
