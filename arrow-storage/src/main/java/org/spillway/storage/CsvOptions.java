package org.spillway.storage;

/**
 * How to read a CSV file: header line on/off, delimiter, quote character, the unquoted token meaning
 * NULL, the schema (null: inferred from the first {@code sampleRows} records) and whether every line ends
 * with an extra delimiter (as in TPC-H dbgen's .tbl files).
 */
public record CsvOptions(boolean header, char delimiter, char quote, String nullToken, TableSchema schema,
    int sampleRows, boolean trailingDelimiter) {

  public CsvOptions {
    if (delimiter == quote) {
      throw new StorageException("CSV delimiter and quote must differ, both are '" + delimiter + "'");
    }
    if (delimiter == '\n' || delimiter == '\r' || quote == '\n' || quote == '\r') {
      throw new StorageException("CSV delimiter and quote must not be line breaks");
    }
    if (nullToken == null) {
      throw new StorageException("CSV null token must not be null (use \"\" for empty fields)");
    }
    if (sampleRows < 1) {
      throw new StorageException("CSV sample rows must be positive, not " + sampleRows);
    }
  }

  /** RFC 4180: header line, comma, double quote, empty unquoted field is NULL, schema inferred from 1000 rows. */
  public static CsvOptions defaults() {
    return new CsvOptions(true, ',', '"', "", null, 1000, false);
  }

  /** TPC-H dbgen .tbl files: no header, '|' delimiter with a trailing '|', the given schema. */
  public static CsvOptions tpchTbl(TableSchema schema) {
    return new CsvOptions(false, '|', '"', "", schema, 1000, true);
  }

  public CsvOptions withHeader(boolean value) {
    return new CsvOptions(value, delimiter, quote, nullToken, schema, sampleRows, trailingDelimiter);
  }

  public CsvOptions withDelimiter(char value) {
    return new CsvOptions(header, value, quote, nullToken, schema, sampleRows, trailingDelimiter);
  }

  public CsvOptions withQuote(char value) {
    return new CsvOptions(header, delimiter, value, nullToken, schema, sampleRows, trailingDelimiter);
  }

  public CsvOptions withNullToken(String value) {
    return new CsvOptions(header, delimiter, quote, value, schema, sampleRows, trailingDelimiter);
  }

  public CsvOptions withSchema(TableSchema value) {
    return new CsvOptions(header, delimiter, quote, nullToken, value, sampleRows, trailingDelimiter);
  }

  public CsvOptions withSampleRows(int value) {
    return new CsvOptions(header, delimiter, quote, nullToken, schema, value, trailingDelimiter);
  }

  public CsvOptions withTrailingDelimiter(boolean value) {
    return new CsvOptions(header, delimiter, quote, nullToken, schema, sampleRows, value);
  }
}
