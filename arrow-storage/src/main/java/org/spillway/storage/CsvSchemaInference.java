package org.spillway.storage;

import java.math.BigDecimal;
import java.time.LocalDate;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Infers a schema from sampled CSV records: per column the narrowest of INTEGER, BIGINT,
 * DECIMAL(18,s), DOUBLE, DATE that holds every sampled value, else VARCHAR; all columns nullable.
 * DECIMAL takes the full 18 digits so later rows with larger integer parts still fit.
 */
final class CsvSchemaInference {
  private static final Pattern PLAIN_DECIMAL = Pattern.compile("[+-]?\\d+(\\.\\d+)?");
  private static final Pattern ISO_DATE = Pattern.compile("\\d{4}-\\d{2}-\\d{2}");

  private CsvSchemaInference() {
  }

  static TableSchema infer(List<String> header, List<CsvImporter.Row> sample, CsvOptions options, String fileName) {
    int width = header != null ? header.size()
        : sample.isEmpty() ? 0 : sample.get(0).fields().size() - (options.trailingDelimiter() ? 1 : 0);
    if (width == 0) {
      throw new StorageException(fileName + ": cannot infer a schema from an empty file; pass a schema in CsvOptions");
    }
    List<ColumnDef> columns = new ArrayList<>(width);
    Set<String> names = new HashSet<>();
    for (int col = 0; col < width; col++) {
      String name = header != null ? identifier(header.get(col), col) : "c" + (col + 1);
      if (!names.add(name)) {
        name = name + "_" + (col + 1);
        names.add(name);
      }
      columns.add(new ColumnDef(name, inferColumn(sample, col, width, options)));
    }
    return new TableSchema(columns);
  }

  private static ColumnType inferColumn(List<CsvImporter.Row> sample, int col, int width, CsvOptions options) {
    boolean integers = true;
    boolean longs = true;
    boolean decimals = true;
    boolean doubles = true;
    boolean dates = true;
    int maxScale = 0;
    int maxIntegerDigits = 0;
    int seen = 0;
    for (CsvImporter.Row row : sample) {
      if (row.fields().size() <= col) {
        continue; // a short record fails later with its line number
      }
      String text = row.fields().get(col).strip();
      if (!row.quoted(col) && row.fields().get(col).equals(options.nullToken())) {
        continue;
      }
      seen++;
      boolean plainNumber = PLAIN_DECIMAL.matcher(text).matches();
      if (plainNumber) {
        BigDecimal value = new BigDecimal(text);
        maxScale = Math.max(maxScale, value.scale());
        maxIntegerDigits = Math.max(maxIntegerDigits, value.precision() - value.scale());
        boolean integral = value.scale() == 0;
        integers &= integral && value.unscaledValue().bitLength() < 32;
        longs &= integral && value.unscaledValue().bitLength() < 64;
      } else {
        integers = false;
        longs = false;
        decimals = false;
      }
      doubles &= CsvImporter.DOUBLE.matcher(text).matches();
      dates &= ISO_DATE.matcher(text).matches() && isDate(text);
    }
    ColumnType type;
    if (seen == 0) {
      type = ColumnType.varchar(ColumnType.UNBOUNDED_LENGTH);
    } else if (integers) {
      type = ColumnType.integer();
    } else if (longs) {
      type = ColumnType.bigint();
    } else if (decimals && maxIntegerDigits + maxScale <= ColumnType.MAX_DECIMAL_PRECISION) {
      type = ColumnType.decimal(ColumnType.MAX_DECIMAL_PRECISION, maxScale);
    } else if (doubles) {
      type = ColumnType.float64();
    } else if (dates) {
      type = ColumnType.date();
    } else {
      type = ColumnType.varchar(ColumnType.UNBOUNDED_LENGTH);
    }
    return type;
  }

  private static boolean isDate(String text) {
    try {
      LocalDate.parse(text);
      return true;
    } catch (DateTimeParseException e) {
      return false;
    }
  }

  /** A lower-case identifier from a header cell: other characters become '_'. */
  private static String identifier(String headerCell, int col) {
    String name = headerCell.strip().toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9_]", "_");
    if (name.isEmpty()) {
      return "c" + (col + 1);
    }
    return Character.isDigit(name.charAt(0)) ? "_" + name : name;
  }
}
