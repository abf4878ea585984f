package org.spillway.storage;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;

/**
 * Which text columns of a table are stored as dictionaries, and their sorted values: chosen by the commit from the
 * whole table's statistics ({@link TableWriter}), or guessed from part of it to write a batch's final file early
 * ({@link DictionaryGuess}). Two equal choices write the same bytes for the same batch.
 */
final class DictionaryChoice {
  /** Per column its sorted dictionary, or null where the column is stored plain. */
  private final List<List<String>> dictionaries;
  /** Null where no column is encoded. */
  private final DictionaryEncoder encoder;

  private DictionaryChoice(TableSchema schema, List<List<String>> dictionaries) {
    this.dictionaries = dictionaries;
    this.encoder = dictionaries.stream().anyMatch(d -> d != null) ? new DictionaryEncoder(schema, dictionaries) : null;
  }

  /**
   * The choice for a table of {@code rowCount} rows with these statistics: a text column whose distinct values are
   * still known becomes a dictionary when each value is used at least {@value TableWriter#DICTIONARY_MIN_REUSE} times
   * on average, or when it has at most {@value TableWriter#DICTIONARY_ALWAYS_ENTRIES} values.
   */
  static DictionaryChoice of(TableSchema schema, List<ColumnStatisticsCollector> statistics, long rowCount) {
    List<List<String>> dictionaries = new ArrayList<>();
    for (ColumnStatisticsCollector collector : statistics) {
      Set<String> distinct = collector.exactDistinct();
      boolean encode = distinct != null && encodes(distinct.size(), rowCount);
      dictionaries.add(encode ? distinct.stream().sorted().toList() : null);
    }
    return new DictionaryChoice(schema, dictionaries);
  }

  /** Whether a column of {@code distinct} (known) distinct values in a table of {@code rowCount} rows is encoded. */
  static boolean encodes(long distinct, long rowCount) {
    return distinct > 0 && (distinct * TableWriter.DICTIONARY_MIN_REUSE <= rowCount
        || distinct <= TableWriter.DICTIONARY_ALWAYS_ENTRIES);
  }

  boolean encoded(int col) {
    return dictionaries.get(col) != null;
  }

  /**
   * Writes a batch staged in memory to a new file in this choice's form and returns the file's checksum. The batch
   * stays whole (its plain vectors are written as they are), so that it can be written again in another form; a
   * declared text column stored plain gets its text written. Thread-safe for distinct files.
   */
  FileChecksum write(VectorSchemaRoot batch, DictionaryEncoder.Declared declared, Path target,
      BufferAllocator allocator) {
    if (encoder != null) {
      return encoder.write(batch, declared, target, allocator);
    }
    declared.writeText(batch, col -> true);
    return ArrowFiles.write(target, batch);
  }

  /** Re-encodes the batch of a staged (plain) file into a new file in this choice's form, or moves the file. */
  FileChecksum rewrite(Path staged, Path target, BufferAllocator allocator) {
    if (encoder != null) {
      return encoder.rewrite(staged, target, allocator);
    }
    TableWriter.moveNew(staged, target);
    return FileChecksum.of(target);
  }

  @Override
  public boolean equals(Object other) {
    return other == this || other instanceof DictionaryChoice choice && dictionaries.equals(choice.dictionaries);
  }

  @Override
  public int hashCode() {
    return dictionaries.hashCode();
  }
}
