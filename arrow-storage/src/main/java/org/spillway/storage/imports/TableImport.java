package org.spillway.storage.imports;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.spillway.storage.BatchBuilder;
import org.spillway.storage.Catalog;
import org.spillway.storage.ColumnDef;
import org.spillway.storage.StorageException;
import org.spillway.storage.StoredTable;
import org.spillway.storage.TableSchema;
import org.spillway.storage.TableWriter;

/**
 * Imports files (Parquet, Arrow IPC or CSV) as one new table of a catalog. The pieces of every file (Parquet row
 * groups, Arrow record batches, a whole CSV file) are read on all threads into one {@link TableWriter}, which collects the
 * statistics and makes the generator's dictionary decisions at commit; the table lists the rows in file and piece
 * order whatever the threads do. Every file must have the same column names and types (a column NULL-able in one
 * file is NULL-able in the table). Any failure (a file that is not of its format, a type Spillway cannot hold, a bad
 * value) stops every thread and leaves no table; its message says the file, the row group, record batch or line,
 * the column, and why.
 */
public final class TableImport {
  /** Positions of a piece's batches: the piece's ordinal in the high bits keeps file and piece order. */
  private static final int BATCH_BITS = 24;

  private TableImport() {}

  /** Imports {@code files} into a new table {@code tableName} of {@code catalog}. */
  public static ImportResult run(Catalog catalog, String tableName, List<Path> files, ImportOptions options) {
    if (files.isEmpty()) {
      throw new StorageException("import into table " + tableName + ": no input files");
    }
    long start = System.nanoTime();
    ImportPhases.Clock clock = new ImportPhases.Clock();
    long bytes = 0;
    for (Path file : files) {
      if (!Files.isRegularFile(file)) {
        throw new StorageException(file.toAbsolutePath() + " does not exist or is not a file");
      }
      bytes += size(file);
    }
    List<ImportFormat> formats = files.stream()
        .map(f -> options.format() != null ? options.format() : ImportFormat.ofFile(f)).toList();
    List<ImportSource> sources = new ArrayList<>();
    for (int i = 0; i < files.size(); i++) {
      Path file = files.get(i);
      sources.add(switch (formats.get(i)) {
        case PARQUET -> ParquetSource.open(file, options.timestamps());
        case ARROW -> ArrowSource.open(file, options.timestamps());
        case CSV -> CsvSource.open(file, options.csv());
      });
    }
    StoredTable table = load(catalog, tableName, sources, options, clock);
    ImportPhases phases = clock.end();
    return new ImportResult(table, bytes, System.nanoTime() - start, phases);
  }

  private static StoredTable load(Catalog catalog, String tableName, List<ImportSource> sources,
      ImportOptions options, ImportPhases.Clock clock) {
    TableSchema schema = commonSchema(sources);
    long knownRows = sources.stream().allMatch(s -> s.rows() >= 0)
        ? sources.stream().mapToLong(ImportSource::rows).sum() : -1;
    List<Piece> pieces = new ArrayList<>();
    for (ImportSource source : sources) {
      for (int i = 0; i < source.pieces(); i++) {
        pieces.add(new Piece(source, i, (long) pieces.size() << BATCH_BITS));
      }
    }
    Progress progress = new Progress(options.progress(), knownRows, pieces.size());
    try (TableWriter writer = catalog.createTable(tableName, schema)) {
      runAll(writer, pieces, options.threads(), progress, clock);
      clock.piecesDone();
      return writer.commit();
    }
  }

