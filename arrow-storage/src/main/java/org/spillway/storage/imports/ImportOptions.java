package org.spillway.storage.imports;

import java.util.Objects;
import org.spillway.storage.CsvOptions;

/**
 * How an import reads its files: the format (null: from each file's extension), the threads, what becomes of
 * TIMESTAMP columns, the CSV dialect, and who hears of progress.
 */
public record ImportOptions(ImportFormat format, int threads, TimestampMode timestamps, CsvOptions csv,
    ImportProgress progress) {
  public ImportOptions {
    if (threads < 1) {
      throw new IllegalArgumentException("an import needs at least one thread, not " + threads);
    }
    Objects.requireNonNull(timestamps, "timestamps");
    Objects.requireNonNull(csv, "csv");
    Objects.requireNonNull(progress, "progress");
  }

  /** Format from the extension, all cores, TIMESTAMP refused, CSV with a header and inferred types, no progress. */
  public static ImportOptions defaults() {
    return new ImportOptions(null, Runtime.getRuntime().availableProcessors(), TimestampMode.REJECT,
        CsvOptions.defaults(), ImportProgress.NONE);
  }

  public ImportOptions withFormat(ImportFormat value) {
    return new ImportOptions(value, threads, timestamps, csv, progress);
  }

  public ImportOptions withThreads(int value) {
    return new ImportOptions(format, value, timestamps, csv, progress);
  }

  public ImportOptions withTimestamps(TimestampMode value) {
    return new ImportOptions(format, threads, value, csv, progress);
  }

  public ImportOptions withCsv(CsvOptions value) {
    return new ImportOptions(format, threads, timestamps, value, progress);
  }

  public ImportOptions withProgress(ImportProgress value) {
    return new ImportOptions(format, threads, timestamps, csv, value);
  }
}
