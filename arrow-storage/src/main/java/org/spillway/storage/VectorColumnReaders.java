package org.spillway.storage;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VarCharVector;

/** Column readers over the Arrow vectors of a loaded batch, one per physical layout. */
final class VectorColumnReaders {
  private VectorColumnReaders() {
  }

  /** A reader for a vector of this column; {@code dictionary} is non-null for dictionary-encoded text. */
  static ColumnReader of(ColumnDef column, FieldVector vector, List<String> dictionary) {
    ColumnType type = column.type();
    return switch (type.kind()) {
      case INTEGER -> new IntReader(column, vector, ((IntVector) vector)::get);
      case DATE -> new IntReader(column, vector, ((DateDayVector) vector)::get);
      case BIGINT -> new BigIntReader(column, (BigIntVector) vector);
      case DECIMAL -> new DecimalReader(column, (BigIntVector) vector);
      case DOUBLE -> new DoubleReader(column, (Float8Vector) vector);
      case CHAR, VARCHAR -> dictionary != null
          ? new DictionaryReader(column, (IntVector) vector, dictionary)
          : new Utf8Reader(column, (VarCharVector) vector);
    };
  }

  /** Shared parts: size, nulls, and clear errors for accessors that do not apply. */
  private abstract static class BaseReader implements ColumnReader {
    final ColumnDef column;
    private final FieldVector vector;

    BaseReader(ColumnDef column, FieldVector vector) {
      this.column = column;
      this.vector = vector;
    }

    @Override
    public ColumnType type() {
      return column.type();
    }

    @Override
    public int size() {
      return vector.getValueCount();
    }

    @Override
    public boolean isNull(int row) {
      return vector.isNull(row);
    }

    @Override
    public long getLong(int row) {
      throw notApplicable("getLong");
    }

    @Override
    public int getInt(int row) {
      throw notApplicable("getInt");
    }

    @Override
    public double getDouble(int row) {
      throw notApplicable("getDouble");
    }

    StorageException notApplicable(String accessor) {
      return new StorageException(accessor + " does not apply to column " + column.name() + " " + column.type());
    }
  }

  /** The int getter of IntVector or DateDayVector, without boxing. */
  private interface IntGetter {
    int get(int row);
  }

  private static final class IntReader extends BaseReader {
    private final IntGetter getter;

    IntReader(ColumnDef column, FieldVector vector, IntGetter getter) {
      super(column, vector);
      this.getter = getter;
    }

    @Override
    public Object get(int row) {
      return isNull(row) ? null : getter.get(row);
    }

    @Override
    public long getLong(int row) {
      return getter.get(row);
    }

    @Override
    public int getInt(int row) {
      return getter.get(row);
    }

    @Override
    public double getDouble(int row) {
      return getter.get(row);
    }
  }

  private static final class BigIntReader extends BaseReader {
    private final BigIntVector vector;

    BigIntReader(ColumnDef column, BigIntVector vector) {
      super(column, vector);
      this.vector = vector;
    }

    @Override
    public Object get(int row) {
      return vector.isNull(row) ? null : vector.get(row);
    }

    @Override
    public long getLong(int row) {
      return vector.get(row);
    }

    @Override
    public double getDouble(int row) {
      return vector.get(row);
    }
  }

  private static final class DecimalReader extends BaseReader {
    private final BigIntVector vector;
    private final int scale;
    private final double divisor;

    DecimalReader(ColumnDef column, BigIntVector vector) {
      super(column, vector);
      this.vector = vector;
      this.scale = column.type().scale();
      this.divisor = BatchBuilder.POWERS_OF_TEN[scale];
    }

    @Override
    public Object get(int row) {
      return vector.isNull(row) ? null : BigDecimal.valueOf(vector.get(row), scale);
    }

    @Override
    public long getLong(int row) {
      return vector.get(row);
    }

    @Override
    public double getDouble(int row) {
      return vector.get(row) / divisor;
    }
  }

  private static final class DoubleReader extends BaseReader {
    private final Float8Vector vector;

    DoubleReader(ColumnDef column, Float8Vector vector) {
      super(column, vector);
      this.vector = vector;
    }

    @Override
    public Object get(int row) {
      return vector.isNull(row) ? null : vector.get(row);
    }

    @Override
    public double getDouble(int row) {
      return vector.get(row);
    }
  }

  private static final class Utf8Reader extends BaseReader {
    private final VarCharVector vector;

    Utf8Reader(ColumnDef column, VarCharVector vector) {
      super(column, vector);
      this.vector = vector;
    }

    @Override
    public Object get(int row) {
      return vector.isNull(row) ? null : new String(vector.get(row), StandardCharsets.UTF_8);
    }
  }

  private static final class DictionaryReader extends BaseReader {
    private final IntVector codes;
    private final List<String> dictionary;

    DictionaryReader(ColumnDef column, IntVector codes, List<String> dictionary) {
      super(column, codes);
      this.codes = codes;
      this.dictionary = dictionary;
    }

    @Override
    public Object get(int row) {
      return codes.isNull(row) ? null : dictionary.get(codes.get(row));
    }

    @Override
    public Optional<List<String>> dictionary() {
      return Optional.of(dictionary);
    }

    @Override
    public int code(int row) {
      return codes.get(row);
    }
  }
}
