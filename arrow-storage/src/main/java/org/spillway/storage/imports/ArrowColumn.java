package org.spillway.storage.imports;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.apache.arrow.vector.BaseIntVector;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.DateMilliVector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.FloatingPointVector;
import org.apache.arrow.vector.TimeStampVector;
import org.apache.arrow.vector.VariableWidthFieldVector;
import org.apache.arrow.vector.dictionary.Dictionary;
import org.apache.arrow.vector.dictionary.DictionaryProvider;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.spillway.storage.ArrowFieldMapping;
import org.spillway.storage.BatchBuilder;
import org.spillway.storage.ColumnDef;
import org.spillway.storage.ColumnKind;
import org.spillway.storage.ColumnType;
import org.spillway.storage.StorageException;

/**
 * One column of an Arrow IPC file and the Spillway column it becomes: the type mapping and the copy of a record
 * batch's values into a batch. Dictionary-encoded columns (Spillway's own text columns among them) are read
 * through their dictionary; a column Spillway wrote keeps its declared SQL type.
 */
final class ArrowColumn {
  private static final long MICROS_PER_DAY = 86_400_000_000L;
  private static final long MILLIS_PER_DAY = 86_400_000L;

  private enum Conversion { INTEGER, UINT32, BIGINT, SCALED_BIGINT, FLOAT, DECIMAL, DATE_DAY, DATE_MILLI, STRING,
    TIMESTAMP }

  private final ColumnDef column;
  private final Conversion conversion;
  private final TimestampMode timestamps;
  /** Microseconds per unit of a timestamp (0 for nanoseconds, which divide instead). */
  private final long microsPerUnit;

  private ArrowColumn(ColumnDef column, Conversion conversion, TimestampMode timestamps, long microsPerUnit) {
    this.column = column;
    this.conversion = conversion;
    this.timestamps = timestamps;
    this.microsPerUnit = microsPerUnit;
  }

  ColumnDef column() {
    return column;
  }

  /** The Spillway column for an Arrow field; a StorageException naming the column if its type cannot be held. */
  static ArrowColumn of(Field field, TimestampMode timestamps) {
    String name = field.getName();
    boolean nullable = field.isNullable();
    Map<String, String> metadata = field.getMetadata();
    String declared = metadata == null ? null : metadata.get(ArrowFieldMapping.SQL_TYPE_KEY);
    ArrowType type = field.getType();
    if (field.getDictionary() != null) {
      // the field's type is the index type; the values are in the dictionary, which must hold text
      return new ArrowColumn(def(name, declared != null ? ColumnType.parse(declared)
          : ColumnType.varchar(ColumnType.UNBOUNDED_LENGTH), nullable), Conversion.STRING, timestamps, 0);
    }
    if (declared != null && type instanceof ArrowType.Utf8) {
      return new ArrowColumn(def(name, ColumnType.parse(declared), nullable), Conversion.STRING, timestamps, 0);
    }
    if (declared != null && type instanceof ArrowType.Int) {
      ColumnType sql = ColumnType.parse(declared);
      return new ArrowColumn(def(name, sql, nullable), sql.kind() == ColumnKind.DECIMAL
          ? Conversion.SCALED_BIGINT : sql.kind() == ColumnKind.BIGINT ? Conversion.BIGINT
          : Conversion.INTEGER, timestamps, 0);
    }
    if (type instanceof ArrowType.Int integer) {
      int bits = integer.getBitWidth();
      if (bits < 32 || bits == 32 && integer.getIsSigned()) {
        return new ArrowColumn(def(name, ColumnType.integer(), nullable), Conversion.INTEGER, timestamps, 0);
      }
      if (bits == 32) {
        return new ArrowColumn(def(name, ColumnType.bigint(), nullable), Conversion.UINT32, timestamps, 0);
      }
      if (integer.getIsSigned()) {
        return new ArrowColumn(def(name, ColumnType.bigint(), nullable), Conversion.BIGINT, timestamps, 0);
      }
      throw cannotHold(name, type, "unsigned 64-bit integers do not fit BIGINT");
    }
    if (type instanceof ArrowType.FloatingPoint) {
      return new ArrowColumn(def(name, ColumnType.float64(), nullable), Conversion.FLOAT, timestamps, 0);
    }
    if (type instanceof ArrowType.Decimal decimal && decimal.getBitWidth() == 128) {
      if (decimal.getPrecision() > ColumnType.MAX_DECIMAL_PRECISION) {
        throw cannotHold(name, type, "DECIMAL precision above " + ColumnType.MAX_DECIMAL_PRECISION
            + " (Spillway stores decimals as scaled 64-bit integers)");
      }
      return new ArrowColumn(def(name, ColumnType.decimal(decimal.getPrecision(), decimal.getScale()), nullable),
          Conversion.DECIMAL, timestamps, 0);
    }
    if (type instanceof ArrowType.Date date) {
      return new ArrowColumn(def(name, ColumnType.date(), nullable),
          date.getUnit() == DateUnit.DAY ? Conversion.DATE_DAY : Conversion.DATE_MILLI, timestamps, 0);
    }
    if (type instanceof ArrowType.Utf8 || type instanceof ArrowType.LargeUtf8) {
      return new ArrowColumn(def(name, ColumnType.varchar(ColumnType.UNBOUNDED_LENGTH), nullable), Conversion.STRING,
          timestamps, 0);
    }
    if (type instanceof ArrowType.Timestamp timestamp) {
      long micros = switch (timestamp.getUnit()) {
        case SECOND -> 1_000_000;
        case MILLISECOND -> 1000;
        case MICROSECOND -> 1;
        case NANOSECOND -> 0;
      };
      ColumnType sql = switch (timestamps) {
        case REJECT -> throw cannotHold(name, type, TimestampMode.hint());
        case DATE -> ColumnType.date();
        case MICROS -> ColumnType.bigint();
      };
      return new ArrowColumn(def(name, sql, nullable), Conversion.TIMESTAMP, timestamps, micros);
    }
    throw cannotHold(name, type, type instanceof ArrowType.Bool
        ? "Spillway has no BOOLEAN type; cast it to INTEGER before the import"
        : "Spillway holds INTEGER, BIGINT, DOUBLE, DECIMAL(p<=18), DATE and text (Utf8)");
  }

