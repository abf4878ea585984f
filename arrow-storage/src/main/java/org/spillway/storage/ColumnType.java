package org.spillway.storage;

import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The SQL type of a column: precision/scale for DECIMAL, length for CHAR/VARCHAR (in the precision
 * field), 0 otherwise.
 */
public record ColumnType(ColumnKind kind, int precision, int scale, boolean nullable) {
  /** Largest DECIMAL precision: unscaled values must fit a signed 64-bit integer. */
  public static final int MAX_DECIMAL_PRECISION = 18;
  /** Length of a VARCHAR declared without one. */
  public static final int UNBOUNDED_LENGTH = Integer.MAX_VALUE;

  private static final Pattern SQL_TYPE = Pattern.compile(
      "\\s*([A-Za-z][A-Za-z ]*?)\\s*(?:\\(\\s*(\\d+)\\s*(?:,\\s*(\\d+)\\s*)?\\))?\\s*(NOT\\s+NULL|NULL)?\\s*",
      Pattern.CASE_INSENSITIVE);

  public ColumnType {
    if (kind == null) {
      throw new StorageException("column kind must not be null");
    }
    switch (kind) {
      case DECIMAL -> {
        if (precision < 1 || precision > MAX_DECIMAL_PRECISION) {
          throw new StorageException("DECIMAL precision " + precision + " is outside 1.."
              + MAX_DECIMAL_PRECISION + " (values are stored as scaled 64-bit integers)");
        }
        if (scale < 0 || scale > precision) {
          throw new StorageException("DECIMAL(" + precision + "," + scale + "): scale must be in 0.." + precision);
        }
      }
      case CHAR, VARCHAR -> {
        if (precision < 1) {
          throw new StorageException(kind + " length must be at least 1, not " + precision);
        }
        if (scale != 0) {
          throw new StorageException(kind + " has no scale");
        }
      }
      default -> {
        if (precision != 0 || scale != 0) {
          throw new StorageException(kind + " takes no precision or scale");
        }
      }
    }
  }

  public static ColumnType integer() {
    return new ColumnType(ColumnKind.INTEGER, 0, 0, true);
  }

  public static ColumnType bigint() {
    return new ColumnType(ColumnKind.BIGINT, 0, 0, true);
  }

  public static ColumnType float64() {
    return new ColumnType(ColumnKind.DOUBLE, 0, 0, true);
  }

  public static ColumnType decimal(int precision, int scale) {
    return new ColumnType(ColumnKind.DECIMAL, precision, scale, true);
  }

  public static ColumnType date() {
    return new ColumnType(ColumnKind.DATE, 0, 0, true);
  }

  public static ColumnType chars(int length) {
    return new ColumnType(ColumnKind.CHAR, length, 0, true);
  }

  public static ColumnType varchar(int length) {
    return new ColumnType(ColumnKind.VARCHAR, length, 0, true);
  }

  public ColumnType notNull() {
    return new ColumnType(kind, precision, scale, false);
  }

  public ColumnType asNullable() {
    return new ColumnType(kind, precision, scale, true);
  }

  /** Maximum string length for CHAR/VARCHAR. */
  public int length() {
    return kind.isText() ? precision : 0;
  }

  /**
   * Parses a SQL type name: INTEGER/INT, BIGINT, DOUBLE/DOUBLE PRECISION/FLOAT8, DECIMAL(p[,s])/NUMERIC,
   * DATE, CHAR[(n)]/CHARACTER, VARCHAR[(n)]/CHARACTER VARYING, with an optional NOT NULL (case-insensitive).
   */
  public static ColumnType parse(String sql) {
    Matcher m = SQL_TYPE.matcher(sql == null ? "" : sql);
    if (!m.matches()) {
      throw new StorageException("cannot parse SQL type '" + sql + "'");
    }
    String name = m.group(1).toUpperCase(Locale.ROOT).replaceAll("\\s+", " ");
    Integer first = m.group(2) == null ? null : Integer.valueOf(m.group(2));
    Integer second = m.group(3) == null ? null : Integer.valueOf(m.group(3));
    boolean notNull = m.group(4) != null && m.group(4).toUpperCase(Locale.ROOT).startsWith("NOT");
    ColumnType type = switch (name) {
      case "INTEGER", "INT", "INT4" -> plain(ColumnKind.INTEGER, sql, first);
      case "BIGINT", "INT8" -> plain(ColumnKind.BIGINT, sql, first);
      case "DOUBLE", "DOUBLE PRECISION", "FLOAT8", "FLOAT64" -> plain(ColumnKind.DOUBLE, sql, first);
      case "DATE" -> plain(ColumnKind.DATE, sql, first);
      case "DECIMAL", "NUMERIC", "DEC" -> {
        if (first == null) {
          throw new StorageException("'" + sql + "': DECIMAL needs a precision, e.g. DECIMAL(15,2)");
        }
        yield decimal(first, second == null ? 0 : second);
      }
      case "CHAR", "CHARACTER" -> chars(lengthOf(sql, first, second, 1));
      case "VARCHAR", "CHARACTER VARYING", "CHAR VARYING" -> varchar(lengthOf(sql, first, second, UNBOUNDED_LENGTH));
      default -> throw new StorageException("unknown SQL type '" + sql.trim() + "'");
    };
    return notNull ? type.notNull() : type;
  }

  private static ColumnType plain(ColumnKind kind, String sql, Integer precision) {
    if (precision != null) {
      throw new StorageException("'" + sql.trim() + "': " + kind + " takes no precision");
    }
    return new ColumnType(kind, 0, 0, true);
  }

  private static int lengthOf(String sql, Integer first, Integer second, int defaultLength) {
    if (second != null) {
      throw new StorageException("'" + sql.trim() + "': a string type takes one length");
    }
    return first == null ? defaultLength : first;
  }

  /** The SQL spelling without nullability, e.g. "DECIMAL(15,2)", "VARCHAR(25)", "DATE". */
  @Override
  public String toString() {
    return switch (kind) {
      case DECIMAL -> "DECIMAL(" + precision + "," + scale + ")";
      case CHAR -> "CHAR(" + precision + ")";
      case VARCHAR -> precision == UNBOUNDED_LENGTH ? "VARCHAR" : "VARCHAR(" + precision + ")";
      default -> kind.name();
    };
  }

  /** The SQL spelling with " NOT NULL" appended for non-nullable types; {@link #parse} reads it back. */
  public String toDeclaration() {
    return nullable ? toString() : toString() + " NOT NULL";
  }
}
