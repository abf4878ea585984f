package org.spillway.storage.imports;

import java.nio.file.Path;
import org.spillway.storage.CsvImporter;
import org.spillway.storage.CsvOptions;
import org.spillway.storage.TableSchema;

/** A CSV file, read by {@link CsvImporter} in one piece: its records must be parsed in order. */
final class CsvSource implements ImportSource {
  private final Path file;
  private final CsvOptions options;
  private final TableSchema schema;

  private CsvSource(Path file, CsvOptions options, TableSchema schema) {
    this.file = file;
    this.options = options;
    this.schema = schema;
  }

  /** Reads the header and, unless the options declare the columns, a sample that decides them. */
  static CsvSource open(Path file, CsvOptions options) {
    return new CsvSource(file, options, CsvImporter.schemaOf(file, options));
  }

  @Override
  public Path file() {
    return file;
  }

  @Override
  public TableSchema schema() {
    return schema;
  }

  @Override
  public long rows() {
    return -1;
  }

  @Override
  public int pieces() {
    return 1;
  }

  @Override
  public void read(int piece, BatchSink sink) {
    CsvImporter.copy(file, options, sink::newBatch, sink::append, sink::cancelled);
  }
}
