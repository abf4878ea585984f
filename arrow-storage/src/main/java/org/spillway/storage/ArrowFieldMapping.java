package org.spillway.storage;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.DictionaryEncoding;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Maps SQL column types to the physical Arrow layout and back. DECIMAL is a scaled Int(64) so that GPU
 * kernels add and compare plain integers; the SQL type travels in field metadata so a reload restores it.
 */
public final class ArrowFieldMapping {
  /** Field metadata key holding the SQL type, e.g. "DECIMAL(15,2)". */
  public static final String SQL_TYPE_KEY = "spillway.sql_type";
  static final ArrowType.Int DICTIONARY_INDEX_TYPE = new ArrowType.Int(32, true);

  private ArrowFieldMapping() {
  }

  /** The Arrow type holding values of this SQL type (text as Utf8). */
  static ArrowType valueType(ColumnType type) {
    return switch (type.kind()) {
      case INTEGER -> new ArrowType.Int(32, true);
      case BIGINT, DECIMAL -> new ArrowType.Int(64, true);
      case DOUBLE -> new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE);
      case DATE -> new ArrowType.Date(DateUnit.DAY);
      case CHAR, VARCHAR -> ArrowType.Utf8.INSTANCE;
    };
  }

  /** A field with plain (not dictionary-encoded) values. */
  static Field plainField(ColumnDef column) {
    FieldType fieldType = new FieldType(column.type().nullable(), valueType(column.type()), null, metadata(column));
    return new Field(column.name(), fieldType, null);
  }

  /** A dictionary-encoded text field: Int32 codes into a sorted dictionary with the given id. */
  static Field dictionaryField(ColumnDef column, long dictionaryId) {
    DictionaryEncoding encoding = new DictionaryEncoding(dictionaryId, true, DICTIONARY_INDEX_TYPE);
    FieldType fieldType = new FieldType(column.type().nullable(), DICTIONARY_INDEX_TYPE, encoding, metadata(column));
    return new Field(column.name(), fieldType, null);
  }

  /** The Arrow schema of a batch before dictionary encoding. */
  static Schema plainSchema(TableSchema schema) {
    List<Field> fields = new ArrayList<>(schema.size());
    for (ColumnDef column : schema.columns()) {
      fields.add(plainField(column));
    }
    return new Schema(fields);
  }

  /** Restores the SQL column from an Arrow field written by this mapping, or infers it for foreign files. */
  static ColumnDef columnOf(Field field, String where) {
    String declared = field.getMetadata() == null ? null : field.getMetadata().get(SQL_TYPE_KEY);
    ColumnType type = declared != null ? ColumnType.parse(declared) : inferType(field, where);
    return new ColumnDef(field.getName(), field.isNullable() ? type.asNullable() : type.notNull());
  }

  private static ColumnType inferType(Field field, String where) {
    ArrowType arrowType = field.getDictionary() != null ? ArrowType.Utf8.INSTANCE : field.getType();
    if (arrowType instanceof ArrowType.Int intType && intType.getIsSigned()) {
      if (intType.getBitWidth() == 32) {
        return ColumnType.integer();
      }
      if (intType.getBitWidth() == 64) {
        return ColumnType.bigint();
      }
    } else if (arrowType instanceof ArrowType.FloatingPoint fp && fp.getPrecision() == FloatingPointPrecision.DOUBLE) {
      return ColumnType.float64();
    } else if (arrowType instanceof ArrowType.Date date && date.getUnit() == DateUnit.DAY) {
      return ColumnType.date();
    } else if (arrowType instanceof ArrowType.Utf8) {
      return ColumnType.varchar(ColumnType.UNBOUNDED_LENGTH);
    }
    throw new StorageException(where + ": column " + field.getName() + " has unsupported Arrow type " + arrowType);
  }

  private static Map<String, String> metadata(ColumnDef column) {
    return Map.of(SQL_TYPE_KEY, column.type().toString());
  }
}
