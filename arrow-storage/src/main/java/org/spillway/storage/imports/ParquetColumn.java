package org.spillway.storage.imports;

import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.LogicalTypeAnnotation.DecimalLogicalTypeAnnotation;
import org.apache.parquet.schema.LogicalTypeAnnotation.IntLogicalTypeAnnotation;
import org.apache.parquet.schema.LogicalTypeAnnotation.TimestampLogicalTypeAnnotation;
import org.apache.parquet.schema.PrimitiveType;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;
import org.apache.parquet.schema.Type;
import org.spillway.storage.BatchBuilder;
import org.spillway.storage.ColumnDef;
import org.spillway.storage.ColumnType;
import org.spillway.storage.StorageException;

/**
 * One flat Parquet column and the Spillway column it becomes: the type mapping (which Parquet types Spillway can
 * hold, and as what) and the conversions of decoded values. Decoding (encodings, compression,
 * definition levels) is parquet-column's, page by page in {@link ParquetChunkDecoder}; this class converts the
 * values that need checks.
 */
final class ParquetColumn {
  private static final long MICROS_PER_DAY = 86_400_000_000L;
  /** The Julian day of 1970-01-01, which INT96 timestamps count from. */
  private static final long JULIAN_EPOCH_DAY = 2_440_588;

  /** How a decoded value becomes a Spillway value. */
  enum Conversion {
    INT32, INT64, UINT32, FLOAT, DOUBLE, DECIMAL_INT32, DECIMAL_INT64, DECIMAL_BYTES, DATE, STRING, TIMESTAMP, INT96
  }

  private final ColumnDescriptor descriptor;
  private final ColumnDef column;
  private final Conversion conversion;
  /** For timestamps: microseconds per unit of the stored value (0 for nanoseconds, which divide instead). */
  private final long microsPerUnit;
  private final TimestampMode timestamps;

  private ParquetColumn(ColumnDescriptor descriptor, ColumnDef column, Conversion conversion, long microsPerUnit,
      TimestampMode timestamps) {
    this.descriptor = descriptor;
    this.column = column;
    this.conversion = conversion;
    this.microsPerUnit = microsPerUnit;
    this.timestamps = timestamps;
  }

  ColumnDescriptor descriptor() {
    return descriptor;
  }

  ColumnDef column() {
    return column;
  }

  Conversion conversion() {
    return conversion;
  }

  /**
   * The Spillway column for a top-level Parquet field; a StorageException that names the column and says why
   * if Spillway cannot hold its type.
   */
  static ParquetColumn of(Type field, ColumnDescriptor descriptor, TimestampMode timestamps) {
    String name = field.getName();
    if (!field.isPrimitive() || field.isRepetition(Type.Repetition.REPEATED)) {
      throw cannotHold(name, field.toString().trim(), "nested and repeated fields (lists, maps, structs) are not"
          + " supported; flatten them before the import");
    }
    PrimitiveType primitive = field.asPrimitiveType();
    boolean nullable = !field.isRepetition(Type.Repetition.REQUIRED);
    LogicalTypeAnnotation logical = primitive.getLogicalTypeAnnotation();
    String described = primitive.getPrimitiveTypeName() + (logical == null ? "" : " (" + logical + ")");
    if (logical instanceof DecimalLogicalTypeAnnotation decimal) {
      if (decimal.getPrecision() > ColumnType.MAX_DECIMAL_PRECISION) {
        throw cannotHold(name, described, "DECIMAL precision above " + ColumnType.MAX_DECIMAL_PRECISION
            + " (Spillway stores decimals as scaled 64-bit integers); cast it to DOUBLE or a narrower DECIMAL"
            + " before the import");
      }
      ColumnType type = ColumnType.decimal(decimal.getPrecision(), decimal.getScale());
      Conversion conversion = switch (primitive.getPrimitiveTypeName()) {
        case INT32 -> Conversion.DECIMAL_INT32;
        case INT64 -> Conversion.DECIMAL_INT64;
        default -> Conversion.DECIMAL_BYTES;
      };
      return new ParquetColumn(descriptor, def(name, type, nullable), conversion, 0, timestamps);
    }
    if (logical instanceof TimestampLogicalTypeAnnotation timestamp) {
      long micros = switch (timestamp.getUnit()) {
        case MILLIS -> 1000;
        case MICROS -> 1;
        case NANOS -> 0;
      };
      return timestampColumn(name, described, descriptor, nullable, Conversion.TIMESTAMP, micros, timestamps);
    }
    switch (primitive.getPrimitiveTypeName()) {
      case INT32 -> {
        if (logical == null) {
          return new ParquetColumn(descriptor, def(name, ColumnType.integer(), nullable), Conversion.INT32, 0,
              timestamps);
        }
        if (logical instanceof LogicalTypeAnnotation.DateLogicalTypeAnnotation) {
          return new ParquetColumn(descriptor, def(name, ColumnType.date(), nullable), Conversion.DATE, 0, timestamps);
        }
        if (logical instanceof IntLogicalTypeAnnotation integer) {
          boolean unsigned32 = !integer.isSigned() && integer.getBitWidth() == 32;
          return new ParquetColumn(descriptor, def(name, unsigned32 ? ColumnType.bigint() : ColumnType.integer(),
              nullable), unsigned32 ? Conversion.UINT32 : Conversion.INT32, 0, timestamps);
        }
      }
      case INT64 -> {
        if (logical == null || logical instanceof IntLogicalTypeAnnotation integer && integer.isSigned()) {
          return new ParquetColumn(descriptor, def(name, ColumnType.bigint(), nullable), Conversion.INT64, 0,
              timestamps);
        }
        if (logical instanceof IntLogicalTypeAnnotation) {
          throw cannotHold(name, described, "unsigned 64-bit integers do not fit BIGINT; cast to DECIMAL(18,0) or"
              + " DOUBLE before the import");
        }
      }
      case INT96 -> {
        // Spark's and Impala's legacy timestamps
        return timestampColumn(name, described, descriptor, nullable, Conversion.INT96, 0, timestamps);
      }
      case FLOAT -> {
        return new ParquetColumn(descriptor, def(name, ColumnType.float64(), nullable), Conversion.FLOAT, 0,
            timestamps);
      }
      case DOUBLE -> {
        return new ParquetColumn(descriptor, def(name, ColumnType.float64(), nullable), Conversion.DOUBLE, 0,
            timestamps);
      }
      case BINARY -> {
        if (logical instanceof LogicalTypeAnnotation.StringLogicalTypeAnnotation
            || logical instanceof LogicalTypeAnnotation.EnumLogicalTypeAnnotation
            || logical instanceof LogicalTypeAnnotation.JsonLogicalTypeAnnotation) {
          return new ParquetColumn(descriptor, def(name, ColumnType.varchar(ColumnType.UNBOUNDED_LENGTH), nullable),
              Conversion.STRING, 0, timestamps);
        }
      }
      default -> { }
    }
    throw cannotHold(name, described, primitive.getPrimitiveTypeName() == PrimitiveType.PrimitiveTypeName.BOOLEAN
        ? "Spillway has no BOOLEAN type; cast it to INTEGER before the import"
        : "Spillway holds INTEGER, BIGINT, DOUBLE, DECIMAL(p<=18), DATE and text (Parquet STRING)");
  }

