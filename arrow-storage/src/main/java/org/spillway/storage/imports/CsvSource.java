package org.spillway.storage.imports;

import java.nio.file.Path;
import org.spillway.storage.CsvImporter;
import org.spillway.storage.CsvOptions;
import org.spillway.storage.TableSchema;

/** A CSV file, read by {@link CsvImporter} in one piece: its records must be parsed in order. */
final class CsvSource extends FileSource {
  private final CsvOptions options;

  private CsvSource(Path file, CsvOptions options, TableSchema schema) {
    super(file, schema);
    this.options = options;
  }

  /** Reads the header and, unless the options declare the columns, a sample that decides them. */
  static CsvSource open(Path file, CsvOptions options) {
    return new CsvSource(file, options, CsvImporter.schemaOf(file, options));
  }

  @Override
  public int pieces() {
    return 1;
  }

  @Override
  public void read(int piece, BatchSink sink) {
    CsvImporter.copy(file(), options, sink::newBatch, sink::append, sink::cancelled);
  }
}
