package org.spillway.storage;

import java.io.IOException;
import java.io.Reader;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.IntFunction;
import java.util.regex.Pattern;

/**
 * Imports a CSV file into a new table through a {@link TableWriter}: a bad record fails the import with
 * "file:line: reason" and, because the writer is never committed, leaves no table behind. The imports of
 * several files ({@code imports.TableImport}) read each file's schema and rows through {@link #schemaOf} and
 * {@link #copy}.
 */
public final class CsvImporter {
  static final int BATCH_ROWS = 1 << 17;
  /** Decimal and scientific notation only: Double.parseDouble alone would also take "1d" and hex floats. */
  static final Pattern DOUBLE = Pattern.compile("[+-]?(\\d+\\.?\\d*|\\.\\d+)([eE][+-]?\\d+)?|[+-]?(Infinity|NaN)");

  private final Catalog catalog;
  private final CsvOptions options;

  CsvImporter(Catalog catalog, CsvOptions options) {
    this.catalog = catalog;
    this.options = options;
  }

  StoredTable importFile(String tableName, Path csv) {
    try (OpenFile file = open(csv); TableWriter writer = catalog.createTable(tableName, file.schema)) {
      file.copy(writer::newBatch, writer::append, () -> false);
      return writer.commit();
    }
  }

  /** The columns of a CSV file: declared in the options, else inferred from its header and a sample of rows. */
  public static TableSchema schemaOf(Path csv, CsvOptions options) {
    try (OpenFile file = new CsvImporter(null, options).open(csv)) {
      return file.schema;
    }
  }

  /**
   * Reads a CSV file's rows into batches: {@code newBatch} makes a batch of a capacity (of the table's columns,
   * which may be NULL-able where this file's are not), {@code append} takes it filled, and reading stops early
   * once {@code cancelled} says so. A bad record fails with "file:line: reason". Returns the rows read.
   */
  public static long copy(Path csv, CsvOptions options, IntFunction<BatchBuilder> newBatch,
      Consumer<BatchBuilder> append, BooleanSupplier cancelled) {
    try (OpenFile file = new CsvImporter(null, options).open(csv)) {
      return file.copy(newBatch, append, cancelled);
    }
  }

  /** Opens the file, reads the header and, without a declared schema, a sample that decides the columns. */
  private OpenFile open(Path csv) {
    if (!Files.isRegularFile(csv)) {
      throw new StorageException("CSV file " + csv.toAbsolutePath() + " does not exist or is not a file");
    }
    String fileName = csv.getFileName().toString();
    Reader in = null;
    try {
      in = new Utf8CsvReader(Files.newInputStream(csv));
      CsvRecordReader records = new CsvRecordReader(in, fileName, options.delimiter(), options.quote());
      List<String> header = null;
      if (options.header()) {
        if (!records.next()) {
          throw new StorageException(fileName + ":1: missing header line");
        }
        header = new ArrayList<>(records.fields());
        dropTrailingField(records, header, fileName);
      }
      List<Row> sample = new ArrayList<>();
      TableSchema schema = options.schema();
      if (schema == null) {
        while (sample.size() < options.sampleRows() && records.next()) {
          sample.add(Row.copyOf(records));
        }
        schema = CsvSchemaInference.infer(header, sample, options, fileName);
      } else if (header != null) {
        checkHeader(header, schema, fileName);
      }
      return new OpenFile(in, records, sample, schema, fileName, csv);
    } catch (IOException | RuntimeException e) {
      closeQuietly(in, e);
      if (e instanceof RuntimeException runtime) {
        throw runtime;
      }
      throw new StorageException("cannot read CSV file " + csv.toAbsolutePath() + ": " + e.getMessage(), e);
    }
  }

  private static void closeQuietly(Reader in, Exception failure) {
    if (in != null) {
      try {
        in.close();
      } catch (IOException e) {
        failure.addSuppressed(e);
      }
    }
  }

  /** A CSV file past its header: the sampled records first, then the rest as read. */
  private final class OpenFile implements AutoCloseable {
    private final Reader in;
    private final CsvRecordReader records;
    private final List<Row> sample;
    private final TableSchema schema;
    private final String fileName;
    private final Path path;

    OpenFile(Reader in, CsvRecordReader records, List<Row> sample, TableSchema schema, String fileName, Path path) {
      this.in = in;
      this.records = records;
      this.sample = sample;
      this.schema = schema;
      this.fileName = fileName;
      this.path = path;
    }

    long copy(IntFunction<BatchBuilder> newBatch, Consumer<BatchBuilder> append, BooleanSupplier cancelled) {
      BatchBuilder batch = newBatch.apply(BATCH_ROWS);
      long total = 0;
      int row = 0;
      int sampleIndex = 0;
      try {
        while (true) {
          Row record;
          if (sampleIndex < sample.size()) {
            record = sample.get(sampleIndex++);
          } else if (records.next()) {
            record = Row.view(records);
          } else {
            break;
          }
          if (row == BATCH_ROWS) {
            batch.setRowCount(row);
            append.accept(batch);
            total += row;
            if (cancelled.getAsBoolean()) {
              return total;
            }
            batch = newBatch.apply(BATCH_ROWS);
            row = 0;
          }
          setRow(batch, row++, record, batch.schema(), fileName);
        }
        batch.setRowCount(row);
        append.accept(batch);
        return total + row;
      } catch (RuntimeException e) {
        batch.close();
        throw e;
      }
    }