  /** Runs every piece; the first failure cancels the others and, once all have stopped, is thrown. */
  private static void runAll(TableWriter writer, List<Piece> pieces, int threads, Progress progress,
      ImportPhases.Clock clock) {
    AtomicBoolean failed = new AtomicBoolean();
    // a thread whose piece ends once every piece has started has nothing left to do: the tail begins
    AtomicInteger started = new AtomicInteger();
    ExecutorService pool = Executors.newFixedThreadPool(Math.max(1, Math.min(threads, pieces.size())), r -> {
      Thread thread = new Thread(r, "spillway-import");
      thread.setDaemon(true);
      return thread;
    });
    List<Future<?>> futures = new ArrayList<>();
    try {
      for (Piece piece : pieces) {
        futures.add(pool.submit(() -> {
          started.incrementAndGet();
          if (failed.get()) {
            return;
          }
          clock.pieceStarted();
          try {
            Sink sink = new Sink(writer, piece.firstPosition(), failed, progress);
            piece.source().read(piece.index(), sink);
            progress.pieceDone(sink.rows);
          } catch (RuntimeException | Error e) {
            failed.set(true);
            throw e;
          }
          if (started.get() == pieces.size()) {
            clock.threadIdle();  // this thread finds no piece left to start
          }
        }));
      }
      RuntimeException first = null;
      for (Future<?> future : futures) {
        try {
          future.get();
        } catch (java.util.concurrent.ExecutionException e) {
          if (first == null) {
            first = e.getCause() instanceof RuntimeException r ? r
                : new StorageException("import failed: " + e.getCause(), e.getCause());
          }
        } catch (InterruptedException e) {
          failed.set(true);
          Thread.currentThread().interrupt();
          if (first == null) {
            first = new StorageException("import interrupted", e);
          }
        }
      }
      if (first != null) {
        throw first;
      }
    } finally {
      pool.shutdownNow();
    }
  }

  /** The schema every file shares; a file whose columns differ from the first's fails the import. */
  private static TableSchema commonSchema(List<ImportSource> sources) {
    TableSchema first = sources.get(0).schema();
    List<ColumnDef> columns = new ArrayList<>(first.columns());
    for (ImportSource source : sources.subList(1, sources.size())) {
      TableSchema other = source.schema();
      boolean same = other.size() == first.size();
      for (int i = 0; same && i < first.size(); i++) {
        ColumnDef a = first.column(i);
        ColumnDef b = other.column(i);
        same = a.name().equals(b.name()) && a.type().asNullable().equals(b.type().asNullable());
        if (same && b.type().nullable()) {
          columns.set(i, new ColumnDef(a.name(), a.type().asNullable()));
        }
      }
      if (!same) {
        throw new StorageException(source.file() + ": its columns " + other + " differ from those of "
            + sources.get(0).file() + " " + first + "; every file of an import needs the same columns");
      }
    }
    return new TableSchema(columns);
  }

  private static long size(Path file) {
    try {
      return Files.size(file);
    } catch (IOException e) {
      throw new StorageException("cannot read " + file + ": " + e.getMessage(), e);
    }
  }

  private record Piece(ImportSource source, int index, long firstPosition) {}

  /** A piece's batches go to the writer at consecutive positions from the piece's first one. */
  private static final class Sink implements ImportSource.BatchSink {
    private final TableWriter writer;
    private final AtomicBoolean failed;
    private final Progress progress;
    private long position;
    /** Rows this piece appended. */
    private long rows;

    Sink(TableWriter writer, long firstPosition, AtomicBoolean failed, Progress progress) {
      this.writer = writer;
      this.position = firstPosition;
      this.failed = failed;
      this.progress = progress;
    }

    @Override
    public BatchBuilder newBatch(int capacity) {
      return writer.newBatch(capacity);
    }

    @Override
    public void append(BatchBuilder batch) {
      int count = batch.rowCount();
      writer.appendAt(position++, batch);
      rows += count;
      progress.add(count);
    }

    @Override
    public boolean cancelled() {
      return failed.get() || Thread.currentThread().isInterrupted();
    }
  }

  /**
   * Counts rows and tells the listener; without a known total (Arrow files say no row counts up front) it
   * extrapolates from the rows of the pieces finished so far (Arrow record batches are of similar sizes).
   */
  private static final class Progress {
    private final ImportProgress listener;
    private final long knownRows;
    private final int pieces;
    private final AtomicLong rows = new AtomicLong();
    /** Pieces finished, and their rows, in one long each: read together under this lock. */
    private long finishedPieces;
    private long finishedRows;

    Progress(ImportProgress listener, long knownRows, int pieces) {
      this.listener = listener;
      this.knownRows = knownRows;
      this.pieces = pieces;
    }

    void add(long count) {
      long done = rows.addAndGet(count);
      listener.onRows(done, knownRows >= 0 ? knownRows : estimate(done));
    }

    synchronized void pieceDone(long pieceRows) {
      finishedPieces++;
      finishedRows += pieceRows;
    }

    private synchronized long estimate(long done) {
      return finishedPieces == 0 ? done : Math.max(done, finishedRows * pieces / finishedPieces);
    }
  }
}
