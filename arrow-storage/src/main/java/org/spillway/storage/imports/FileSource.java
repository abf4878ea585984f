package org.spillway.storage.imports;

import java.nio.file.Path;
import org.spillway.storage.TableSchema;

/** What every import source has: its file and the schema its columns map to. */
abstract class FileSource implements ImportSource {
  private final Path file;
  private final TableSchema schema;

  FileSource(Path file, TableSchema schema) {
    this.file = file;
    this.schema = schema;
  }

  @Override
  public final Path file() {
    return file;
  }

  @Override
  public final TableSchema schema() {
    return schema;
  }

  /** Unknown until read, unless the format says (Parquet's footer does). */
  @Override
  public long rows() {
    return -1;
  }
}