  private static ColumnDef def(String name, ColumnType type, boolean nullable) {
    return new ColumnDef(name, nullable ? type.asNullable() : type.notNull());
  }

  private static StorageException cannotHold(String name, ArrowType type, String why) {
    return new StorageException("column " + name + " of Arrow type " + type + " cannot be imported: " + why);
  }

  /** Copies {@code rows} values of {@code vector} from {@code from} on into rows 0.. of column {@code col}. */
  void copy(FieldVector vector, DictionaryProvider dictionaries, BatchBuilder batch, int col, int from, int rows) {
    FieldVector values = vector;
    BaseIntVector codes = null;
    if (vector.getField().getDictionary() != null) {
      Dictionary dictionary = dictionaries.lookup(vector.getField().getDictionary().getId());
      if (dictionary == null) {
        throw new StorageException("column " + column.name() + ": its dictionary is missing from the file");
      }
      codes = (BaseIntVector) vector;
      values = dictionary.getVector();
    }
    for (int i = 0; i < rows; i++) {
      int source = from + i;
      if (vector.isNull(source)) {
        batch.setNull(col, i);
        continue;
      }
      int index = codes == null ? source : Math.toIntExact(codes.getValueAsLong(source));
      set(values, index, batch, col, i);
    }
  }

  private void set(FieldVector values, int index, BatchBuilder batch, int col, int row) {
    switch (conversion) {
      case INTEGER -> batch.setLong(col, row, ((BaseIntVector) values).getValueAsLong(index));
      case UINT32, BIGINT -> batch.setLong(col, row, ((BaseIntVector) values).getValueAsLong(index)
          & (conversion == Conversion.UINT32 ? 0xFFFF_FFFFL : -1L));
      case SCALED_BIGINT -> batch.setDecimal(col, row, ((BigIntVector) values).get(index));
      case FLOAT -> batch.setDouble(col, row, ((FloatingPointVector) values).getValueAsDouble(index));
      case DECIMAL -> batch.setDecimal(col, row, (BigDecimal) ((DecimalVector) values).getObject(index));
      case DATE_DAY -> batch.setDate(col, row, ((DateDayVector) values).get(index));
      case DATE_MILLI -> batch.setDate(col, row,
          Math.toIntExact(Math.floorDiv(((DateMilliVector) values).get(index), MILLIS_PER_DAY)));
      case STRING -> batch.setString(col, row,
          new String(((VariableWidthFieldVector) values).get(index), StandardCharsets.UTF_8));
      case TIMESTAMP -> {
        long raw = ((TimeStampVector) values).get(index);
        long micros = microsPerUnit == 0 ? Math.floorDiv(raw, 1000) : Math.multiplyExact(raw, microsPerUnit);
        if (timestamps == TimestampMode.DATE) {
          batch.setDate(col, row, Math.toIntExact(Math.floorDiv(micros, MICROS_PER_DAY)));
        } else {
          batch.setLong(col, row, micros);
        }
      }
    }
  }
}