  private static ParquetColumn timestampColumn(String name, String described, ColumnDescriptor descriptor,
      boolean nullable, Conversion conversion, long microsPerUnit, TimestampMode timestamps) {
    ColumnType type = switch (timestamps) {
      case REJECT -> throw cannotHold(name, described, TimestampMode.hint());
      case DATE -> ColumnType.date();
      case MICROS -> ColumnType.bigint();
    };
    return new ParquetColumn(descriptor, def(name, type, nullable), conversion, microsPerUnit, timestamps);
  }

  private static ColumnDef def(String name, ColumnType type, boolean nullable) {
    return new ColumnDef(name, nullable ? type : type.notNull());
  }

  private static StorageException cannotHold(String name, String type, String why) {
    return new StorageException("column " + name + " of type " + type + " cannot be imported: " + why);
  }

  /** Sets a decoded INT32 value. */
  void setInt(BatchBuilder batch, int col, int row, int value) {
    switch (conversion) {
      case INT32 -> batch.setInt(col, row, value);
      case UINT32 -> batch.setLong(col, row, Integer.toUnsignedLong(value));
      case DECIMAL_INT32 -> batch.setDecimal(col, row, (long) value);
      case DATE -> batch.setDate(col, row, value);
      default -> throw unexpected("INT32");
    }
  }

  /** Sets a decoded INT64 value. */
  void setLong(BatchBuilder batch, int col, int row, long value) {
    switch (conversion) {
      case INT64 -> batch.setLong(col, row, value);
      case DECIMAL_INT64 -> batch.setDecimal(col, row, value);
      case TIMESTAMP -> setMicros(batch, col, row, microsPerUnit == 0 ? Math.floorDiv(value, 1000)
          : Math.multiplyExact(value, microsPerUnit));
      default -> throw unexpected("INT64");
    }
  }

  /** Sets a decoded BINARY, FIXED_LEN_BYTE_ARRAY or INT96 value. */
  void setBinary(BatchBuilder batch, int col, int row, Binary value) {
    switch (conversion) {
      case DECIMAL_BYTES -> batch.setDecimal(col, row, new BigInteger(value.getBytes()).longValueExact());
      case STRING -> batch.setUtf8(col, row, value.toByteBuffer());
      case INT96 -> setMicros(batch, col, row, int96Micros(value));
      default -> throw unexpected("binary");
    }
  }

  private IllegalStateException unexpected(String physical) {
    return new IllegalStateException("column " + column.name() + " (" + conversion + ") received a " + physical
        + " value");
  }

  private void setMicros(BatchBuilder batch, int col, int row, long micros) {
    if (timestamps == TimestampMode.DATE) {
      batch.setDate(col, row, Math.toIntExact(Math.floorDiv(micros, MICROS_PER_DAY)));
    } else {
      batch.setLong(col, row, micros);
    }
  }

  /** An INT96 timestamp: nanoseconds of the day, then the Julian day, both little-endian. */
  private static long int96Micros(Binary value) {
    ByteBuffer bytes = value.toByteBuffer().order(ByteOrder.LITTLE_ENDIAN);
    long nanosOfDay = bytes.getLong(bytes.position());
    long julianDay = Integer.toUnsignedLong(bytes.getInt(bytes.position() + 8));
    return (julianDay - JULIAN_EPOCH_DAY) * MICROS_PER_DAY + nanosOfDay / 1000;
  }
}
