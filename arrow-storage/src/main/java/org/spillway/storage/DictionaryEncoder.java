package org.spillway.storage;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.IntPredicate;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.dictionary.Dictionary;
import org.apache.arrow.vector.dictionary.DictionaryProvider;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;

/**
 * Rewrites staged plain batches with the chosen text columns as Int32 codes into one sorted, table-wide
 * dictionary per column. Sorted codes keep order: equality, ranges and LIKE 'prefix%' become code ranges.
 */
final class DictionaryEncoder {
  private final TableSchema schema;
  /** Sorted dictionary per column; null for columns stored plain. */
  private final List<List<String>> dictionaries;
  /** The codes of each encoded column's values, by their bytes; null for columns stored plain. */
  private final List<Utf8Codes> codes;

  DictionaryEncoder(TableSchema schema, List<List<String>> dictionaries) {
    this.schema = schema;
    this.dictionaries = dictionaries;
    this.codes = new ArrayList<>();
    for (List<String> dictionary : dictionaries) {
      codes.add(dictionary == null ? null : new Utf8Codes(dictionary));
    }
  }

  /**
   * What a batch's source declared of its columns' values ({@link BatchBuilder#declareDistinct}): per column its
   * distinct values, for text each row's index into them (null where not declared), and the rows whose text is not
   * written in the vector ({@link BatchBuilder#putDeclaredUtf8}; 0: none).
   */
  record Declared(Object[] distinct, char[][] rows, int[] unwrittenTextRows) {
    static final Declared NOTHING = new Declared(null, null, null);

    /** The distinct text values of column {@code col} with each row's index into them, or null. */
    byte[][] textValues(int col) {
      return rows != null && rows[col] != null && distinct[col] instanceof byte[][] values ? values : null;
    }

    /**
     * Writes the unwritten text of the columns of {@code batch} that {@code columns} accepts (see
     * {@link DeclaredText}), once: a batch written early and again at the commit ({@link DictionaryGuess}) has it
     * written by the first.
     */
    void writeText(VectorSchemaRoot batch, IntPredicate columns) {
      for (int col = 0; unwrittenTextRows != null && col < unwrittenTextRows.length; col++) {
        if (unwrittenTextRows[col] > 0 && columns.test(col)) {
          DeclaredText.write((VarCharVector) batch.getVector(col), textValues(col), rows[col],
              Math.min(unwrittenTextRows[col], batch.getRowCount()));
          unwrittenTextRows[col] = 0;
        }
      }
    }
  }

  /**
   * Re-encodes the batch of a staged file into a new file, whose checksum it returns; thread-safe for distinct
   * files.
   */
  FileChecksum rewrite(Path staged, Path target, BufferAllocator allocator) {
    List<VectorSchemaRoot> batches = ArrowFiles.readPlain(staged, allocator);
    try {
      if (batches.size() != 1) {
        throw new StorageException(staged + ": expected one staged batch, found " + batches.size());
      }
      return write(batches.get(0), Declared.NOTHING, target, allocator);
    } finally {
      batches.forEach(VectorSchemaRoot::close);
    }
  }

  /**
   * Writes a plain batch into a new file with the chosen columns encoded; the columns kept plain are written from the
   * batch's own vectors, and the batch stays as it was (it may be written again with other dictionaries). A text
   * column whose values were {@code declared} with their rows is encoded a value at a time, not a row at a time (and
   * its text, if not written, stays so); a column kept plain gets its unwritten text written. Returns the file's
   * checksum. Thread-safe for distinct files.
   */
  FileChecksum write(VectorSchemaRoot plain, Declared declared, Path target, BufferAllocator allocator) {
    declared.writeText(plain, col -> dictionaries.get(col) == null);
    DictionaryProvider.MapDictionaryProvider provider = new DictionaryProvider.MapDictionaryProvider();
    List<VarCharVector> dictionaryVectors = new ArrayList<>();
    try {
      for (int col = 0; col < schema.size(); col++) {
        if (dictionaries.get(col) != null) {
          VarCharVector values = dictionaryVector(col, allocator);
          dictionaryVectors.add(values);
          provider.put(new Dictionary(values, ArrowFieldMapping.dictionaryField(schema.column(col), col).getDictionary()));
        }
      }
      List<IntVector> codes = new ArrayList<>();
      try {
        return ArrowFiles.write(target, encode(plain, declared, allocator, codes), provider);
      } finally {
        codes.forEach(IntVector::close);  // the batch's own vectors stay with it
      }
    } finally {
      dictionaryVectors.forEach(VarCharVector::close);
    }
  }

  /**
   * The batch to write: the plain batch's vectors of the columns kept plain, and code vectors, which are added to
   * {@code made} for the caller to close.
   */
  private VectorSchemaRoot encode(VectorSchemaRoot plain, Declared declared, BufferAllocator allocator,
      List<IntVector> made) {
    int rows = plain.getRowCount();
    List<FieldVector> vectors = new ArrayList<>(schema.size());
    for (int col = 0; col < schema.size(); col++) {
      FieldVector source = plain.getVector(col);
      Utf8Codes index = codes.get(col);
      if (index == null) {
        vectors.add(source);
        continue;
      }
      IntVector target = (IntVector) ArrowFieldMapping.dictionaryField(schema.column(col), col).createVector(allocator);
      made.add(target);
      vectors.add(target);
      target.allocateNew(rows);
      byte[][] values = declared.textValues(col);
      if (values != null) {
        index.codes(values, declared.rows()[col], (VarCharVector) source, rows, target);
      } else {
        index.codes((VarCharVector) source, rows, target, new byte[][] {new byte[64]});
      }
      target.setValueCount(rows);
    }
    List<Field> fields = new ArrayList<>(vectors.size());
    vectors.forEach(vector -> fields.add(vector.getField()));
    return new VectorSchemaRoot(fields, vectors, rows);
  }

  private VarCharVector dictionaryVector(int col, BufferAllocator allocator) {
    List<String> values = dictionaries.get(col);
    Field field = new Field(schema.column(col).name() + "_dictionary",
        new FieldType(false, ArrowType.Utf8.INSTANCE, null), null);
    VarCharVector vector = (VarCharVector) field.createVector(allocator);
    vector.allocateNew(values.size());
    for (int i = 0; i < values.size(); i++) {
      vector.setSafe(i, values.get(i).getBytes(StandardCharsets.UTF_8));
    }
    vector.setValueCount(values.size());
    return vector;
  }
}