    @Override
    public void close() {
      try {
        in.close();
      } catch (IOException e) {
        throw new StorageException("cannot close CSV file " + path.toAbsolutePath() + ": " + e.getMessage(), e);
      }
    }
  }

  private void setRow(BatchBuilder batch, int row, Row record, TableSchema schema, String fileName) {
    List<String> fields = record.fields();
    int expected = schema.size() + (options.trailingDelimiter() ? 1 : 0);
    if (fields.size() != expected) {
      throw new StorageException(fileName + ":" + record.line() + ": expected " + expected + " fields, found "
          + fields.size());
    }
    if (options.trailingDelimiter() && !fields.get(expected - 1).isEmpty()) {
      throw new StorageException(fileName + ":" + record.line() + ": expected a trailing '" + options.delimiter() + "'");
    }
    for (int col = 0; col < schema.size(); col++) {
      String text = fields.get(col);
      ColumnDef column = schema.column(col);
      try {
        if (!record.quoted(col) && text.equals(options.nullToken())) {
          if (!column.type().nullable()) {
            throw new StorageException("NULL in a NOT NULL column");
          }
          batch.setNull(col, row);
        } else {
          setValue(batch, col, row, column.type(), text);
        }
      } catch (StorageException e) {
        String hint = options.schema() == null ? " (type inferred from the first " + options.sampleRows()
            + " rows; pass a schema in CsvOptions)" : "";
        throw new StorageException(fileName + ":" + record.line() + ": column " + column.name() + ": "
            + e.getMessage() + hint, e);
      }
    }
  }

  private static void setValue(BatchBuilder batch, int col, int row, ColumnType type, String text) {
    String trimmed = text.strip();
    try {
      switch (type.kind()) {
        case INTEGER -> batch.setInt(col, row, Integer.parseInt(trimmed));
        case BIGINT -> batch.setLong(col, row, Long.parseLong(trimmed));
        case DOUBLE -> {
          if (!DOUBLE.matcher(trimmed).matches()) {
            throw new NumberFormatException();
          }
          batch.setDouble(col, row, Double.parseDouble(trimmed));
        }
        case DECIMAL -> batch.setDecimal(col, row, ValueConversions.unscaledExact(new BigDecimal(trimmed), type));
        case DATE -> batch.setDate(col, row, (int) LocalDate.parse(trimmed).toEpochDay());
        case CHAR, VARCHAR -> {
          int excess = ValueConversions.excessLength(type, text);
          if (excess >= 0) {
            throw new StorageException("value of length " + excess + " exceeds " + type);
          }
          batch.setString(col, row, text);
        }
      }
    } catch (NumberFormatException | ArithmeticException | DateTimeParseException e) {
      throw new StorageException("'" + text + "' is not " + (type.kind() == ColumnKind.INTEGER ? "an " : "a ") + type);
    }
  }

  private void dropTrailingField(CsvRecordReader records, List<String> fields, String fileName) {
    if (options.trailingDelimiter()) {
      if (fields.isEmpty() || !fields.get(fields.size() - 1).isEmpty()) {
        throw new StorageException(fileName + ":" + records.line() + ": expected a trailing '" + options.delimiter() + "'");
      }
      fields.remove(fields.size() - 1);
    }
  }

  private static void checkHeader(List<String> header, TableSchema schema, String fileName) {
    if (header.size() != schema.size()) {
      throw new StorageException(fileName + ":1: header has " + header.size() + " columns, the schema "
          + schema.size());
    }
    for (int col = 0; col < header.size(); col++) {
      if (!header.get(col).strip().equalsIgnoreCase(schema.column(col).name())) {
        throw new StorageException(fileName + ":1: header column " + (col + 1) + " is '" + header.get(col)
            + "', the schema says '" + schema.column(col).name() + "'");
      }
    }
  }

  /** A record with its line: a copy for sampled records, a view of the reader otherwise. */
  record Row(List<String> fields, boolean[] quotedFlags, long line, CsvRecordReader live) {
    static Row copyOf(CsvRecordReader reader) {
      boolean[] flags = new boolean[reader.fields().size()];
      for (int i = 0; i < flags.length; i++) {
        flags[i] = reader.wasQuoted(i);
      }
      return new Row(List.copyOf(reader.fields()), flags, reader.line(), null);
    }

    static Row view(CsvRecordReader reader) {
      return new Row(reader.fields(), null, reader.line(), reader);
    }

    boolean quoted(int i) {
      return live != null ? live.wasQuoted(i) : quotedFlags[i];
    }
  }
}
