package org.spillway.adapter.cli;

import org.spillway.storage.Catalog;
import org.spillway.storage.CsvOptions;
import org.spillway.storage.imports.ImportFormat;
import org.spillway.storage.imports.ImportOptions;
import org.spillway.storage.imports.ImportResult;
import org.spillway.storage.imports.TableImport;
import org.spillway.storage.imports.TimestampMode;
import org.spillway.tpch.ConsoleProgressBar;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;

/**
 * Imports Parquet, Arrow IPC or CSV files as a new table of a data directory, on all cores, with a progress bar,
 * and reports the speed. Servers and shells with the directory open see the table on their next statement.
 */
@Command(name = "import", mixinStandardHelpOptions = true,
    description = {"Import files as a new table: Parquet (.parquet), Arrow IPC files or streams (.arrow, .arrows,"
        + " .ipc, .feather) or CSV (.csv). All files of one import need the same columns.",
        "A failure leaves no table and names the file, the row group, record batch or line, and why."})
public final class ImportCommand implements Callable<Integer> {
  @Option(names = {"-d", "--data-dir", "--dir"}, required = true, paramLabel = "DIR",
      description = "Data directory (created if missing).")
  Path dir;

  @Option(names = "--table", required = true, paramLabel = "TABLE", description = "Name of the new table.")
  String table;

  @Parameters(arity = "1..*", paramLabel = "FILE", description = "Files to import, in this order.")
  List<Path> files;

  @Option(names = "--format", paramLabel = "FORMAT",
      description = "parquet, arrow or csv (default: from each file's extension).")
  String format;

  @Option(names = "--threads", paramLabel = "N", description = "Import threads (default: all cores).")
  Integer threads;

  @Option(names = "--timestamps", paramLabel = "MODE", defaultValue = "reject",
      description = "TIMESTAMP columns, which Spillway has no type for: reject (default), date (the UTC date) or"
          + " micros (BIGINT microseconds since 1970-01-01 UTC).")
  String timestamps;

  @Option(names = "--csv-delimiter", paramLabel = "CHAR", description = "CSV field delimiter (default: ,).")
  Character csvDelimiter;

  @Option(names = "--csv-no-header", description = "The CSV file has no header line (columns c1, c2, ...).")
  boolean csvNoHeader;

  @Override public Integer call() {
    ImportOptions options = options();
    ConsoleProgressBar bar = new ConsoleProgressBar(System.err);
    String name = table.toLowerCase(Locale.ROOT);
    ImportResult result;
    try (Catalog catalog = Catalog.create(dir)) {
      result = TableImport.run(catalog, name, files, options.withProgress((done, total) ->
          bar.onProgress(name, done, total)));
      bar.onProgress(name, result.rows(), result.rows());
      bar.onComplete();
    }
    System.err.printf(Locale.ROOT, "Imported %,d rows into table %s of %s from %d file(s), %.1f MB in %.2f s: %.1f"
        + " MB/s%n", result.rows(), name, dir, files.size(), result.inputBytes() / 1e6, result.nanos() / 1e9,
        result.megabytesPerSecond());
    return 0;
  }

  ImportOptions options() {
    ImportOptions options = ImportOptions.defaults().withTimestamps(TimestampMode.parse(timestamps));
    if (format != null) {
      options = options.withFormat(ImportFormat.parse(format));
    }
    if (threads != null) {
      options = options.withThreads(threads);
    }
    CsvOptions csv = CsvOptions.defaults().withHeader(!csvNoHeader);
    if (csvDelimiter != null) {
      csv = csv.withDelimiter(csvDelimiter);
    }
    return options.withCsv(csv);
  }
}
